// Command defaultsearch prints, for a number of seeds, what the default
// search (properties.Explore with no mode, count or budget option: the walk
// of every schedule of <= 2 faults within its budget, then go test's 100
// random checks) finds, in three parts:
//
//   - every mutant of the reference system on copperfin-batch under the
//     typed profile, scoped as scripts/mutantstable explores it (a seed
//     counts when its counterexample does not reproduce without the
//     mutant);
//   - the billing agent's lost-checkpoint bug (two faults), over
//     billing.Kinds and lagging_readback, and, for comparison, the random
//     phase alone (properties.WithMaxSchedules(0));
//   - the typed profile without each of the paper's seven controls, on
//     the paper fixture (a seed counts when its counterexample has one
//     fault).
//
// Each row gives found/seeds and the median walk index (found by the
// walk) or checks to failure (found by the random phase).
//
// -random-only drops the walk (properties.WithMaxSchedules(0)), -swarm
// adds swarm draws (properties.WithSwarm) and -guided coverage-guided
// draws (properties.WithGuide, seeded with the seed, no prior coverage;
// they draw without a swarm), for comparing the random phase's draws
// (docs/exploration.md, "Guided draws as the default?", "Swarm draws").
//
// Usage (scripts/default-search-table.sh runs it):
//
//	go run ./scripts/defaultsearch [-seeds 20] [-only PREFIX] [-random-only] [-swarm] [-guided]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/scripts/internal/mutants"
)

func main() {
	seeds := flag.Int("seeds", 20, "seeds per row (1, 2, ...)")
	only := flag.String("only", "", "only the rows whose name starts with this")
	randomOnly := flag.Bool("random-only", false, "no walk: the random phase alone (WithMaxSchedules(0))")
	swarm := flag.Bool("swarm", false, "swarm draws (WithSwarm())")
	guided := flag.Bool("guided", false, "coverage-guided draws (WithGuide(seed, nil))")
	testing.Init() // rapid consults testing.Short, which needs the test flags parsed
	flag.Parse()
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		fmt.Fprintln(os.Stderr, "defaultsearch:", err)
		os.Exit(2)
	}
	fmt.Printf("| row | explored under | found | by the walk | median walk index | median checks to failure |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rows() {
		if !strings.HasPrefix(r.name, *only) {
			continue
		}
		if *randomOnly {
			r.opts = append(r.opts, properties.WithMaxSchedules(0))
		}
		if *swarm {
			r.opts = append(r.opts, properties.WithSwarm())
		}
		line, err := measure(r, *seeds, *guided)
		if err != nil {
			fmt.Fprintln(os.Stderr, "defaultsearch:", r.name+":", err)
			os.Exit(2)
		}
		fmt.Println(line)
	}
	fmt.Printf("\n%d seeds (1 to %d) a row, default settings: the walk of <= 2 faults (budget 20,000 schedules), then 100 random checks.\n", *seeds, *seeds)
}

// row is one line of the table: the definition and options explored, and
// whether a counterexample counts.
type row struct {
	name, under string
	def         *model.Definition
	opts        []properties.Option
	counts      func(*properties.Counterexample) bool
}

func rows() []row {
	var out []row
	batch := copperfin.CopperfinBatch()
	for _, mi := range copperfin.Mutants() {
		cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
		under, cfg := "typed", copperfin.ConfigOfProfile(copperfin.ProfileTyped)
		fx := batch
		var kinds []string
		if len(mi.MaskedBy) > 0 { // as scripts/mutantstable scopes it
			var names []string
			for _, c := range mi.MaskedBy {
				cs = cs.Without(c)
				names = append(names, string(c))
			}
			cfg = copperfin.ConfigOfControls(cs)
			for _, sp := range append(model.Catalogue(), model.WorldEvents()...) {
				if _, m := copperfin.Defences(sp.Kind); m == string(mi.Name) {
					kinds = append(kinds, sp.Kind)
				}
			}
			under = "typed without " + strings.Join(names, ", ") + " (kinds " + strings.Join(kinds, ", ") + ")"
			if mutants.CleanFails(cfg, fx) {
				fx = copperfin.Copperfin()
				under += "; fixture " + fx.Name
			}
		}
		cfg = copperfin.WithMutant(cfg, string(mi.Name))
		opts := []properties.Option{properties.WithConfig(cfg), properties.WithFixture(fx.Name)}
		if kinds != nil {
			opts = append(opts, properties.WithKinds(kinds...))
		}
		mfx := fx
		out = append(out, row{"mutant " + string(mi.Name), under, copperfin.Definition(), opts,
			func(cx *properties.Counterexample) bool { return !mutants.ReproducesWithout(cx, mfx) }})
	}
	kinds := append(append([]string{}, billing.Kinds...), "lagging_readback")
	bopts := []properties.Option{properties.WithConfig(billing.Config(billing.ChargeAfterLostCheckpoint)), properties.WithKinds(kinds...)}
	bug := func(cx *properties.Counterexample) bool { return cx.Invariant == billing.InvChargedOnce }
	out = append(out, row{"billing charge_after_lost_checkpoint", "billing.Kinds and lagging_readback", billing.Definition(), bopts, bug},
		row{"billing charge_after_lost_checkpoint, random phase alone", "the same; properties.WithMaxSchedules(0)", billing.Definition(),
			append(slices.Clone(bopts), properties.WithMaxSchedules(0)), bug})
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	for _, c := range copperfin.PaperControls {
		out = append(out, row{"without " + string(c), "typed without " + string(c) + "; fixture " + copperfin.Copperfin().Name,
			copperfin.Definition(), []properties.Option{properties.WithConfig(copperfin.ConfigOfControls(typed.Without(c)))},
			func(cx *properties.Counterexample) bool { return len(cx.Schedule.Faults) == 1 }})
	}
	return out
}

// measure explores r at seeds 1 to n with default settings.
func measure(r row, n int, guided bool) (string, error) {
	found, byWalk := 0, 0
	var walk, checks []int
	for s := 1; s <= n; s++ {
		opts := append(slices.Clone(r.opts), properties.WithSeed(uint64(s)))
		if guided {
			opts = append(opts, properties.WithGuide(uint64(s), nil))
		}
		rep, err := properties.Explore(r.def, opts...)
		if err != nil {
			return "", fmt.Errorf("seed %d: %w", s, err)
		}
		if !rep.Found || !r.counts(rep.Counterexample) {
			continue
		}
		found++
		if rep.Walk != nil && rep.Walk.Found {
			byWalk++
			walk = append(walk, rep.Walk.Index)
		} else {
			checks = append(checks, rep.ChecksToFailure)
		}
	}
	return fmt.Sprintf("| %s | %s | %d/%d | %d | %s | %s |", r.name, r.under, found, n, byWalk, median(walk), median(checks)), nil
}

// median of the values found ("-" when none).
func median(v []int) string {
	if len(v) == 0 {
		return "-"
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return strconv.Itoa(v[len(v)/2])
	}
	return strconv.FormatFloat(float64(v[len(v)/2-1]+v[len(v)/2])/2, 'f', -1, 64)
}
