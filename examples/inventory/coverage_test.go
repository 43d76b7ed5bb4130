package inventory_test

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestCoverageOfTheAgent: the agent's explorations recorded under its own
// name and declarations, as a user records their system: both flushes
// merge into one file that reads back with the agent's own invariant
// (confirmed_once) beside the key that broke it, the boundaries it does
// not have are not applicable, the events it never crosses leave their
// keys never crossed, and the counterexample replays with its own command.
func TestCoverageOfTheAgent(t *testing.T) {
	sys := inventory.Definition()
	sys.NotApplicable, sys.ReplayCommand = []model.Boundary{"memory", "branch_join"}, "FAULTLINE_REPLAY=%s go test -run '^TestReplay$' ./examples/inventory"
	p := filepath.Join(t.TempDir(), "cov.json")
	runs := 0
	for _, v := range []inventory.Variant{inventory.Planted, inventory.Fixed} {
		tr, err := coverage.NewTracker(nil, sys)
		if err != nil {
			t.Fatal(err)
		}
		exploreInto(t, v, tr)
		runs += tr.Data().Runs
		if err := tr.FlushTo(p); err != nil {
			t.Fatal(err)
		}
	}
	d, err := coverage.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Runs != runs || d.Systems["inventory"].Runs != runs || d.Systems["inventory"].Traced != runs {
		t.Fatalf("runs %d, want %d; system %+v", d.Runs, runs, d.Systems["inventory"])
	}
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{Dir: "cx"})
	var cx []string
	for _, k := range r.Keys {
		for _, c := range k.Counterexamples {
			cx = append(cx, k.Key+" "+c.Invariant+": "+c.Schedule.Replay)
		}
	}
	// the planted variant's run broke confirmed_once under the ledger
	// readback's key (its shrunk counterexample, one tool_timeout), with
	// recorded_agrees_with_ledger (the record names one of the two
	// confirms); with swarm draws (before draws went without it) a
	// timeout_after_commit under the effect key broke both first and a
	// run with a restart broke recorded_agrees_with_ledger, now not drawn;
	// the fixed variant holds (seed 6: with do_not_retry drawn too, the
	// 100 checks of seed 7 and of seeds 1 to 5 miss the planted bug; seed
	// 7 found it with server_error and network_error, which seeds 1 to 6
	// missed)
	want := []string{"tool/tool_call/before_commit/isolated/ledger_readback confirmed_once: FAULTLINE_REPLAY=cx/tool_timeout-",
		"tool/tool_call/before_commit/isolated/ledger_readback recorded_agrees_with_ledger: FAULTLINE_REPLAY=cx/tool_timeout-"}
	if len(cx) != len(want) {
		t.Fatalf("counterexamples %q", cx)
	}
	for i, w := range want {
		if !strings.HasPrefix(cx[i], w) || !strings.HasSuffix(cx[i], ".json go test -run '^TestReplay$' ./examples/inventory") {
			t.Fatalf("counterexamples %q", cx)
		}
	}
	// the printed command replays: its target exists and fails with the
	// invariant the report names
	if !testing.Short() && !raceDetector {
		// the package's test binary, which go test built and runs now in
		// the package's folder (go test -c would link it again), run with
		// the printed -run for each file
		bin := os.Args[0]
		for _, k := range r.Keys {
			for _, c := range k.Counterexamples {
				file := filepath.Join(t.TempDir(), c.Schedule.File)
				if err := os.WriteFile(file, c.Schedule.Schedule, 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(bin, "-test.count=1", "-test.run", "^TestReplay$")
				cmd.Env = append(os.Environ(), "FAULTLINE_REPLAY="+file)
				out, err := cmd.CombinedOutput()
				if err == nil || !strings.Contains(string(out), "confirmed_once violated") && !strings.Contains(string(out), c.Invariant+" violated") {
					t.Fatalf("the printed replay command: %v\n%s", err, out)
				}
			}
		}
	}
	keys := func(rows []coverage.KeyRow) (out []string) {
		for _, k := range rows {
			out = append(out, k.Key+" "+k.Status)
		}
		return out
	}
	// it reads no policy and files no receipt (the state_version key of
	// the proposal it crosses, where stale_context enters)
	if got, want := keys(r.NeverCrossed), []string{
		"context/proposal/before_validation/isolated/policy_record never_crossed",
		"context/proposal/before_validation/synchronized/policy_record never_crossed",
		"context/proposal/before_validation/shared/policy_record never_crossed",
		"evidence/proof/after_receipt/isolated/receipt never_crossed",
		"evidence/proof/after_receipt/synchronized/receipt never_crossed",
		"evidence/proof/after_receipt/shared/receipt never_crossed",
	}; !slices.Equal(got, want) {
		t.Errorf("never crossed %q, want %q", got, want)
	}
	if got, want := keys(r.NotApplicable), []string{
		"identity/worker/before_validation/persistent/capability_record not_applicable",
		"context/memory/before_commit/isolated/checkpoint_store not_applicable",
		"state/branch_join/before_commit/isolated/join_record not_applicable",
	}; !slices.Equal(got, want) {
		t.Errorf("not applicable %q, want %q", got, want)
	}
	// the agent's universe: the keys it can reach, visited or not (the
	// exploration draws from explore's kinds, which leave out subject_swap,
	// revoked_capability, sliding_grant_cache, lagging_readback and
	// break_trace_lineage; the audit reaches them); the 7 keys of repeated
	// or persistent faults of the kinds it crosses are in it (a sequential
	// draw puts one on a last fault one check in four: six are visited at
	// seed 6, the two repeated ones after the commit among them, the
	// checkpoint rollback's persistent one not (five at seed 7), and
	// the 6 synchronized or shared keys are left out, not drawn; 25
	// keys (was 24): the proposal's state_version key, where stale_context
	// enters, is in it (never tried), no longer never crossed (6, was 7);
	// 16 visited (15 at seed 7 before do_not_retry was drawn here, 14 at
	// seed 4 before server_error and network_error were), 1 violated (was
	// 3: the effect key's and the restart's runs are not drawn without
	// swarm); 24 keys (was 25): the key of sliding_grant_cache, drawn only
	// when named, is not drawn
	var universe []string
	for _, k := range r.Keys {
		switch k.Status {
		case coverage.StatusHeld, coverage.StatusViolated, coverage.StatusNeverTried, coverage.StatusNotReached:
			universe = append(universe, k.Key+" "+k.Status)
		}
	}
	if want := []string{
		"identity/proposal/before_validation/isolated/capability_record never_tried",
		"identity/authority/before_commit/isolated/capability_record never_tried",
		"context/proposal/before_validation/isolated/ledger_readback never_tried",
		"context/proposal/before_validation/isolated/state_version never_tried",
		"tool/effect/before_commit/isolated/ledger_readback held",
		"tool/effect/after_commit/isolated/ledger_readback held",
		"tool/effect/after_commit/isolated/receipt held",
		"tool/effect/after_commit/repeated/ledger_readback held",
		"tool/effect/after_commit/repeated/receipt held",
		"tool/effect/after_commit/persistent/ledger_readback held",
		"tool/effect/after_commit/persistent/receipt held",
		"tool/sandbox/before_validation/isolated/ledger_readback held",
		"tool/tool_call/before_commit/isolated/ledger_readback violated",
		"tool/tool_call/before_commit/isolated/budget_counter held",
		"tool/tool_call/before_commit/repeated/ledger_readback held",
		"tool/tool_call/before_commit/persistent/budget_counter held",
		"state/state/before_commit/isolated/state_version held",
		"state/state/after_commit/isolated/ledger_readback never_tried",
		"state/state/after_checkpoint/isolated/ledger_readback held",
		"state/state/after_checkpoint/repeated/ledger_readback never_tried",
		"state/state/after_checkpoint/persistent/ledger_readback never_tried",
		"state/worker/after_checkpoint/isolated/checkpoint_store held",
		"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store held",
		"evidence/effect/before_commit/isolated/trace_lineage never_tried",
	}; !slices.Equal(universe, want) {
		t.Errorf("the universe %q, want %q", universe, want)
	}
	if s := r.Summary; s.Applicable != 24 || s.Visited != 16 || s.NeverCrossed != 6 || s.NotApplicable != 3 || s.NotDrawn != 7 || s.Violated != 1 || !s.Crossings {
		t.Errorf("summary %+v", s)
	}
	reachedAll(t, universe)
}

// exploreInto runs the exploration of explore (seed 6, 100 checks) and
// records every run into tr.
func exploreInto(t *testing.T, v inventory.Variant, tr *coverage.Tracker) *properties.Report {
	t.Helper()
	// no fail file: a stored one would make the next run replay it first
	for name, value := range map[string]string{"rapid.seed": "6", "rapid.checks": "100", "rapid.nofailfile": "true"} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, value); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { flag.Set(name, old) })
	}
	// the agent's own definition and a config naming the variant, so the
	// recorded schedules carry it and the printed replay runs it
	def := inventory.Definition()
	rep, err := properties.Explore(def,
		properties.WithConfig(model.Config{System: json.RawMessage(`{"variant":"` + string(v) + `"}`)}),
		properties.WithoutWorldEvents(),
		properties.WithDomains(model.Domain("tool"), model.Domain("state")),
		properties.WithCoverage(tr), properties.WithMaxSchedules(0)) // the random checks alone, whose counts this test pins
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
