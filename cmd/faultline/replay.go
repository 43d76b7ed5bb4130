package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/model/copperfin"
)

func init() { commands = append(commands, newReplayCmd) }

// loadSchedule reads and strictly decodes a schedule file, or a
// counterexample file (returned too) and its schedule: the corpus format or
// an exploration's counterexample record (corpus.ReadCounterexample maps
// it); a missing file and every decoding problem are bad input (exit 2),
// an I/O error reading a file that exists is exit 4 (see inputError). The
// file is read through fileio.ReadFile (at most fileio.ScheduleLimit bytes,
// a regular file only). Errors name the file, also for a mutant or fixture
// its config names but this build does not know.
func loadSchedule(path string) (*model.Schedule, *corpus.Counterexample, error) {
	data, err := fileio.ReadFile(path, fileio.ScheduleLimit)
	if err != nil {
		return nil, nil, inputError(err)
	}
	s, ce, err := decodeSchedule(data)
	if err != nil {
		return nil, nil, badInput("%s: %w", path, err)
	}
	def := copperfin.Definition()
	if _, err := def.Factory(s.Config); err != nil {
		return nil, nil, badInput("%s: schedule: %w", path, err)
	}
	if _, err := def.Fixture(s.Config.Fixture); err != nil {
		return nil, nil, badInput("%s: schedule: config: %w", path, err)
	}
	return s, ce, nil
}

// decodeSchedule decodes the contents of a schedule or counterexample file.
func decodeSchedule(data []byte) (*model.Schedule, *corpus.Counterexample, error) {
	if corpus.IsCounterexample(data) || corpus.IsRecord(data) {
		ce, err := corpus.ReadCounterexample(data)
		if err != nil {
			return nil, nil, err
		}
		if ce.Schedule == nil {
			return nil, nil, fmt.Errorf("a %s counterexample holds no schedule to replay (its input: %s)", ce.Kind, ce.Input)
		}
		return ce.Schedule, ce, nil
	}
	s, err := model.ParseSchedule(data)
	if err != nil {
		return nil, nil, err
	}
	return s, nil, nil
}

