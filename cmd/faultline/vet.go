package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/tools/go/analysis"

	"github.com/faultline/faultline/internal/outflag"
	"github.com/faultline/faultline/vet"
)

func init() { commands = append(commands, newVetCmd) }

func newVetCmd() *cobra.Command {
	var noTests bool
	var ofmt *outflag.Flag
	var passed []analyzerFlag
	c := &cobra.Command{
		Use:   "vet PACKAGES...",
		Short: "Report fresh keys per retry, unknown outcomes taken as failures and wall-clock reads, before a test runs",
		Long: `Run faultline's analyzers over the packages the go list patterns name (./...):

  retrykey        a request or idempotency key that varies across the attempts
                  of a retry loop around a consequential call; at run time a
                  timeout_after_commit schedule shows the duplicate effect
  unknownoutcome  a branch on a tool's outcome whose unknown case is missing,
                  folded into the rejected case or the default, or neither
                  read back, held nor retried under the same key; at run time
                  a timeout_after_commit or tool_timeout schedule shows it
  wallclock       the wall clock or global randomness reached from a System's
                  Run without the Env's clock, sleep and request ids; at run
                  time "faultline replay --twice" shows the replays differ

Each finding prints as FILE:LINE:COLUMN: ANALYZER: MESSAGE, with the fault kind
that would prove it at run time; a retrykey finding adds the call that sends the
key: [sent by CALLEE at FILE:LINE:COLUMN, tool "TOOL", event EVENT], the tool
and event a counterexample's fault names (the tool when the source fixes it). A "//faultline:ignore REASON" comment on the
finding's line or the line above silences it; without a reason it silences
nothing. Test files are analysed too, as go vet does, unless --no-tests.

--ANALYZER=false leaves an analyzer out and --ANALYZER (true) runs only the
analyzers so named, as go vet's -ANALYZER flags do; leaving every analyzer
out is bad input. An analyzer's own flags pass through as --ANALYZER.FLAG, go vet's
-ANALYZER.FLAG with two dashes: --retrykey.consequential='(*example.com/pay.Client).Refund'
teaches retrykey a consequential call (PKG.Func or (PKG.Type).Method, comma-separated;
docs/vet.md). A value the analyzer refuses, or a call that matches no function
or method of the packages or their imports (a typo that would teach nothing), is
bad input (exit 2).

--format json (or --json) prints one object: {"version": 1, "packages": N, "findings": [{"analyzer",
"file", "line", "column", "function", "message", "fault_kind", "call"}]}, "call"
({"file", "line", "column", "callee", "tool", "event"}) on retrykey's findings;
findings
ordered by file, line, column and analyzer; file paths are relative to the
current directory.

The same analyzers run under go vet:
  go install github.com/faultline/faultline/cmd/faultline-vet
  go vet -vettool=$(go env GOPATH)/bin/faultline-vet ./...

Exit codes: 0 no finding; 1 at least one finding; 2 bad input (no pattern,
patterns that match no package, code that does not load or type-check); 4 the
go command or an analyzer failed, or the output could not be written.`,
		RunE: func(c *cobra.Command, args []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return badInput("%v", err)
			}
			asJSON := format == "json"
			if len(args) == 0 {
				return badInput("vet needs at least one package pattern (try ./...)")
			}
			restore, err := setAnalyzerFlags(c, passed)
			defer restore()
			if err != nil {
				return err
			}
			as, err := chosenAnalyzers(c)
			if err != nil {
				return err
			}
			rep, err := vet.Check(args, vet.Options{Tests: !noTests, Analyzers: as})
			var ie *vet.InputError
			if errors.As(err, &ie) {
				return badInput("vet: %v", ie.Err)
			} else if err != nil {
				return ioFailure(fmt.Errorf("vet: %w", err))
			}
			out := c.OutOrStdout()
			if asJSON {
				b, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return ioFailure(err)
				}
				if _, err := fmt.Fprintf(out, "%s\n", b); err != nil {
					return outputError(err)
				}
			} else {
				for _, f := range rep.Findings {
					if _, err := fmt.Fprintf(out, "%s:%d:%d: %s: %s%s (at run time: %s)\n", f.File, f.Line, f.Column, f.Analyzer, f.Message, sentBy(f.Call), f.FaultKind); err != nil {
						return outputError(err)
					}
				}
				if _, err := fmt.Fprintf(out, "faultline vet: %d finding(s) in %d package(s)\n", len(rep.Findings), rep.Packages); err != nil {
					return outputError(err)
				}
			}
			if len(rep.Findings) > 0 {
				return errViolation
			}
			return nil
		},
	}
	ofmt = outflag.Add(c, "the report", "text", "json")
	c.Flags().BoolVar(&noTests, "no-tests", false, "leave the packages' test files out")
	for _, a := range vet.Analyzers {
		c.Flags().Bool(a.Name, true, "run the "+a.Name+" analyzer (--"+a.Name+"=false leaves it out; --"+a.Name+" alone runs only the analyzers given true)")
		a.Flags.VisitAll(func(f *flag.Flag) {
			af := analyzerFlag{name: a.Name + "." + f.Name, f: f}
			passed = append(passed, af)
			c.Flags().String(af.name, f.DefValue, f.Usage)
		})
	}
	// go vet's one-dash spelling reads as shorthand flags: say so
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		for _, af := range passed {
			if strings.Contains(err.Error(), "unknown shorthand flag") && strings.Contains(err.Error(), " in -"+af.name) {
				return badInput("%v (an analyzer's flag takes two dashes here: --%s)", err, af.name)
			}
		}
		return c.Root().FlagErrorFunc()(c, err)
	})
	return c
}

