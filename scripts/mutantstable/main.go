// Command mutantstable explores every mutant of the reference system over
// a number of seeds and prints a Markdown table: whether exploration kills
// the mutant, the invariant that kills it, the median checks to failure and
// the faults of the minimal counterexample. A seed kills a mutant when its
// counterexample does not reproduce on the same schedule without the
// mutant; a seed whose first counterexample the system without the mutant
// reproduces too is counted as preempted. Random mode only: every check is
// a random draw (swarm draws with -swarm), with no enumeration first.
// With -exhaustive-max K (default 2; 0: none) it then walks every schedule
// of up to k faults, k = 1 to K, in the same scope (properties.WithExhaustive,
// -workers goroutines) until a walk finds a counterexample, and reports the
// k needed, the schedules that walk ran and its seconds (wall clock).
//
// Usage (scripts/mutants-table.sh runs it and splices the table into
// docs/exploration.md):
//
//	go run ./scripts/mutantstable [-seeds 20] [-checks 1000] [-fixture copperfin-batch] [-swarm] [-mutant M] [-exhaustive-max 2] [-workers N]
//
// With -rate N it prints instead, for each mutant, its kills over the
// first N draws of properties.Generator in the same scope (Example(0) to
// Example(N-1), each run with and without the mutant): the rate a check,
// which a median of 20 seeds shows only roughly.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/scripts/internal/mutants"
)

var (
	verbose = flag.Bool("v", false, "print each kill's minimal schedule to standard error")
	rate    = flag.Int("rate", 0, "instead of the table: count the kills over the first N draws of properties.Generator (Example(0) to Example(N-1)) of each mutant's scope")
)

func main() {
	seeds := flag.Int("seeds", 20, "seeds per mutant (1, 2, ...)")
	checks := flag.Int("checks", 1000, "most checks per seed")
	fixture := flag.String("fixture", "copperfin-batch", "workload")
	swarm := flag.Bool("swarm", false, "draw with swarm draws (properties.WithSwarm)")
	only := flag.String("mutant", "", "only this mutant")
	exhMax := flag.Int("exhaustive-max", 2, "largest K of the exhaustive walks (0: no walk)")
	workers := flag.Int("workers", runtime.NumCPU(), "goroutines of the exhaustive walks")
	testing.Init() // rapid consults testing.Short, which needs the test flags parsed
	flag.Parse()
	if err := run(config{*seeds, *checks, *fixture, *swarm, *only, *exhMax, *workers}); err != nil {
		fmt.Fprintln(os.Stderr, "mutantstable:", err)
		os.Exit(2)
	}
}

type row struct {
	killed, preempted int
	ctf               []int
	invariants        map[string]int
	faults            map[int]int
}

type config struct {
	seeds, checks int
	fixture       string
	swarm         bool
	only          string
	exhMax        int
	workers       int
}

