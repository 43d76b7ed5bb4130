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
	"flag"
	"fmt"
	"os"
	"strings"

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
	if err := checkAnalyzerFlags(os.Args[1:]); err != nil {
		// one line, not the flag package's usage text: go vet runs the
		// tool once per package and would print that for every one
		fmt.Fprintf(os.Stderr, "faultline-vet: %v (bad input)\n", err)
		os.Exit(2)
	}
	unitchecker.Main(vet.Analyzers...)
}

// checkAnalyzerFlags sets the analyzer flags (-ANALYZER.FLAG=VALUE, or
// with the value as the next argument) that args give before the first
// non-flag argument, and returns the first value its analyzer refuses,
// naming the flag.
func checkAnalyzerFlags(args []string) error {
	flags := map[string]*flag.Flag{}
	for _, a := range vet.Analyzers {
		a.Flags.VisitAll(func(f *flag.Flag) { flags[a.Name+"."+f.Name] = f })
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return nil
		}
		name, value, given := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := flags[name]
		if f == nil {
			continue
		}
		if !given {
			if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
				continue
			}
			if i+1 >= len(args) {
				return nil // the flag package says the value is missing
			}
			i++
			value = args[i]
		}
		if err := f.Value.Set(value); err != nil {
			return fmt.Errorf("-%s: %w", name, err)
		}
	}
	return nil
}
