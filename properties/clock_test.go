package properties_test

import (
	"strconv"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// dayFixture is the reference workload with a capability that expires
// after one day of logical time.
func dayFixture() model.Fixture {
	fx := copperfin.Copperfin()
	fx.Name = "copperfin-day"
	for i := range fx.Capabilities {
		fx.Capabilities[i].Expiry = 86_400_000
	}
	return fx
}

// TestClockAdvanceDrawsAreValid: every clock advance the exploration draws
// is one the schedule validator accepts, however far the workload's
// expiry: over a capability that expires after one day, the generator's
// clock advances all validate and stay within model.MaxClockAdvance.
func TestClockAdvanceDrawsAreValid(t *testing.T) {
	if model.MaxClockAdvance != 86_400_000 {
		t.Fatalf("MaxClockAdvance %d", model.MaxClockAdvance)
	}
	gen, err := generator(copperfin.Configured, properties.WithFixtureValue(dayFixture()), properties.WithKinds("clock_advance"))
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	for i := range 300 {
		s := gen.Example(i)
		if err := s.Validate(); err != nil {
			t.Fatalf("example %d does not validate: %v\n%s", i, err, model.Format(s))
		}
		for _, f := range s.Faults {
			n, err := strconv.Atoi(f.Target)
			if f.Kind != "clock_advance" || err != nil || n < 1 || n > int(model.MaxClockAdvance) {
				t.Fatalf("example %d: %+v", i, f)
			}
			longest = max(longest, n)
		}
	}
	// the draws reach past the expiry's half: the bound did not collapse
	// to the default 2000 ms
	if longest <= 43_200_000 {
		t.Errorf("longest drawn advance %d ms", longest)
	}
}

// TestExplorationOverADayLongExpiry: ten seeds of exploration (up to 1000
// checks each) over a capability that expires after one day end without a
// harness error; before the draw was bounded, every one of them drew a
// clock advance of 86,400,001 ms, which the validator refuses.
func TestExplorationOverADayLongExpiry(t *testing.T) {
	if raceDetector {
		t.Skip("explorations in one goroutine, where the race detector has nothing to check; go test ./... runs this test")
	}
	for seed := uint64(1); seed <= 10; seed++ {
		rapidFlags(t, 1000, seed)
		rep, err := explore(copperfin.Configured, properties.WithFixtureValue(dayFixture()), properties.WithName("day-expiry"))
		if err != nil {
			t.Errorf("seed %d: %v", seed, err)
			continue
		}
		if rep.Checks == 0 {
			t.Errorf("seed %d: no check ran", seed)
		}
	}
}
