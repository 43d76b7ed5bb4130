// Command guidecurve measures how many reachable coverage keys exploration
// visits against the number of runs, guided (properties.WithGuide, as
// faultline explore --guided) and unguided (without swarm draws, as the
// guide draws: faultline explore's default), over seeds 1 to N, and prints
// the median curves as a Markdown table: keys visited after selected
// numbers of runs, and the runs until every reachable key was visited. Each
// exploration is the default of faultline explore: the typed profile, the
// one-refund workload, one to three faults and world events a schedule,
// no counterexample (so every run is one check). With -tsv FILE it also
// writes the whole curves: runs, the two medians, then each seed's count.
//
// Usage (scripts/guide-curve.sh runs it and splices the table into the
// README):
//
//	go run ./scripts/guidecurve [-seeds 10] [-runs 200] [-tsv FILE]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

func main() {
	seeds := flag.Int("seeds", 10, "seeds 1 to N, for both rapid and the guide")
	runs := flag.Int("runs", 200, "runs (checks) per exploration")
	tsv := flag.String("tsv", "", "also write the whole curves to this file")
	testing.Init() // rapid consults testing.Short, which needs the test flags parsed
	flag.Parse()
	if err := run(os.Stdout, *seeds, *runs, *tsv); err != nil {
		fmt.Fprintln(os.Stderr, "guidecurve:", err)
		os.Exit(2)
	}
}

// curve explores runs checks with seed and returns the reachable keys
// visited after each run. The System is built once per run, the
// exploration's fault-free survey of the workload first, so building it
// for run i reads the record of the runs before.
func curve(seed uint64, runs int, guided bool) ([]int, error) {
	for name, v := range map[string]string{"rapid.checks": strconv.Itoa(runs), "rapid.seed": strconv.FormatUint(seed, 10), "rapid.nofailfile": "true"} {
		if err := flag.Set(name, v); err != nil {
			return nil, err
		}
	}
	u := coverage.Default()
	tr, err := coverage.NewTracker(u, copperfin.Definition())
	if err != nil {
		return nil, err
	}
	visited := func() int {
		n := 0
		for _, k := range u.Reachable() {
			if v, _ := tr.KeyCounts(k); v > 0 {
				n++
			}
		}
		return n
	}
	var c []int
	sys := func(cfg model.Config) (model.Factory, error) {
		c = append(c, visited())
		return copperfin.Configured(cfg)
	}
	opts := []properties.Option{properties.WithCoverage(tr)}
	if guided {
		opts = append(opts, properties.WithGuide(seed, nil))
	}
	def := copperfin.Definition()
	def.Configure = func(system json.RawMessage) (model.Factory, error) { return sys(model.Config{System: system}) }
	rep, err := properties.Explore(def, opts...)
	if err != nil {
		return nil, err
	}
	if rep.Found || len(c) != runs+1 || tr.Data().Runs != runs {
		return nil, fmt.Errorf("seed %d: a counterexample or a run that was not a check (found %t, %d runs)", seed, rep.Found, tr.Data().Runs)
	}
	return append(c[2:], visited()), nil
}

// median of xs (the mean of the middle two for an even count).
func median(xs []int) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func run(w io.Writer, seeds, runs int, tsv string) error {
	if seeds < 1 || runs < 1 {
		return fmt.Errorf("-seeds and -runs must be at least 1")
	}
	reachable := len(coverage.Default().Reachable())
	curves := map[bool][][]int{}
	all := map[bool][]int{} // runs until every key, runs+1 when never
	for _, guided := range []bool{true, false} {
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			c, err := curve(seed, runs, guided)
			if err != nil {
				return err
			}
			curves[guided] = append(curves[guided], c)
			all[guided] = append(all[guided], slices.Index(c, reachable)+1)
			if all[guided][len(all[guided])-1] == 0 {
				all[guided][len(all[guided])-1] = runs + 1
			}
		}
	}
	at := func(guided bool, i int) []int {
		var xs []int
		for _, c := range curves[guided] {
			xs = append(xs, c[i])
		}
		return xs
	}
	fmt.Fprintf(w, "| runs | keys visited, guided (median of %d seeds) | keys visited, unguided (median) |\n| ---: | ---: | ---: |\n", seeds)
	for _, n := range []int{1, 2, 5, 10, 15, reachable, 25, 2 * reachable, 50, 75, 100, 150, 200} {
		if n <= runs {
			fmt.Fprintf(w, "| %d | %s | %s |\n", n, num(median(at(true, n-1))), num(median(at(false, n-1))))
		}
	}
	runsTo := func(guided bool) string {
		xs := all[guided]
		show := func(x int) string {
			if x > runs {
				return fmt.Sprintf("over %d", runs)
			}
			return strconv.Itoa(x)
		}
		return fmt.Sprintf("%s (%s to %s)", num(median(xs)), show(slices.Min(xs)), show(slices.Max(xs)))
	}
	fmt.Fprintf(w, "| runs until all %d reachable keys were visited: median (fewest to most) | %s | %s |\n", reachable, runsTo(true), runsTo(false))
	if tsv == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("runs\tguided_median\tunguided_median")
	for _, g := range []string{"guided", "unguided"} {
		for s := 1; s <= seeds; s++ {
			fmt.Fprintf(&b, "\t%s_seed%d", g, s)
		}
	}
	b.WriteByte('\n')
	for i := 0; i < runs; i++ {
		fmt.Fprintf(&b, "%d\t%s\t%s", i+1, num(median(at(true, i))), num(median(at(false, i))))
		for _, g := range []bool{true, false} {
			for _, x := range at(g, i) {
				fmt.Fprintf(&b, "\t%d", x)
			}
		}
		b.WriteByte('\n')
	}
	return fileio.WriteAtomic(tsv, []byte(b.String()))
}
