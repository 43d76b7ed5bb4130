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

func main() { unitchecker.Main(vet.Analyzers...) }