func run(c config) error {
	seeds, checks, fixture := c.seeds, c.checks, c.fixture
	fx, err := copperfin.FixtureNamed(fixture)
	if err != nil {
		return err
	}
	for name, v := range map[string]string{"rapid.checks": strconv.Itoa(checks), "rapid.nofailfile": "true"} {
		if err := flag.Set(name, v); err != nil {
			return err
		}
	}
	if *rate > 0 {
		fmt.Printf("| mutant | kills a check | faults a draw, unreached |\n| --- | --- | --- |\n")
	} else {
		fmt.Printf("| mutant | what it gets wrong | explored under | killed | killing invariant | median checks to failure | faults in the minimal counterexample | exhaustive: K, schedules, seconds |\n")
		fmt.Printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	}
	for _, mi := range copperfin.Mutants() {
		if c.only != "" && string(mi.Name) != c.only {
			continue
		}
		cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
		under := "typed"
		cfg := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
		if len(mi.MaskedBy) > 0 {
			var names []string
			for _, c := range mi.MaskedBy {
				cs = cs.Without(c)
				names = append(names, string(c))
			}
			cfg = copperfin.ConfigOfControls(cs)
			under = "typed without " + strings.Join(names, ", ")
		}
		// a configuration that breaks an invariant with no fault on the
		// workload preempts every seed there (resend_unseen: without
		// idempotency the three-task workload refunds its repeated order
		// twice): such a mutant is explored on the paper fixture, and the
		// row says so
		mfx := fx
		if len(mi.MaskedBy) > 0 && fx.Name != copperfin.Copperfin().Name && mutants.CleanFails(cfg, fx) {
			mfx = copperfin.Copperfin()
			under += "; fixture " + mfx.Name + " (on " + fx.Name + " it fails with no fault)"
		}
		cfg = copperfin.WithMutant(cfg, string(mi.Name))
		opts := []properties.Option{properties.WithConfig(cfg), properties.WithFixture(mfx.Name)}
		if len(mi.MaskedBy) > 0 {
			// with controls removed the system has counterexamples of its
			// own: explore the kinds whose spec names this mutant as the
			// defect that lets them through
			var kinds []string
			for _, sp := range append(model.Catalogue(), model.WorldEvents()...) {
				if _, m := copperfin.Defences(sp.Kind); m == string(mi.Name) {
					kinds = append(kinds, sp.Kind)
				}
			}
			opts = append(opts, properties.WithKinds(kinds...))
			if i := strings.Index(under, ";"); i >= 0 {
				under = under[:i] + " (kinds " + strings.Join(kinds, ", ") + ")" + under[i:]
			} else {
				under += " (kinds " + strings.Join(kinds, ", ") + ")"
			}
		}
		exhOpts := append([]properties.Option{}, opts...)
		// random mode: no walk phase before the checks (the default
		// check's), so the columns are the draws' alone
		opts = append(opts, properties.WithMaxSchedules(0))
		if c.swarm {
			opts = append(opts, properties.WithSwarm())
		}
		if *rate > 0 {
			if err := rateOf(mi.Name, opts, mfx, *rate); err != nil {
				return err
			}
			continue
		}
		r := row{invariants: map[string]int{}, faults: map[int]int{}}
		for s := 1; s <= seeds; s++ {
			if err := flag.Set("rapid.seed", strconv.Itoa(s)); err != nil {
				return err
			}
			rep, err := properties.Explore(copperfin.Definition(), opts...)
			if err != nil {
				return fmt.Errorf("%s seed %d: %w", mi.Name, s, err)
			}
			if !rep.Found {
				continue
			}
			cx := rep.Counterexample
			if mutants.ReproducesWithout(cx, mfx) {
				r.preempted++
				continue
			}
			r.killed++
			if *verbose {
				fmt.Fprintf(os.Stderr, "%s seed %d at %d:\n%s", mi.Name, s, rep.ChecksToFailure, faultsText(cx.Schedule))
			}
			r.ctf = append(r.ctf, rep.ChecksToFailure)
			r.invariants[cx.Invariant]++
			r.faults[len(cx.Schedule.Faults)]++
		}
		exh, err := exhaustive(exhOpts, mfx, c)
		if err != nil {
			return fmt.Errorf("%s: %w", mi.Name, err)
		}
		fmt.Printf("| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", mi.Name, mi.Doc, under, killed(r, seeds), top(r.invariants), median(r, checks, seeds), counts(r.faults), exh)
	}
	if *rate > 0 {
		return nil
	}
	draws := "swarm draws"
	if !c.swarm {
		draws = "draws without a swarm"
	}
	fmt.Printf("\n%d seeds (1 to %d) a mutant, at most %d checks each (random mode, %s), fixture %s; exhaustive walks of up to 1 to %d faults, %d workers.\n", seeds, seeds, checks, draws, fixture, c.exhMax, c.workers)
	return nil
}

// exhaustive walks every schedule of up to k faults for k = 1 to
// c.exhMax until one walk finds a counterexample the system without the
// mutant does not show, and says "K, schedules, seconds" of that walk
// ("none up to K" with the last walk's figures otherwise).
func exhaustive(opts []properties.Option, fx model.Fixture, c config) (string, error) {
	if c.exhMax < 1 {
		return "-", nil
	}
	var last string
	for k := 1; k <= c.exhMax; k++ {
		start := time.Now()
		all, err := properties.Explore(copperfin.Definition(), append(opts, properties.WithExhaustive(), properties.WithMaxFaults(k), properties.WithWorkers(c.workers))...)
		if err != nil {
			return "", err
		}
		rep := all.Exhaustive
		secs := time.Since(start).Seconds()
		if rep.Found && !mutants.ReproducesWithout(rep.Counterexample, fx) {
			return fmt.Sprintf("%d, %d, %.2f", k, rep.Schedules, secs), nil
		}
		if rep.Found {
			return fmt.Sprintf("preempted at %d (schedule %d), %.2f", k, rep.Schedules, secs), nil
		}
		last = fmt.Sprintf("none up to %d (%d schedules), %.2f", k, rep.Schedules, secs)
	}
	return last, nil
}