// chosenAnalyzers returns the analyzers the --ANALYZER flags choose, as
// go vet does: those given true when any is, else every one not given
// false; none left is bad input.
func chosenAnalyzers(c *cobra.Command) ([]*analysis.Analyzer, error) {
	var on, notOff []*analysis.Analyzer
	for _, a := range vet.Analyzers {
		v, _ := c.Flags().GetBool(a.Name)
		if c.Flags().Changed(a.Name) && v {
			on = append(on, a)
		}
		if v {
			notOff = append(notOff, a)
		}
	}
	switch {
	case len(on) > 0:
		return on, nil
	case len(notOff) == 0:
		return nil, badInput("vet: every analyzer is left out (--ANALYZER=false): leave one on")
	}
	return notOff, nil
}

// analyzerFlag is an analyzer's flag as the vet command passes it
// through: --ANALYZER.FLAG.
type analyzerFlag struct {
	name string
	f    *flag.Flag
}

// setAnalyzerFlags sets each analyzer flag the command line gave on its
// analyzer, and returns what puts every one back to its default (the
// analyzers' flags are package state, and a program may run vet twice).
// A value the analyzer refuses is bad input naming the flag.
func setAnalyzerFlags(c *cobra.Command, passed []analyzerFlag) (restore func(), err error) {
	var set []analyzerFlag
	restore = func() {
		for _, af := range set {
			_ = af.f.Value.Set(af.f.DefValue)
		}
	}
	for _, af := range passed {
		if !c.Flags().Changed(af.name) {
			continue
		}
		v, _ := c.Flags().GetString(af.name)
		set = append(set, af)
		if err := af.f.Value.Set(v); err != nil {
			return restore, badInput("vet: --%s: %v", af.name, err)
		}
	}
	return restore, nil
}

// sentBy renders a finding's call site for the text output, "" when it
// has none.
func sentBy(c vet.CallSite) string {
	if c == (vet.CallSite{}) {
		return ""
	}
	tool := ""
	if c.Tool != "" {
		tool = ", tool " + strconv.Quote(c.Tool)
	}
	return fmt.Sprintf(" [sent by %s at %s:%d:%d%s, event %s]", c.Callee, c.File, c.Line, c.Column, tool, c.Event)
}
