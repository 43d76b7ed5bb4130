// Command faultline tests systems that act under typed faults: it runs the
// paper-parity assay, replays schedule files, explores compositions of
// faults, audits the built-in reference system (the Copperfin refund
// workflow), gates coverage files, and serves the lab, the interactive
// assay as a local web page.
//
// Exit codes, the same table for every command:
//
//	0  it ran, every invariant in scope held, and every scheduled fault was
//	   reached and fired (a schedule with no faults is a clean run); for a
//	   campaign (explore, assay, audit, coverage gate) at least one
//	   scheduled fault was reached, and the output counts those that were not
//	1  an invariant was violated (a counterexample), or a gate failed
//	2  bad input: usage, flags (an unknown or empty value, a count out of
//	   range), a missing, malformed or oversized file, a config that does
//	   not apply to the system
//	3  inconclusive: for one run (replay), a scheduled fault was never
//	   reached or never fired; for a campaign, no scheduled fault was
//	   reached at all
//	4  an I/O or internal error: a full disk, an unreadable file or
//	   directory, output that could not be written
//
// It is package cli's program with the reference system registered: the
// generic replay, explore and coverage commands are cli's (with the
// reference system's --profile, --controls, --without and --mutant flags
// added through cli.SystemFlags), and the reference system's own commands
// (assay, its audit with the release evidence, dossier, lab) are added
// through cli.Program.Commands. A user's own cmd/ gets the same commands
// for its systems from cli.Main.
//
// Run "faultline help" for the commands and "faultline help COMMAND" for
// every flag.
package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// The exit-code machinery is package cli's; these names keep the
// reference commands short.
type exitError = cli.ExitError

var (
	badInput      = cli.BadInput
	inconclusive  = cli.Inconclusive
	ioFailure     = cli.IOFailure
	outputError   = cli.OutputError
	errViolation  = cli.ErrViolation
	checkCount    = cli.CheckCount
	wrapText      = cli.WrapText
	coveragePath  = cli.CoveragePath
	flushCoverage = cli.FlushCoverage
)

const coverageEnv = cli.CoverageEnv

// commands are the reference system's own commands (assay, audit, dossier,
// lab), filled by each command file's init; its audit replaces the
// generic one.
var commands []func() *cobra.Command

// program is the faultline command: package cli's program with the
// reference system registered, its --profile, --controls, --without and
// --mutant flags on replay and explore, and its own commands.
func program() *cli.Program {
	return &cli.Program{
		Name:  "faultline",
		Short: "Typed fault injection, property-based exploration and release evidence for systems that act",
		Long: `faultline tests systems that act (an orchestrator or agent that turns a proposal
into a refund, a payment, a deletion) under typed faults, and reports which
invariants held, with replayable schedules and release evidence.

Exit codes (every command):
  0  it ran, every invariant in scope held, and every scheduled fault was
     reached and fired; for a campaign (explore, assay, audit, coverage
     gate) at least one scheduled fault was reached, and the output counts
     the faults that were not
  1  an invariant was violated (a counterexample), or a gate failed
  2  bad input: usage, a flag (unknown, empty, or a count out of range), a
     missing, malformed or oversized file, a config that does not apply
  3  inconclusive: for one run, a scheduled fault was never reached or
     never fired; for a campaign, no scheduled fault was reached at all
  4  an I/O or internal error: a full disk, an unreadable file or
     directory, output that could not be written`,
		Systems:  []*model.Definition{copperfin.Definition()},
		Flags:    map[string]func() cli.SystemFlags{copperfin.Name: func() cli.SystemFlags { return &referenceFlags{} }},
		Commands: commands,
		// --controls '' is the empty control set, --mutant '' no mutant
		EmptyAllowed: []string{"controls", "mutant"},
	}
}

// newTracker returns an empty coverage tracker of the reference system's
// runs over u (nil: coverage.Default()), as its Definition describes it.
func newTracker(u *coverage.Universe) *coverage.Tracker {
	t, err := coverage.NewTracker(u, copperfin.Definition())
	if err != nil {
		panic(err) // a constant, valid definition
	}
	return t
}

// reportOptions replay the reference system's schedules with the faultline
// command, as package cli does for a system that declares no replay
// command.
var reportOptions = coverage.ReportOptions{Replay: map[string]string{"": "faultline replay %s"}}

// run executes args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return program().Run(args, stdout, stderr)
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// coverageFlag names where a command's coverage path came from.
func coverageFlag(flag string) string {
	if flag != "" {
		return "--coverage"
	}
	return "$" + coverageEnv
}
