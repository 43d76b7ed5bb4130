// Command faultline-vet runs faultline's analyzers (retrykey,
// unknownoutcome, wallclock; see package vet) as a go vet tool:
//
//	go install github.com/faultline/faultline/cmd/faultline-vet
//	go vet -vettool=$(go env GOPATH)/bin/faultline-vet ./...
//
// It keeps go vet's own exit codes and flags (-retrykey=false turns one
// analyzer off; -json prints the findings as JSON). The findings it
// prints are those of "faultline vet", which maps them onto faultline's
// exit-code table instead.
package main

import (
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/faultline/faultline/vet"
)

// buildNonce is empty in an installed tool. A test sets it (with
// -ldflags=-X main.buildNonce=...) to make its build's content, and so the
// tool's identity in go vet's cache, its own: go vet would otherwise answer
// for an identical earlier build from its cache.
var buildNonce string

func main() {
	_ = buildNonce
	unitchecker.Main(vet.Analyzers...)
}
