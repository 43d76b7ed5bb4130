// Command inventory is the checkout agent's own command line, as a user's
// cmd/ gets it from package cli: replay, explore, audit (with the release
// evidence), dossier and coverage for the agent, with faultline's exit
// codes.
//
//	go run ./examples/inventory/cmd/inventory audit
//	go run ./examples/inventory/cmd/inventory dossier --out DIR
//	go run ./examples/inventory/cmd/inventory dossier diff OLD NEW
package main

import (
	"io"
	"os"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
)

// run executes args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	p := &cli.Program{Name: "inventory", Systems: []*model.Definition{inventory.Definition()}}
	return p.Run(args, stdout, stderr)
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
