package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/faultline/faultline/internal/interleaving"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/internal/outflag"
	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/otelrun"
)

func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc
}

// systemOptions are the flags every command that runs a system shares:
// --system (when more than one is registered) and --config.
type systemOptions struct {
	system, config string
}

func (o *systemOptions) add(p *Program, c *cobra.Command, command string) {
	if len(p.Systems) > 1 {
		c.Flags().StringVar(&o.system, "system", "", "the registered system to run: "+strings.Join(p.systemNames(), ", "))
	}
	usage := "the config's system part, a JSON object the system decodes (default {})"
	if command == "replay" {
		usage = "the config's system part, a JSON object the system decodes (replaces the file's)"
	}
	c.Flags().StringVar(&o.config, "config", "", usage)
}

// addSystemFlags registers every system's own flags on c and appends
// their help to its long text.
func addSystemFlags(c *cobra.Command, command string, flags map[string]SystemFlags, order []string) {
	for _, name := range order {
		sf, ok := flags[name]
		if !ok {
			continue
		}
		sf.Add(c, command)
		if h := sf.Help(command); h != "" {
			c.Long += "\n\n" + h
		}
	}
}

// systemPart returns --config as a system part, or nil when not given.
func (o *systemOptions) systemPart(c *cobra.Command) (json.RawMessage, error) {
	if !c.Flags().Changed("config") {
		return nil, nil
	}
	var v map[string]json.RawMessage
	var syn *json.SyntaxError
	if err := json.Unmarshal([]byte(o.config), &v); errors.As(err, &syn) {
		return nil, BadInput("--config: %q is malformed JSON at byte %d: %v", o.config, syn.Offset, err)
	} else if err != nil || v == nil {
		return nil, BadInput("--config: %q is not a JSON object", o.config)
	}
	return json.RawMessage(o.config), nil
}

// Load reads and strictly decodes a schedule or counterexample file (the
// corpus format or an exploration's record, returned too), at most 8 MiB,
// and returns the registered system it is for: the named one, else the
// only one, else the one whose fixtures hold its config's fixture. Its
// config's system part is left to the run, which configures the system
// once. A missing or malformed file is bad input (exit 2), an I/O
// error reading one exit 4 (see InputError); errors name the file.
func (p *Program) Load(path, system string) (*model.Schedule, *corpus.Counterexample, *model.Definition, error) {
	return p.load(path, system, nil)
}

// load is Load with the file's system part replaced by part when part is
// not nil, before the system is chosen: replay --config runs a file whose
// own system part its system refuses now.
func (p *Program) load(path, system string, part json.RawMessage) (*model.Schedule, *corpus.Counterexample, *model.Definition, error) {
	if err := p.check(); err != nil {
		return nil, nil, nil, IOFailure(err)
	}
	data, err := fileio.ReadFile(path, fileio.ScheduleLimit)
	if err != nil {
		return nil, nil, nil, InputError(err)
	}
	s, ce, err := decodeSchedule(data)
	if err != nil {
		return nil, nil, nil, BadInput("%s: %w", path, err)
	}
	if part != nil {
		s.Config.System = part
	}
	def, err := p.systemOf(s, system)
	if err != nil {
		return nil, nil, nil, BadInput("%s: %w", path, err)
	}
	// the fixture first: a file of another system names a fixture this
	// one does not have, which says more than its system part's fields
	if _, err := def.Fixture(s.Config.Fixture); err != nil {
		return nil, nil, nil, BadInput("%s: schedule: config: %w", path, err)
	}
	return s, ce, def, nil
}

