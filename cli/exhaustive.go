package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// exhaustiveFlags are explore's flags of the exhaustive walk.
type exhaustiveFlags struct {
	on           bool
	workers      int
	maxSchedules int
	ownEvents    bool
	maxSwitches  int
}

// Bounds of the walk's flags (the options' own bounds: a value outside
// them is bad input here rather than the walk's error).
const (
	defaultMaxSchedules = 10_000_000
	maxSchedulesLimit   = 100_000_000
	maxWalkWorkers      = 256
	maxSwitchesLimit    = 4
)

// exhaustiveHelp is what explore's long help says of --exhaustive.
const exhaustiveHelp = `

--exhaustive runs every schedule of up to --max-faults faults and world events
instead of drawing them: the clean run, then every schedule of one fault, then
of two, and so on, each fault at a crossing the run of the faults before it
reached (a retry's second tool.commit only under the faults that make it), at
every event the kind fits (--own-events: its own event only), in a fixed order.
It stops at the first schedule that breaks an invariant, which no smaller
schedule does, confirms it (run again, it and the schedule it extends must
give the same results, else exit 4: not deterministic) and prints it as a
counterexample; otherwise it prints "no
counterexample among N schedules of at most K faults", a bounded proof over the
scope it names, with the schedules run of each size. --workers W runs it on W
goroutines; the result does not depend on W. --max-schedules (default
10000000, at most 100000000) caps the walk: a walk that reaches it is
incomplete and exits 3, as one whose reached faults never fired does. --shard I/N runs shard I of the walk: of the
schedules in enumeration order (the clean run first, the cap counted over the
whole walk), those at positions I, I+N, I+2N, ...; it runs every smaller
schedule too (their runs give the next size's sites) but counts only its own,
and a counterexample's index is its position in the whole walk. The walk's
verdict is the shards' counterexample of the least index, and its counts are
the shards' sums. --checks, --seed, --guided and the coverage flags do
not apply to it (bad input), and it records no coverage, so FAULTLINE_COVERAGE
set is bad input too. With --concurrent N it runs every fault schedule under each
interleaving of at most --max-switches context switches (default 1, at most 4;
0: the default order alone). Its progress line (on a terminal) counts the schedules run of
those known so far, a total that grows as the walk finds larger schedules.`

// add registers the flags on c.
func (f *exhaustiveFlags) add(c *cobra.Command) {
	c.Flags().BoolVar(&f.on, "exhaustive", false, "run every schedule of up to --max-faults faults, smallest first, instead of drawing them")
	c.Flags().IntVar(&f.workers, "workers", 1, "with --exhaustive: goroutines to run the walk on (1 to 256)")
	c.Flags().IntVar(&f.maxSchedules, "max-schedules", defaultMaxSchedules, "with --exhaustive: the most schedules to run (1 to 100000000); without it: the budget of the walk before the random checks (0 to 100000000; default 20000, 0: no walk)")
	c.Flags().BoolVar(&f.ownEvents, "own-events", false, "with --exhaustive: place each kind only at its own event (the designed scope)")
	c.Flags().IntVar(&f.maxSwitches, "max-switches", 1, "with --exhaustive and --concurrent: the most context switches of an interleaving walked (0 to 4)")
}

// options checks the flags against the rest of explore's and returns the
// walk's own options; without --exhaustive, its flags are bad input.
func (f *exhaustiveFlags) options(c *cobra.Command) ([]properties.Option, error) {
	if !f.on {
		for _, name := range []string{"workers", "own-events", "max-switches"} {
			if c.Flags().Changed(name) {
				return nil, BadInput("--%s needs --exhaustive", name)
			}
		}
		if !c.Flags().Changed("max-schedules") {
			return nil, nil
		}
		// the budget of the default exploration's walk phase (0: none)
		if err := CheckCount("max-schedules", f.maxSchedules, 0, maxSchedulesLimit); err != nil {
			return nil, err
		}
		return []properties.Option{properties.WithMaxSchedules(f.maxSchedules)}, nil
	}
	for _, name := range []string{"checks", "seed", "guided", "coverage", "coverage-in", "swarm"} {
		if c.Flags().Changed(name) {
			return nil, BadInput("--%s does not apply to --exhaustive, which draws nothing", name)
		}
	}
	if err := CheckCount("workers", f.workers, 1, maxWalkWorkers); err != nil {
		return nil, err
	}
	if err := CheckCount("max-schedules", f.maxSchedules, 1, maxSchedulesLimit); err != nil {
		return nil, err
	}
	opts := []properties.Option{properties.WithWorkers(f.workers), properties.WithMaxSchedules(f.maxSchedules)}
	if c.Flags().Changed("max-switches") {
		if !c.Flags().Changed("concurrent") {
			return nil, BadInput("--max-switches needs --concurrent: a sequential walk has one interleaving")
		}
		if err := CheckCount("max-switches", f.maxSwitches, 0, maxSwitchesLimit); err != nil {
			return nil, err
		}
		opts = append(opts, properties.WithMaxSwitches(f.maxSwitches))
	}
	if f.ownEvents {
		opts = append(opts, properties.WithOwnEvents())
	}
	return opts, nil
}

