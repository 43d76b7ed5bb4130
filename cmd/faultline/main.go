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
// Run "faultline help" for the commands and "faultline help COMMAND" for
// every flag.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/faultline/faultline/internal/fileio"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// Exit codes of the table in the package comment.
const (
	exitOK           = 0
	exitViolation    = 1
	exitBadInput     = 2
	exitInconclusive = 3
	exitIO           = 4
)

// inconclusive wraps a message as exit code 3.
func inconclusive(format string, args ...any) error {
	return &exitError{code: exitInconclusive, err: fmt.Errorf(format, args...)}
}

// ioFailure wraps err as exit code 4 (an I/O or internal error).
func ioFailure(err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: exitIO, err: err}
}

// outputError maps a failure to write the command's output (stdout, a
// file it was asked to write) to exit code 4.
func outputError(err error) error {
	if err == nil {
		return nil
	}
	return ioFailure(err)
}

// inputError maps a failure to read or decode an input file the user
// named: a missing path, a directory or another non-regular file, and
// every decoding problem (malformed, oversized, invalid) are bad input
// (2); an operating-system error while reading a file that exists (EIO,
// EACCES, ...) is an I/O error (4). An error that already carries a code
// keeps it.
func inputError(err error) error {
	var ee *exitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return err
	case errors.Is(err, fileio.ErrBadInput), errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENOTDIR):
		return &exitError{code: exitBadInput, err: err}
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &exitError{code: exitIO, err: err}
	}
	return &exitError{code: exitBadInput, err: err}
}

// writeError maps a failure to update a file the command writes into (a
// coverage file it merges into): an operating-system error is an I/O error
// (4), whatever it is; a problem decoding what the file already holds is
// bad input (2).
func writeError(err error) error {
	var ee *exitError
	var errno syscall.Errno
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return err
	case errors.Is(err, fileio.ErrBadInput): // the path names no regular file
		return &exitError{code: exitBadInput, err: err}
	case errors.As(err, &errno):
		return &exitError{code: exitIO, err: err}
	}
	return &exitError{code: exitBadInput, err: err}
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
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || cmd == nil {
				return badInput("help: unknown command %q (run \"faultline help\" for the commands)", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	})
	for _, c := range root.Commands() {
		guard(c)
	}
	return root
}

// emptyAllowed names the flags whose empty value means something
// documented: --controls ” is the empty control set, --mutant ” no
// mutant.
var emptyAllowed = map[string]bool{"controls": true, "mutant": true}

// guard wraps c and its subcommands: every flag given with an empty value
// (or an empty element in a list) is bad input, arguments to a command
// that only groups subcommands are bad input, and an error a command
// returns without an exit code is an I/O or internal error (4).
func guard(c *cobra.Command) {
	for _, sub := range c.Commands() {
		guard(sub)
	}
	run := c.RunE
	if run == nil {
		if !c.HasSubCommands() {
			return
		}
		run = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				var names []string
				for _, sub := range c.Commands() {
					if sub.IsAvailableCommand() {
						names = append(names, sub.Name())
					}
				}
				return badInput("unknown command %q for %q (valid: %s)", args[0], c.CommandPath(), strings.Join(names, ", "))
			}
			return c.Help()
		}
	}
	c.RunE = func(c *cobra.Command, args []string) error {
		var bad error
		c.Flags().Visit(func(f *pflag.Flag) {
			if bad != nil || emptyAllowed[f.Name] {
				return
			}
			if err := checkNotEmpty(f); err != nil {
				bad = err
			}
		})
		if bad != nil {
			return bad
		}
		err := run(c, args)
		if err == nil {
			return nil
		}
		return ioFailure(err)
	}
}

// checkNotEmpty returns bad input when a given flag's value is empty or,
// for a list, holds an empty element.
func checkNotEmpty(f *pflag.Flag) error {
	switch v := f.Value.(type) {
	case pflag.SliceValue:
		l := v.GetSlice()
		if len(l) == 0 {
			return badInput("--%s is empty: name at least one value, or leave the flag out", f.Name)
		}
		for _, x := range l {
			if strings.TrimSpace(x) == "" {
				return badInput("--%s %q holds an empty element", f.Name, f.Value.String())
			}
		}
	default:
		if f.Value.Type() == "string" && strings.TrimSpace(f.Value.String()) == "" {
			return badInput("--%s is empty: give a value, or leave the flag out", f.Name)
		}
	}
	return nil
}

// recordingWriter passes writes to w and keeps the first error, so that
// output lost to a full disk is never an exit 0.
type recordingWriter struct {
	w   io.Writer
	err error
}

func (r *recordingWriter) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// run executes args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	out := &recordingWriter{w: stdout}
	root := newRoot(out, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil && out.err != nil {
		// output a command or cobra's help printed without checking it
		err = &exitError{code: exitIO, err: fmt.Errorf("writing the output: %w", out.err)}
	}
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
	return exitBadInput
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