// systemOf picks the registered system s is for (see Load).
func (p *Program) systemOf(s *model.Schedule, system string) (*model.Definition, error) {
	if system != "" {
		d, err := p.system(system)
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	if len(p.Systems) == 1 {
		return p.Systems[0], nil
	}
	if s.Config.Fixture == "" {
		// choosing by the system part would configure every system once
		// just to ask: a file naming no fixture names its system instead
		return nil, fmt.Errorf("schedule: config: it names no fixture, so it fits every registered system (%s): name one with --system", strings.Join(p.systemNames(), ", "))
	}
	var fits []*model.Definition
	for _, d := range p.Systems {
		if _, err := d.Fixture(s.Config.Fixture); err == nil {
			fits = append(fits, d)
		}
	}
	switch {
	case len(fits) == 1:
		return fits[0], nil
	case len(fits) == 0:
		return nil, fmt.Errorf("schedule: config: fixture %q is no registered system's (registered: %s)", s.Config.Fixture, strings.Join(p.systemNames(), ", "))
	}
	names := make([]string, len(fits))
	for i, d := range fits {
		names[i] = d.Name
	}
	return nil, fmt.Errorf("schedule: config: it fits the systems %s: name one with --system", strings.Join(names, ", "))
}

// decodeSchedule decodes the contents of a schedule or counterexample
// file: one look at its top-level keys tells them apart, then one strict
// decoding.
func decodeSchedule(data []byte) (*model.Schedule, *corpus.Counterexample, error) {
	ce, err := corpus.ReadCounterexample(data)
	if errors.Is(err, corpus.ErrNeither) {
		s, err := model.ParseSchedule(data)
		if err != nil {
			return nil, nil, err
		}
		return s, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if ce.Schedule == nil {
		return nil, nil, fmt.Errorf("a %s counterexample holds no schedule to replay (its input: %s)", ce.Kind, ce.Input)
	}
	return ce.Schedule, ce, nil
}

// configureError is an error of the system's Configure during a run: a
// config that does not apply, which a command reports as bad input (exit
// 2) naming where the config came from.
type configureError struct{ err error }

func (e *configureError) Error() string { return e.err.Error() }
func (e *configureError) Unwrap() error { return e.err }

// runnable is the one rule of every command that runs a system (replay,
// explore, audit, dossier, matrix, schedule import), applied where each
// picks its system: production code (a Definition with a Clock) is bad
// input (exit 2), since each of its runs needs a testing/synctest bubble
// and only a test has one (synctest.Test takes its *testing.T); outside
// one its waits are real and its logical times wall-clock readings. The
// error names the test's doors: properties.Check and FAULTLINE_REPLAY.
func runnable(def *model.Definition) error {
	if def.Clock == nil {
		return nil
	}
	line := "FAULTLINE_REPLAY=FILE go test -run '^TestX$' ./PKG"
	if def.ReplayCommand != "" {
		line = fmt.Sprintf(def.ReplayCommand, "FILE")
	}
	return BadInput("%s is production code (its Definition has a Clock): each of its runs needs a testing/synctest bubble, which only a test has, so no command of a command line runs it: explore it with properties.Check(t, def) in a test and replay a file with the line a counterexample prints, %s", def.Name, line)
}

// marking returns a copy of def whose Configure marks its errors as
// configureError. Configure runs only in the runs themselves: no command
// calls it to check or describe a config first.
func marking(def *model.Definition) *model.Definition {
	d := *def
	d.Configure = func(system json.RawMessage) (model.Factory, error) {
		f, err := def.Configure(system)
		if err != nil {
			return nil, &configureError{err}
		}
		return f, nil
	}
	return &d
}

// replay runs one schedule as model.Definition.Replay does: its run and
// its clean attribution run, each configured once (two calls to
// Configure, the only ones a replay makes), with Configure's errors
// marked as configureError.
func replay(def *model.Definition, s *model.Schedule) (*model.Result, error) {
	return marking(def).Replay(s)
}

func (p *Program) replayCmd() *cobra.Command {
	var so systemOptions
	var asJSON, twice bool
	var otelFile string
	var ofmt *outflag.Flag
	flags := p.systemFlags()
	c := &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay one schedule or counterexample file against its system",
		Long: `Replay a schedule file, or a counterexample file (the corpus format, or the
record an exploration writes beside a schedule file), against the registered
system it is for (its config's fixture names it; --system picks one when more
than one is registered), and print the timeline, every fault with whether it
was reached and fired, the invariant results, the outcome terms, the claim
and run verdicts, and the run's human summary (frozen contract, schedule,
verdict, failed invariants, budget consumption, narrowest next
verification). --json prints the run's evidence record instead. Both show the
fixture's identifiers (subjects, capabilities, tasks, traces, actors) as
stable references ("ref-" and 8 hex digits), as every file of a run does.

--config JSON replaces the file's system part (the object the system's
Configure decodes); the file's fixture, retry budget, deadline and join policy
stay. A counterexample file's recorded run is compared with the replay unless
the config was overridden.

--twice runs the schedule twice and compares the two runs as every door
(properties.Check, the fuzz targets) compares a rerun: the same events with
the same outcomes in the same order, times aside, and the same verdict. A difference names the
first differing crossing or the verdicts and exits 4 (the system under test
is not deterministic, as explore reports it).

--otel FILE writes the run as an OpenTelemetry trace to FILE, in the
OTLP/JSON file format (see docs/traces.md; Jaeger's UI opens it): each task a
root span, each crossing a child span, each fired fault a span event, each
violated invariant an error status. The file replaces FILE atomically, the
same schedule gives the same bytes, and the exit code stays the replay's
unless the file cannot be written (4).

Exit codes: 0 every invariant held and every scheduled fault was reached and
fired (a schedule without faults is a clean run); 1 an invariant was
violated; 2 bad input (a missing, malformed
or oversized file, an unknown flag value, a config that does not apply,
production code: a Definition with a Clock, which runs only in a test's
testing/synctest bubbles, through properties.Check and FAULTLINE_REPLAY);
3 inconclusive: a scheduled fault was never reached or never fired, or the
run was otherwise inconclusive (the faults are named on stderr); 4 an I/O or
internal error (the output or the --otel file could not be written, or
--twice found the two runs differ).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return BadInput("%v", err)
			}
			asJSON = format == "json"
			if otelFile != "" {
				if err := writableFileDir("--otel", otelFile); err != nil {
					return err
				}
			}
			sys, err := so.systemPart(c)
			if err != nil {
				return err
			}
			// --config replaces the file's system part before it is
			// checked, so a file whose own part the system refuses now
			// still replays under the one given
			s, ce, def, err := p.load(args[0], so.system, sys)
			if err != nil {
				return err
			}
			if err := runnable(def); err != nil {
				return err
			}
			overridden, flagged := sys != nil, false
			sf := flags[def.Name]
			if sf != nil {
				cfg, changed, err := sf.Apply(c, "replay", s.Config)
				if err == ErrDone {
					return nil
				}
				if err != nil {
					return err
				}
				s.Config, overridden, flagged = cfg, overridden || changed, changed
			}
			// a config the system refuses names where it came from
			runErr := func(err error) error {
				var ce *configureError
				switch {
				case !errors.As(err, &ce) || flagged:
					return BadInput("%w", err)
				case sys != nil:
					return BadInput("--config: %w", ce.err)
				}
				return BadInput("%s: schedule: %w", args[0], ce.err)
			}
			// wrapped: a system's panic is exit 1 (see guard)
			res, err := replay(def, s)
			if err != nil {
				return runErr(err)
			}
			if twice {
				again, err := replay(def, s)
				if err != nil {
					return runErr(err)
				}
				// the one comparison of a rerun every door makes
				// (internal/rerun; runnable refused production code)
				if err := rerun.Model(s, res, again); err != nil {
					return IOFailure(fmt.Errorf("replay --twice: two runs of %s: %w", args[0], err))
				}
				fmt.Fprintf(c.ErrOrStderr(), "deterministic: two runs crossed the same events to the same verdict (%d events)\n", res.Timeline.Len())
			}
			if asJSON {
				err = writeJSON(c.OutOrStdout(), res.Record())
			} else {
				header := ""
				if sf != nil {
					if header, err = sf.Header(res.Schedule.Config); err != nil {
						return BadInput("%v", err)
					}
				}
				err = writeResult(c.OutOrStdout(), def, res, header)
				if err == nil && ce != nil && ce.Expect != nil {
					err = writeExpectation(c.OutOrStdout(), ce, res, overridden)
				}
			}
			if err != nil {
				return OutputError(err)
			}
			if otelFile != "" {
				if err := otelrun.WriteFile(otelFile, res); err != nil {
					return IOFailure(fmt.Errorf("--otel: %w", err))
				}
				fmt.Fprintf(c.ErrOrStderr(), "trace: wrote %s (%d spans)\n", otelFile, spanCount(res))
			}
			return runExit(res)
		},
	}
	so.add(p, c, "replay")
	addSystemFlags(c, "replay", flags, p.systemNames())
	ofmt = outflag.Add(c, "the run's evidence record", "text", "json")
	c.Flags().BoolVar(&twice, "twice", false, "run twice and fail (exit 4) unless the two runs cross the same events to the same verdict")
	c.Flags().StringVar(&otelFile, "otel", "", "write the run as an OpenTelemetry trace (OTLP/JSON) to this file")
	return c
}

// spanCount is the number of spans in res's trace: one a crossing and one
// a task.
func spanCount(res *model.Result) int {
	tasks := map[string]bool{}
	for _, e := range res.Timeline.Events() {
		tasks[e.Task] = true
	}
	return res.Timeline.Len() + len(tasks)
}

// runExit maps one run onto the exit-code table through model.Result.Err
// (the one decision): ErrViolation (1) when an invariant was violated, an
// Inconclusive error (3) naming the faults when a scheduled fault was never
// reached or never fired, or one giving the reason a run that reached
// them is still inconclusive (no invariant in scope, a stop condition),
// nil (0) otherwise.
func runExit(res *model.Result) error {
	var re *model.RunError
	if err := res.Err(); !errors.As(err, &re) {
		return err // nil: the run passed
	}
	if re.Code == ExitViolation {
		return ErrViolation
	}
	var un []model.FaultReport // the faults never reached or never fired
	for _, f := range res.Faults {
		if !f.Reached || f.Fired == 0 {
			un = append(un, f)
		}
	}
	if len(un) > 0 {
		// ten named at most: a schedule of thousands of faults gets a
		// short message (its fault reports list them all)
		untested := make([]string, min(len(un), 10))
		for i, f := range un[:len(untested)] {
			what := "was not reached"
			if f.Reached {
				what = "was reached but did not fire"
			}
			untested[i] = fmt.Sprintf("%s %s at %s %s%s", f.ID, f.Kind, f.Placement(), what, toolsNote(res, f))
		}
		if more := len(un) - len(untested); more > 0 {
			untested = append(untested, fmt.Sprintf("and %d more", more))
		}
		return Inconclusive("inconclusive: %s; the run tested less than its schedule", strings.Join(untested, ", "))
	}
	return Inconclusive("inconclusive: %s", re.Reason)
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// writeExpectation compares a counterexample's recorded run with the
// replay (ce.Check, once), unless the config was overridden.
func writeExpectation(w io.Writer, ce *corpus.Counterexample, res *model.Result, overridden bool) error {
	var err error
	if !overridden {
		err = ce.Check(res)
	}
	var line string
	switch {
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
	if !overridden && err == nil {
		line += seqMoves(ce.Expect.Violated, corpus.ExpectOf(res).Violated)
	}
	_, err = fmt.Fprintln(w, line)
	return err
}

// seqMoves names the recorded violations whose first failing seq differs
// in the replay (the same invariant, event and fault, which Check
// compares; the seq is not compared): "; effect_at_most_once's first
// failing seq moved from 21 to 23", or "" when none moved.
func seqMoves(recorded, got []corpus.Violation) string {
	var out string
	for _, r := range recorded {
		for _, g := range got {
			if g.Invariant == r.Invariant && g.Event == r.Event && g.FaultID == r.FaultID && g.FirstSeq != r.FirstSeq && r.FirstSeq > 0 {
				out += fmt.Sprintf("; %s's first failing seq moved from %d to %d", r.Invariant, r.FirstSeq, g.FirstSeq)
			}
		}
	}
	return out
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// describe names cfg in def's terms, or as JSON when def cannot.
func describe(def *model.Definition, cfg model.Config) string {
	s, err := def.DescribeConfig(cfg)
	if err != nil {
		return cfg.String()
	}
	return s
}

// writeResult prints a run for people; header follows the config on the
// first line.
func writeResult(w io.Writer, def *model.Definition, res *model.Result, header string) error {
	// the record's view: the fixture's identifiers redacted, as in every
	// file of the run (model.RunRecord)
	rec := res.Record()
	var b strings.Builder
	fmt.Fprintf(&b, "run %s  config: %s", res.RunID, describe(def, res.Schedule.Config))
	if header != "" {
		b.WriteString(" " + header)
	}
	b.WriteString("\n\n")
	fmt.Fprintln(&b, "Timeline:")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	// a concurrent run names the task of each crossing (a sequential
	// run's table is as it was)
	concurrent := len(res.Interleaving) > 0
	task, taskCol := "", ""
	if concurrent {
		taskCol = "task\t"
	}
	fmt.Fprintln(tw, "  seq\tt_ms\t"+taskCol+"worker\tevent\tord\tstate\toutcome\tfault\tattempt\tckpt\tretry_left\tdeadline_left_ms\tdetail")
	for _, e := range rec.Timeline {
		ord := ""
		if e.Ordinal > 0 {
			ord = fmt.Sprint(e.Ordinal)
		}
		if concurrent {
			task = e.Task + "\t"
		}
		fmt.Fprintf(tw, "  %d\t%d\t%s%d\t%s\t%s\t%s -> %s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", e.Seq, e.At, task, e.Worker, e.Event, ord,
			e.StateBefore, e.StateAfter, e.Outcome, e.FaultID, e.Attempt, e.CheckpointSeq, e.RetryRemaining, e.DeadlineRemainingMs, e.Detail)
	}
	tw.Flush()
	if concurrent {
		sw := "context switches"
		if res.ContextSwitches == 1 {
			sw = "context switch"
		}
		fmt.Fprintf(&b, "\nInterleaving (%d %s; the task picked at each scheduling point, by fixture position): %s\n",
			res.ContextSwitches, sw, interleaving.Format(res.Interleaving))
	}
	fmt.Fprintln(&b, "\nFaults:")
	if len(res.Faults) == 0 {
		fmt.Fprintln(&b, "  (none scheduled)")
	}
	for _, f := range res.Faults {
		status := "NOT REACHED: its event never occurred" + toolsNote(res, f) + "; this fault was not tested"
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
		kind := f.Kind
		if f.Correlation != "" {
			kind += " (" + string(f.Correlation) + ")"
		}
		fmt.Fprintf(&b, "  %s %s at %s: %s\n", f.ID, kind, f.Placement(), status)
	}
	fmt.Fprintln(&b, "\nInvariants:")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, i := range res.Invariants {
		if i.Held {
			fmt.Fprintf(tw, "  %s\theld\t(oracle %s)\n", i.Invariant, i.Oracle)
			continue
		}
		for _, v := range rec.Violations {
			if v.Invariant == i.Invariant {
				i.Detail = v.Detail
			}
		}
		by := ""
		if i.FaultID != "" {
			by = " reached by " + i.FaultID
		}
		fmt.Fprintf(tw, "  %s\tVIOLATED\tfirst false after seq %d (%s)%s: %s\n", i.Invariant, i.FirstSeq, i.Event, by, i.Detail)
	}
	tw.Flush()
	t := res.Terms
	fmt.Fprintln(&b, "\nOutcome terms:")
	fmt.Fprintf(&b, "  detected %s, contained %s, recovered %s, verified %s, useful_service %s\n",
		yes(t.Detected), yes(t.Contained), yes(t.Recovered), yes(t.Verified), yes(t.UsefulService))
	fmt.Fprintf(&b, "  unsafe_escape %s, duplicate_effect %s, unverifiable_release %s, service_loss %s, effects %d\n",
		yes(t.UnsafeEscape), yes(t.DuplicateEffect), yes(t.UnverifiableRelease), yes(t.ServiceLoss), t.Effects)
	for _, c := range rec.Claims {
		fmt.Fprintf(&b, "\nClaim for %s: %s (%s)\n", c.Task, c.Verdict, c.Reason)
	}
	fmt.Fprintf(&b, "Claim verdict: %s\nRun verdict: %s\n", res.Verdict, res.RunVerdict)
	fmt.Fprintf(&b, "\nSummary:\n%s\n", indent(rec.Summary))
	_, err := io.WriteString(w, b.String())
	return err
}

// toolsNote says, for a fault aimed at a tool that its run never reached,
// which tools the run called at the fault's event (a misspelt tool name
// shows beside the right one): " (the run crossed tool.commit calling
// payments.refund)", or that it never crossed the event; "" for a fault
// that names no tool or was reached.
func toolsNote(res *model.Result, f model.FaultReport) string {
	if f.Tool == "" || f.Reached {
		return ""
	}
	var tools []string
	crossed := false
	for _, e := range res.Timeline.Events() {
		if e.Event == f.Event {
			crossed = true
			if e.Tool != "" && !slices.Contains(tools, e.Tool) {
				tools = append(tools, e.Tool)
			}
		}
	}
	switch {
	case len(tools) > 0:
		slices.Sort(tools)
		return fmt.Sprintf(" (the run crossed %s calling %s, not %s)", f.Event, strings.Join(tools, ", "), f.Tool)
	case crossed:
		return fmt.Sprintf(" (the run crossed %s calling no tool)", f.Event)
	}
	return fmt.Sprintf(" (the run never crossed %s)", f.Event)
}