// runExhaustive runs the walk of def under opts and writes its report.
func runExhaustive(c *cobra.Command, def *model.Definition, cfg model.Config, opts []properties.Option, asJSON bool, otelDir string) error {
	// the walk's total is not known in advance: the bar's grows with the
	// schedules the walk finds
	bar := progressBar(c.ErrOrStderr(), asJSON, 1, "schedules", "counterexamples")
	if bar != nil {
		opts = append(opts, properties.WithProgress(bar.Update))
	}
	restore := collectLess()
	all, err := properties.Explore(marking(def), append(opts, properties.WithExhaustive())...)
	restore()
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return exploreError(def, err)
	}
	rep := all.Exhaustive
	var trace string
	if otelDir != "" && rep.Found {
		if trace, err = writeTrace(def, otelDir, rep.Counterexample); err != nil {
			return err
		}
	}
	if asJSON {
		err = writeExhaustiveJSON(c.OutOrStdout(), rep, trace)
	} else {
		err = writeExhaustive(c.OutOrStdout(), def, rep, cfg, trace)
	}
	if err != nil {
		return OutputError(err)
	}
	switch {
	case rep.Found:
		return ErrViolation
	case rep.Inconclusive():
		return Inconclusive("%s", rep.Summary())
	}
	return nil
}

func writeExhaustive(w io.Writer, def *model.Definition, rep *properties.ExhaustiveReport, cfg model.Config, trace string) error {
	var b strings.Builder
	world := "off"
	if rep.Scope.World {
		world = "on"
	}
	scope := fmt.Sprintf("scope: %d kinds (%s); world events %s; placement %s; %s, fixture %s",
		len(rep.Scope.Kinds), strings.Join(rep.Scope.Kinds, ", "), world, rep.Scope.Placement, describe(def, cfg), rep.Scope.Fixture)
	if len(rep.Scope.ClockAdvances) > 0 {
		ns := make([]string, len(rep.Scope.ClockAdvances))
		for i, d := range rep.Scope.ClockAdvances {
			ns[i] = strconv.FormatInt(int64(d), 10)
		}
		scope += "; clock advances " + strings.Join(ns, ", ") + " ms"
	}
	if rep.Scope.Interleavings > 0 {
		bound := "at most one context switch"
		switch rep.Scope.MaxSwitches {
		case 0:
			bound = "the default order alone"
		case 1:
		default:
			bound = fmt.Sprintf("at most %d context switches", rep.Scope.MaxSwitches)
		}
		scope += fmt.Sprintf("; %d interleavings (%s)", rep.Scope.Interleavings, bound)
	}
	scope += "; " + rep.Scope.Modifiers() + "\n"
	if rep.Shards > 0 {
		fmt.Fprintf(&b, "shard %d/%d of the exhaustive walk: the counts are the shard's own schedules; the run's verdict is the shards' counterexample of the least index\n", rep.Shard, rep.Shards)
	}
	switch {
	case rep.Found && rep.Shards > 0:
		fmt.Fprintf(&b, "counterexample at schedule %d of the exhaustive walk: no earlier schedule of this shard breaks an invariant\n", rep.Index)
	case rep.Found:
		fmt.Fprintf(&b, "counterexample at schedule %d of the exhaustive walk: no schedule of fewer faults breaks an invariant\n", rep.Index)
	case !rep.Complete:
		fmt.Fprintf(&b, "incomplete: the walk reached its cap of %d schedules before it ran every schedule of at most %d faults; no counterexample among those %d, which proves nothing\n",
			rep.Cap, rep.MaxFaults, rep.Schedules)
	case rep.Reached == 0:
		fmt.Fprintf(&b, "inconclusive: no counterexample among %d schedules of at most %d faults, but no scheduled fault was reached\n", rep.Schedules, rep.MaxFaults)
	case rep.Fired == 0:
		fmt.Fprintf(&b, "inconclusive: no counterexample among %d schedules of at most %d faults; %s\n", rep.Schedules, rep.MaxFaults, rep.UnfiredText())
	default:
		fmt.Fprintf(&b, "no counterexample among %d schedules of at most %d faults\n", rep.Schedules, rep.MaxFaults)
	}
	fmt.Fprintf(&b, "enumerated: %s\n", rep.Sizes())
	b.WriteString(scope)
	fmt.Fprintf(&b, "faults: %d of %d scheduled reached (%d fired), %d not reached\n", rep.Reached, rep.Faults, rep.Fired, rep.Faults-rep.Reached)
	if !rep.Found {
		_, err := io.WriteString(w, b.String())
		return err
	}
	cx := rep.Counterexample
	writeCounterexample(&b, cx, trace)
	_, err := io.WriteString(w, b.String())
	return err
}

// exhaustiveJSON is the --json output of explore --exhaustive.
type exhaustiveJSON struct {
	Exhaustive bool `json:"exhaustive"`
	walkCounts
	Scope properties.ExhaustiveScope `json:"scope"`
	cxJSON
	Otel   string `json:"otel,omitempty"`
	Shard  int    `json:"shard,omitempty"`
	Shards int    `json:"shards,omitempty"`
}

func writeExhaustiveJSON(w io.Writer, rep *properties.ExhaustiveReport, trace string) error {
	j := exhaustiveJSON{Exhaustive: true, walkCounts: countsOf(rep), Scope: rep.Scope, Otel: trace,
		Shard: rep.Shard, Shards: rep.Shards}
	j.cxJSON = cxJSONOf(rep.Counterexample)
	return writeJSON(w, j)
}
