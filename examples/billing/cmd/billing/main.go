// Command billing is the billing agent's own command line, as a user's
// cmd/ gets it from package cli: replay, explore, audit and coverage for
// the agent, with faultline's exit codes.
//
//	go run ./examples/billing/cmd/billing audit
//	go run ./examples/billing/cmd/billing replay FILE
package main

import (
	"os"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/billing"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, billing.Definition())) }
