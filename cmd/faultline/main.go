// Command faultline tests systems that act under typed faults: it runs the
// paper-parity assay, replays schedule files, audits the built-in
// reference system (the Copperfin refund workflow), and serves the lab, the
// interactive assay as a local web page.
//
// Exit codes: 0 when the command succeeded and every checked invariant held,
// 1 when an invariant was violated (or a gate failed), 2 for bad input (a bad
// flag, a malformed schedule, an unknown kind or control).
//
// Run "faultline help" for the commands; the README documents every flag
// and format.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput wraps err as exit code 2.
func badInput(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// errViolation is returned (exit 1) after a report was printed that shows a
// violated invariant; it prints nothing more.
var errViolation = &exitError{code: 1, err: errors.New("")}

// commands is filled by each command file's init.
var commands []func() *cobra.Command

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "faultline",
		Short: "Typed fault injection, property-based exploration and release evidence for systems that act",
		Long: `faultline tests systems that act (an orchestrator or agent that turns a proposal
into a refund, a payment, a deletion) under typed faults, and reports which
invariants held, with replayable schedules and release evidence.

Exit codes: 0 success, 1 an invariant was violated or a gate failed, 2 bad input.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: 2, err: err}
	})
	for _, mk := range commands {
		root.AddCommand(mk())
	}
	return root
}

// run executes args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err.Error() != "" {
			fmt.Fprintln(stderr, "faultline:", ee.err)
		}
		return ee.code
	}
	// cobra's own errors (unknown command, bad arguments) are bad input
	fmt.Fprintln(stderr, "faultline:", err)
	return 2
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
