package measure_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/internal/checkrun"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// The inventory agent's own tests explore with properties.Explore and have
// no fuzz target; these take its planted bug (a confirm retried under a
// fresh key) through the paths the README gives a user: one run,
// properties.Check and its printed replay command, the fuzz decoder.

// plantedInventory is the inventory agent's config with its planted bug.
var plantedInventory = model.Config{System: json.RawMessage(`{"variant":"planted"}`)}

// inventoryOptions explore the inventory agent under cfg as its own
// exploration does: its tool faults, no world events. (Over its whole scope
// of 20 kinds, 300 checks find the planted bug at 7 of rapid's seeds 1 to
// 10, after 29 to 233 checks: the faults that stop the cart before its
// confirm dilute the draws.)
func inventoryOptions(cfg model.Config, extra ...properties.Option) []properties.Option {
	return append([]properties.Option{properties.WithHarnessOptions(inventory.HarnessOptions()),
		properties.WithConfig(cfg), properties.WithoutWorldEvents(), properties.WithDomains(model.Domain("tool"))}, extra...)
}

// TestInventoryPlanted is the test the replay command of
// TestInventoryPaths names: under FAULTLINE_REPLAY it runs Check on the
// planted agent; otherwise it skips.
func TestInventoryPlanted(t *testing.T) {
	if os.Getenv(properties.ReplayEnv) == "" && checkrun.Tag() == "" {
		t.Skip("runs only under FAULTLINE_REPLAY or as TestInventoryPaths's subprocess")
	}
	var extra []properties.Option
	if checkrun.Tag() != "" {
		extra = append(extra, properties.WithMaxSchedules(0)) // TestInventoryPaths pins the random checks' count
	}
	if dir := os.Getenv("MEASURE_FAILDIR"); dir != "" {
		extra = append(extra, properties.WithFailDir(dir))
	}
	properties.Check(t, inventory.Definition(), inventoryOptions(plantedInventory, extra...)...)
}

// TestInventoryPaths: the planted bug breaks confirmed_once in one run with
// the lost reply at the confirm (the second tool.commit), though not at
// tool_timeout's designed place (the reserve, which the retry recovers);
// Check finds it in one fault and prints the command that replays it
// through TestInventoryPlanted; the fuzz
// decoder over every site of the "ordinals" scope finds it at exactly that site.
func TestInventoryPaths(t *testing.T) {
	def, opts := inventory.Definition(), inventory.HarnessOptions()
	designed, err := model.SingleFault("tool_timeout", plantedInventory)
	if err != nil {
		t.Fatal(err)
	}
	at2 := *designed
	at2.Faults = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 2, Kind: "tool_timeout"}}
	for s, want := range map[*model.Schedule]string{designed: "<nil>",
		&at2: "confirmed_once violated: first false after seq 17 (tool.commit), reached by f1: cart-7 confirmed 2 times"} {
		res, err := def.Run(s, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := errString(res.Err()); got != want {
			t.Errorf("%s: %s, want %s", s.Faults[0].Placement(), got, want)
		}
	}

	if raceDetector || testing.Short() {
		return // the exploration runs in one goroutine, with rapid's full check count
	}
	// seed 2: since do_not_retry is drawn on every fixture, seed 1's 100
	// checks miss the planted bug
	r := checkrun.Run(t, "^TestInventoryPlanted$", "planted", []string{"MEASURE_FAILDIR=" + t.TempDir()}, "-rapid.seed=2", "-rapid.checks=100", "-rapid.nofailfile")
	errs := r.With("properties: ")
	// the cart cart-7 by its reference, as every output of a run shows it
	const cx = "confirmed_once violated: first false after seq 17 (tool.commit), reached by f1 (tool_timeout): ref-51137c23 confirmed 2 times"
	if !r.Failed || len(errs) != 1 || !strings.Contains(errs[0], "(an invariant violated, exit 1): "+cx+"\nminimal schedule (1 fault):\n") {
		t.Fatalf("Check: %q\n%s", errs, r.Output)
	}
	var cmd string
	for _, line := range strings.Split(errs[0], "\n") {
		if c, ok := strings.CutPrefix(line, "replay: "); ok {
			cmd = c
		}
	}
	if !strings.HasSuffix(cmd, " go test -run '^TestInventoryPlanted$' ./examples/measure") {
		t.Fatalf("replay command %q", cmd)
	}
	// properties' TestPrintedReplayCommandReproduces runs such a command,
	// for this agent's bug, as printed; it is not run twice.

	dec, err := fuzz.NewDecoder(def, fuzz.WithConfig(plantedInventory), fuzz.WithScope("ordinals"))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for i, site := range dec.Sites() {
		if _, err := dec.Check(dec.Decode([]byte{byte(i)})); err != nil {
			var v *fuzz.Violation
			if !errors.As(err, &v) || !strings.Contains(v.Error(), "confirmed_once: first false after seq 17") {
				t.Errorf("%s: %v", site, err)
			}
			found = append(found, site.String())
		}
	}
	if len(dec.Sites()) != 65 || strings.Join(found, " ") != "tool_timeout@tool.commit#2" {
		t.Errorf("%d sites; the decoder found %q", len(dec.Sites()), found)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