func newReplayCmd() *cobra.Command {
	var cf configFlags
	var asJSON, twice bool
	var mutant string
	c := &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay one schedule file against the reference system",
		Long: `Replay a schedule file (docs/formats.md gives its format), or a
counterexample file (the corpus format, or the record faultline explore
writes beside a schedule file), against the reference system, optionally
overriding its config, and print the timeline, every fault with whether it
was reached and fired, the invariant results, the outcome terms, the claim
and run verdicts, and the run's human summary (frozen contract,
schedule, verdict, failed invariants, budget consumption, narrowest next
verification). --json prints the run's evidence record instead.

--twice runs the schedule twice and compares the normalised timelines; a
difference is printed as a diff and exits 1.

--profile, --controls and --without change only the control selection:
the file's fixture, mutant, retry budget, deadline and join policy stay.
--without alone removes controls from the file's own set; with --profile or
--controls it removes them from that set.

Exit codes: 0 every invariant held and every scheduled fault was reached and
fired (a schedule without faults is a clean run); 1 an invariant was
violated (or --twice found a difference); 2 bad input (a missing, malformed
or oversized file, an unknown flag value, a config that does not apply);
3 inconclusive: a scheduled fault was never reached or never fired, or the
run was otherwise inconclusive (the faults are named on stderr); 4 an I/O or
internal error (the output could not be written).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s, ce, err := loadSchedule(args[0])
			if err != nil {
				return err
			}
			cs, label, err := cf.resolve(c, &s.Config)
			if err != nil {
				return err
			}
			overridden := c.Flags().Changed("profile") || c.Flags().Changed("controls") || c.Flags().Changed("without")
			if overridden {
				s.Config = overrideControls(s.Config, cs, label)
			}
			if c.Flags().Changed("mutant") {
				if _, err := copperfin.ParseMutant(mutant); err != nil {
					return badInput("--mutant: %v", err)
				}
				s.Config = copperfin.WithMutant(s.Config, mutant)
			}
			res, err := assay.Replay(s)
			if err != nil {
				return badInput("%v", err)
			}
			if twice {
				again, err := assay.Replay(s)
				if err != nil {
					return badInput("%v", err)
				}
				if diff := cmp.Diff(model.Normalize(res.Timeline), model.Normalize(again.Timeline)); diff != "" {
					fmt.Fprintf(c.OutOrStdout(), "NOT DETERMINISTIC: two runs of %s gave different normalised timelines (-first +second):\n%s", args[0], diff)
					return errViolation
				}
				fmt.Fprintf(c.ErrOrStderr(), "deterministic: two runs gave equal normalised timelines (%d events)\n", len(res.Timeline))
			}
			if asJSON {
				err = assay.WriteJSON(c.OutOrStdout(), res.Record())
			} else {
				err = writeResult(c.OutOrStdout(), res)
				if err == nil && ce != nil && ce.Expect != nil {
					err = writeExpectation(c.OutOrStdout(), ce, res, overridden)
				}
			}
			if err != nil {
				return outputError(err)
			}
			return runExit(res)
		},
	}
	cf.add(c, "typed", true)
	c.Flags().BoolVar(&asJSON, "json", false, "print the run's evidence record as one JSON object")
	c.Flags().BoolVar(&twice, "twice", false, "run twice and fail (exit 1, with a diff) unless the normalised timelines are equal")
	c.Flags().StringVar(&mutant, "mutant", "", "run the reference system with this seeded defect (see faultline explore --list-mutants); '' removes the file's mutant")
	return c
}

// overrideControls returns cfg with only its control selection replaced:
// the profile label when the flags named a profile alone, else the
// explicit control set cs. The fixture, mutant, retry budget, deadline and
// join policy of the file stay as they are.
func overrideControls(cfg model.Config, cs copperfin.Controls, label string) model.Config {
	st := copperfin.Settings{Mutant: copperfin.MutantOf(cfg)}
	if label == "custom" {
		st.Controls, st.HasControls = cs, true
	} else {
		st.Profile = copperfin.Profile(label)
	}
	cfg.System = st.JSON()
	return cfg
}

// runExit maps one run onto the exit-code table: 1 when an invariant was
// violated, 3 when a scheduled fault was never reached or never fired (or
// the run is otherwise inconclusive), nil (0) otherwise. For 3 it names the
// faults on stderr through the error.
func runExit(res *model.Result) error {
	if !res.Held() {
		return errViolation
	}
	var untested []string
	for _, f := range res.Faults {
		switch {
		case !f.Reached:
			untested = append(untested, fmt.Sprintf("%s %s at %s was not reached", f.ID, f.Kind, f.Placement()))
		case f.Fired == 0:
			untested = append(untested, fmt.Sprintf("%s %s at %s was reached but did not fire", f.ID, f.Kind, f.Placement()))
		}
	}
	if len(untested) > 0 {
		return inconclusive("inconclusive: %s; the run tested less than its schedule", strings.Join(untested, ", "))
	}
	if res.RunVerdict == model.Inconclusive {
		return inconclusive("inconclusive: the run verdict is inconclusive (a stop condition or limit ended it before it could be judged)")
	}
	return nil
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// writeExpectation compares a counterexample's recorded run with the
// replay, unless the config was overridden.
func writeExpectation(w io.Writer, ce *corpus.Counterexample, res *model.Result, overridden bool) error {
	var line string
	switch err := ce.Check(res); {
	case overridden:
		line = "Recorded run: not compared (the config was overridden)"
	case err != nil:
		line = "Recorded run: DIFFERS: " + err.Error()
	case ce.Expect.FirstOnly:
		v := ce.Expect.Violated[0]
		line = fmt.Sprintf("Recorded run: matches (%s first false after %s)", v.Invariant, v.Event)
	default:
		line = fmt.Sprintf("Recorded run: matches (%s, %s)", ce.Expect.RunVerdict, ce.Expect.ClaimVerdict)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// writeResult prints a run for people.
func writeResult(w io.Writer, res *model.Result) error {
	var b strings.Builder
	cs, err := copperfin.ControlsOf(res.Schedule.Config)
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "run %s  config: %s (controls: %s)\n\n", res.RunID, copperfin.Describe(res.Schedule.Config), cs)
	fmt.Fprintln(&b, "Timeline:")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  seq\tt_ms\tworker\tevent\tord\tstate\toutcome\tfault\tattempt\tckpt\tretry_left\tdeadline_left_ms\tdetail")
	for _, e := range res.Timeline {
		ord := ""
		if e.Ordinal > 0 {
			ord = fmt.Sprint(e.Ordinal)
		}
		fmt.Fprintf(tw, "  %d\t%d\t%d\t%s\t%s\t%s -> %s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", e.Seq, e.At, e.Worker, e.Event, ord,
			e.StateBefore, e.StateAfter, e.Outcome, e.FaultID, e.Attempt, e.CheckpointSeq, e.RetryRemaining, e.DeadlineRemainingMs, e.Detail)
	}
	tw.Flush()
	fmt.Fprintln(&b, "\nFaults:")
	if len(res.Faults) == 0 {
		fmt.Fprintln(&b, "  (none scheduled)")
	}
	for _, f := range res.Faults {
		status := "NOT REACHED: its event never occurred; this fault was not tested"
		if f.Reached && f.Fired == 0 {
			status = "reached, did not fire: its disturbance had nothing to act on; not tested"
		} else if f.Reached {
			status = fmt.Sprintf("reached, fired %d (seq %d), oracle %s", f.Fired, f.FiredAt, f.Oracle)
			if len(f.Observed) > 0 {
				status += ", observed by " + strings.Join(f.Observed, ", ")
			}
			if f.Detected {
				status += ", detected by the system"
			}
		}
		fmt.Fprintf(&b, "  %s %s at %s: %s\n", f.ID, f.Kind, f.Placement(), status)
	}
	fmt.Fprintln(&b, "\nInvariants:")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, i := range res.Invariants {
		if i.Held {
			fmt.Fprintf(tw, "  %s\theld\t(oracle %s)\n", i.Name, i.Oracle)
			continue
		}
		by := ""
		if i.FaultID != "" {
			by = " reached by " + i.FaultID
		}
		fmt.Fprintf(tw, "  %s\tVIOLATED\tfirst false after seq %d (%s)%s: %s\n", i.Name, i.FirstSeq, i.Event, by, i.Detail)
	}
	tw.Flush()
	t := res.Terms
	fmt.Fprintln(&b, "\nOutcome terms:")
	fmt.Fprintf(&b, "  detected %s, contained %s, recovered %s, verified %s, useful_service %s\n",
		yes(t.Detected), yes(t.Contained), yes(t.Recovered), yes(t.Verified), yes(t.UsefulService))
	fmt.Fprintf(&b, "  unsafe_escape %s, duplicate_effect %s, unverifiable_release %s, service_loss %s, effects %d\n",
		yes(t.UnsafeEscape), yes(t.DuplicateEffect), yes(t.UnverifiableRelease), yes(t.ServiceLoss), t.Effects)
	for _, c := range res.Claims {
		fmt.Fprintf(&b, "\nClaim for %s: %s (%s)\n", c.Task, c.Verdict, c.Reason)
	}
	fmt.Fprintf(&b, "Claim verdict: %s\nRun verdict: %s\n", res.Verdict, res.RunVerdict)
	fmt.Fprintf(&b, "\nSummary:\n%s\n", indent(res.Record().Summary))
	_, err = io.WriteString(w, b.String())
	return err
}
