// Command fuzzshrink shrinks the billing agent's lost-checkpoint bug
// (billing.ChargeAfterLostCheckpoint, two faults by properties.Check) as
// fuzzing does, without Go's minimisation: it draws schedules from the
// fuzz decoder's rapid generator (fuzz.Decoder.RapidGenerator over
// billing.Kinds and lagging_readback) at seeds 0, 1, ... until N of them
// fail, shrinks each (fuzz.Decoder.Verify) and counts, per fault count of
// the drawn schedule, the faults removal left and the faults of the
// shrunk schedule (removal, then the walk over fewer faults).
//
// Usage (scripts/fuzz-shrink.sh runs it): go run ./scripts/fuzzshrink [-n 40]
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/fuzz"
)

func main() {
	n := flag.Int("n", 40, "failing draws to shrink")
	flag.Parse()
	kinds := append(append([]string{}, billing.Kinds...), "lagging_readback")
	dec, err := fuzz.NewDecoder(billing.Definition(), fuzz.WithConfig(billing.Config(billing.ChargeAfterLostCheckpoint)), fuzz.WithKinds(kinds...))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzshrink:", err)
		os.Exit(2)
	}
	gen, err := dec.RapidGenerator()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzshrink:", err)
		os.Exit(2)
	}
	steps := regexp.MustCompile(`shrunk to (\d+) of its (\d+) faults \(removal \d+ runs, (\d+) faults? left`)
	type row struct{ drawn, left, shrunk int }
	counts := map[row]int{}
	var order []row
	found, seed := 0, 0
	for ; found < *n; seed++ {
		s := gen.Example(seed)
		if _, err := dec.Check(s); err == nil {
			continue
		}
		found++
		var f *fuzz.Failure
		if err := dec.Verify(s); !errors.As(err, &f) {
			fmt.Fprintln(os.Stderr, "fuzzshrink: seed", seed, err)
			os.Exit(1)
		}
		m := steps.FindStringSubmatch(f.Error())
		if m == nil {
			fmt.Fprintln(os.Stderr, "fuzzshrink: no shrinking line in", f.Error())
			os.Exit(1)
		}
		r := row{atoi(m[2]), atoi(m[3]), atoi(m[1])}
		if counts[r] == 0 {
			order = append(order, r)
		}
		counts[r]++
	}
	fmt.Printf("| drawn faults | left by removal | shrunk faults | failing draws |\n| ---: | ---: | ---: | ---: |\n")
	for d := 1; d <= 16; d++ {
		for _, r := range order {
			if r.drawn == d {
				fmt.Printf("| %d | %d | %d | %d |\n", r.drawn, r.left, r.shrunk, counts[r])
			}
		}
	}
	fmt.Printf("\n%d failing draws among seeds 0 to %d.\n", found, seed-1)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