func killed(r row, seeds int) string {
	s := "no"
	if r.killed > 0 {
		s = fmt.Sprintf("yes (%d of %d seeds)", r.killed, seeds)
	}
	if r.preempted > 0 {
		s += fmt.Sprintf("; %d preempted", r.preempted)
	}
	return s
}

func top(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	if len(keys) == 0 {
		return "-"
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = "`" + k + "`"
		if len(keys) > 1 {
			out[i] += fmt.Sprintf(" (%d)", m[k])
		}
	}
	return strings.Join(out, ", ")
}

// median is over all seeds, a seed that did not kill counting as more
// than the check budget.
func median(r row, checks, seeds int) string {
	all := slices.Clone(r.ctf)
	for len(all) < seeds {
		all = append(all, checks+1)
	}
	sort.Ints(all)
	m := all[(seeds-1)/2]
	if seeds%2 == 0 {
		if all[seeds/2] > checks || m > checks {
			if m > checks {
				return fmt.Sprintf("> %d", checks)
			}
		}
		if all[seeds/2] <= checks {
			v := float64(m+all[seeds/2]) / 2
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return fmt.Sprintf("> %d", checks)
	}
	if m > checks {
		return fmt.Sprintf("> %d", checks)
	}
	return strconv.Itoa(m)
}

func counts(m map[int]int) string {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var out []string
	for _, k := range ks {
		out = append(out, fmt.Sprintf("%d (%d seeds)", k, m[k]))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

// faultsText is a schedule's faults in one line.
func faultsText(s *model.Schedule) string {
	parts := make([]string, len(s.Faults))
	for i, f := range s.Faults {
		parts[i] = fmt.Sprintf("%s#%d %s", f.Event, f.Ordinal, f.Kind)
		if f.Target != "" {
			parts[i] += "=" + f.Target
		}
	}
	return "  " + strings.Join(parts, ", ") + "\n"
}

// rateOf prints how many of the first n draws of properties.Generator in
// the mutant's scope kill it (the first invariant the draw's run breaks,
// in the result's order, holds on the same schedule without the mutant),
// the faults a draw and the share of them the runs never reached; with -v
// each killing draw goes to standard error.
func rateOf(name copperfin.Mutant, opts []properties.Option, fx model.Fixture, n int) error {
	gen, err := properties.Generator(copperfin.Definition(), opts...)
	if err != nil {
		return err
	}
	kills, faults, unreached := 0, 0, 0
	for i := range n {
		s := gen.Example(i)
		f, err := copperfin.Configured(s.Config)
		if err != nil {
			return err
		}
		res, err := model.NewHarness(fx, model.Options{}).Run(f, s)
		if err != nil {
			return err
		}
		for _, fr := range res.Faults {
			faults++
			if !fr.Reached {
				unreached++
			}
		}
		for _, ir := range res.Invariants {
			if ir.Held {
				continue
			}
			cx := &properties.Counterexample{Schedule: s, Violation: model.Violation{Invariant: ir.Invariant}}
			if !mutants.ReproducesWithout(cx, fx) {
				kills++
				if *verbose {
					fmt.Fprintf(os.Stderr, "%s draw %d %s:%s", name, i, ir.Invariant, faultsText(s))
				}
			}
			break
		}
	}
	r := "-"
	if kills > 0 {
		r = fmt.Sprintf("1 in %.0f", float64(n)/float64(kills))
	}
	fmt.Printf("| `%s` | %d in %d (%s) | %.2f faults a draw, %.0f%% unreached |\n", name, kills, n, r, float64(faults)/float64(n), 100*float64(unreached)/float64(max(faults, 1)))
	return nil
}
