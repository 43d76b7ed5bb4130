package billing_test

import (
	"strconv"
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/properties"
)

// TestSwarmClockAdvancesSpanTheirRange: a swarm draw takes a clock
// advance's length evenly from 1 ms to twice the agent's farthest expiry
// (the grant's 60,000 ms, so 120,000 ms), not mostly short, as rapid's
// own integer draw would have it (seven in ten within the first eighth):
// over the first 2,000 draws of the agent's generator, 301 entries are
// clock advances, all within the range, 260 of them beyond its first
// eighth (15,000 ms) and 144 beyond its half.
func TestSwarmClockAdvancesSpanTheirRange(t *testing.T) {
	g, err := properties.Generator(billing.Definition(), explore(0, properties.WithSwarm())...)
	if err != nil {
		t.Fatal(err)
	}
	clocks, beyondEighth, beyondHalf := 0, 0, 0
	for i := range 2000 {
		for _, f := range g.Example(i).Faults {
			if f.Kind != "clock_advance" {
				continue
			}
			ms, err := strconv.Atoi(f.Target)
			if err != nil || ms < 1 || ms > 120000 {
				t.Fatalf("draw %d: a clock advance of %q ms", i, f.Target)
			}
			clocks++
			if ms > 15000 {
				beyondEighth++
			}
			if ms > 60000 {
				beyondHalf++
			}
		}
	}
	if clocks != 301 || beyondEighth != 260 || beyondHalf != 144 {
		t.Errorf("%d clock advances, %d beyond 15,000 ms, %d beyond 60,000 ms", clocks, beyondEighth, beyondHalf)
	}
}
