package inventory_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/schedulev1"
)

func harness() *model.Harness {
	return model.NewHarness(inventory.Fixture(), inventory.HarnessOptions())
}

func mustRun(t *testing.T, h *model.Harness, f model.Factory, s *model.Schedule) *model.Result {
	t.Helper()
	res, err := h.Run(f, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func violated(res *model.Result) []string {
	out := []string{}
	for _, i := range res.Invariants {
		if !i.Held {
			out = append(out, i.Invariant)
		}
	}
	return out
}

// probed returns a harness whose options add a probe that never fails
// and records, at each claim, the warehouse ledger's reservations and
// confirms, read through the View as the oracle reads them.
func probed() (*model.Harness, *[2]int) {
	var ledger [2]int
	opts := inventory.HarnessOptions()
	opts.Invariants = append(opts.Invariants, model.UserInvariant{Name: "ledger_probe", Check: func(v model.View) string {
		if v.Event() == model.EvClaim {
			ledger = [2]int{}
			for _, e := range v.Ledger() {
				if e.Tool == inventory.ToolReserve {
					ledger[0]++
				} else if e.Tool == inventory.ToolConfirm {
					ledger[1]++
				}
			}
		}
		return ""
	}})
	return model.NewHarness(inventory.Fixture(), opts), &ledger
}

func loadSchedule(t *testing.T, name string) *model.Schedule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.ParseSchedule(data)
	if err != nil {
		t.Fatal(err)
	}
	// a version-1 file stays in version 1's canonical form, and its
	// version-2 form decodes to the same schedule
	if ok, want, err := schedulev1.Canonical(data, s); err != nil || !ok {
		t.Fatalf("%s is not in canonical form (%v):\n%s", name, err, want)
	}
	if again, err := model.ParseSchedule(model.Format(s)); err != nil || !cmp.Equal(again, s) {
		t.Fatalf("%s: the version-2 form decodes to another schedule (%v):\n%s", name, err, model.Format(s))
	}
	return s
}

// TestSearchFindsPlantedBugMinimal: the exhaustive search over the
// catalogue finds the planted bug among single faults (so no pair is
// run), with exactly one failing schedule, the hand-written one: a
// tool_timeout at the confirm. It breaks confirmed_once, and nothing else,
// at the late confirm's commit.
func TestSearchFindsPlantedBugMinimal(t *testing.T) {
	failing, runs, err := search(harness(), inventory.Factory(inventory.Defended, inventory.Planted), 2)
	if err != nil {
		t.Fatal(err)
	}
	if runs != 114 || len(failing) != 1 {
		t.Fatalf("%d runs, %d failing schedules; want 114 single-fault runs and 1 failing", runs, len(failing))
	}
	want := loadSchedule(t, "planted-bug.json")
	if diff := cmp.Diff(want.Faults, failing[0].Faults); diff != "" {
		t.Fatalf("minimal schedule (-hand-written +found):\n%s", diff)
	}
	h, ledger := probed()
	res := mustRun(t, h, inventory.Factory(inventory.Defended, inventory.Planted), want)
	// the second confirm is under a key the record does not name
	if diff := cmp.Diff([]string{model.InvRecordedAgreesWithLedger, inventory.InvConfirmedOnce}, violated(res)); diff != "" {
		t.Fatalf("violated (-want +got):\n%s", diff)
	}
	inv, _ := res.Invariant(inventory.InvConfirmedOnce)
	if inv.FirstSeq != 17 || inv.Event != model.EvToolCommit || inv.FaultID != "f1" || inv.Detail != "cart-7 confirmed 2 times" {
		t.Fatalf("confirmed_once: %+v", inv)
	}
	if *ledger != [2]int{1, 2} {
		t.Fatalf("ledger: %v reservations and confirms, want [1 2]", *ledger)
	}
	if res.RunVerdict != model.Unrecoverable || res.Verdict != model.ClaimUnsafe || !slices.Equal(res.Faults[0].Observed, []string{model.InvRecordedAgreesWithLedger, inventory.InvConfirmedOnce}) {
		t.Fatalf("verdicts %s %s, fault %+v", res.RunVerdict, res.Verdict, res.Faults[0])
	}
}

// TestFixedPassesSearch: the fixed agent holds every invariant in scope
// under every single fault and every ordered pair of two different faults
// the search draws from the catalogue (114 + 114*113 runs), and under the
// hand-written schedule it recovers with one reservation and one confirm.
func TestFixedPassesSearch(t *testing.T) {
	failing, runs, err := search(harness(), inventory.Factory(inventory.Defended, inventory.Fixed), 2)
	if err != nil {
		t.Fatal(err)
	}
	if runs != 114+114*113 || len(failing) != 0 {
		t.Fatalf("%d runs, %d failing (first: %s)", runs, len(failing), firstFormat(failing))
	}
	h, ledger := probed()
	res := mustRun(t, h, inventory.Factory(inventory.Defended, inventory.Fixed), loadSchedule(t, "planted-bug.json"))
	if !res.Held() || res.RunVerdict != model.Recovered || res.Faults[0].Fired != 1 {
		t.Fatalf("held %t verdict %s fault %+v", res.Held(), res.RunVerdict, res.Faults[0])
	}
	if *ledger != [2]int{1, 1} {
		t.Fatalf("ledger: %v reservations and confirms, want [1 1]", *ledger)
	}
}

func firstFormat(s []*model.Schedule) string {
	if len(s) == 0 {
		return "none"
	}
	return string(model.Format(s[0]))
}

// TestSearchCandidates pins the search space: the catalogue kinds whose
// event the fault-free run crosses, at ordinals 1 to crossings+2.
func TestSearchCandidates(t *testing.T) {
	cands, err := candidates(harness(), inventory.Factory(inventory.Defended, inventory.Fixed))
	if err != nil {
		t.Fatal(err)
	}
	perKind := map[string]int{}
	for _, c := range cands {
		perKind[c.Kind]++
	}
	want := map[string]int{
		"subject_swap": 3, "revoked_capability": 3, "concurrent_version_change": 3,
		"duplicate_tool_call": 3, "model_refusal": 3, "tenant_swap": 3, "purpose_swap": 3,
		"stale_context": 3, "omitted_context": 3, "malformed_tool_call": 3,
		// tool.commit: 2 crossings
		"timeout_after_commit": 4, "partial_success_response": 4, "break_trace_lineage": 4, "sandbox_denial": 4,
		"timeout_before_send": 4, "reject_before_commit": 4, "malformed_response": 4, "output_drift": 4,
		"rate_limit": 4, "tool_timeout": 4, "budget_exhaustion": 4, "false_success": 4,
		// checkpoint.write: 4 crossings
		"checkpoint_rollback": 6, "worker_restart": 6, "missing_checkpoint": 6, "stale_checkpoint": 6,
		"future_version_checkpoint": 6, "corrupt_checkpoint": 6,
	}
	if diff := cmp.Diff(want, perKind); diff != "" {
		t.Fatalf("candidates per kind (-want +got):\n%s", diff)
	}
}

// TestControlCounterfactuals: for each control, a single fault that the
// agent contains with the control and that breaks the named invariants
// without it (exact violated set and ledger counts on both sides).
func TestControlCounterfactuals(t *testing.T) {
	noKeys := inventory.Defended.Without(inventory.StableKeys)
	cases := []struct {
		control                   inventory.Control
		with, without             inventory.Controls
		kind                      string
		event                     model.EventName
		ordinal                   int
		broken                    []string
		withLedger, withoutLedger [2]int
	}{
		// a late commit of the first reserve and a retry under a fresh key:
		// two holds, of which the record names one
		{inventory.StableKeys, inventory.Defended, noKeys, "tool_timeout", model.EvToolCommit, 1,
			[]string{model.InvRecordedAgreesWithLedger, inventory.InvNoOversell}, [2]int{1, 1}, [2]int{2, 1}},
		// without stable keys, only the lookup stops the blind retry
		{inventory.HoldLookup, noKeys, noKeys.Without(inventory.HoldLookup), "timeout_after_commit", model.EvToolCommit, 1,
			[]string{model.InvRecordedAgreesWithLedger, inventory.InvNoOversell}, [2]int{1, 1}, [2]int{2, 1}},
		// a denied reserve taken as done: a confirm with nothing held, and
		// a record naming a hold the warehouse never made
		{inventory.TypedOutcomes, inventory.Defended, inventory.Defended.Without(inventory.TypedOutcomes), "sandbox_denial", model.EvToolCommit, 1,
			[]string{model.InvNoInventedProgress, inventory.InvConfirmHasHold}, [2]int{0, 0}, [2]int{0, 1}},
		// a lagging replica serves the reserving checkpoint after the hold
		{inventory.CheckpointCheck, inventory.Defended, inventory.Defended.Without(inventory.CheckpointCheck), "stale_checkpoint", model.EvCheckpointWrite, 2,
			[]string{model.InvResumeFromCheckpoint}, [2]int{1, 0}, [2]int{1, 1}},
		// the proposal names the other SKU of the warehouse
		{inventory.BindRequest, inventory.Defended, inventory.Defended.Without(inventory.BindRequest), "subject_swap", model.EvProposal, 1,
			[]string{model.InvRightSubject}, [2]int{0, 0}, [2]int{1, 1}},
		// the grant is revoked right after approval
		{inventory.RecheckAuthority, inventory.Defended, inventory.Defended.Without(inventory.RecheckAuthority), "revoked_capability", model.EvAuthorityGrant, 1,
			[]string{inventory.InvLiveAuthority}, [2]int{0, 0}, [2]int{1, 1}},
	}
	h, ledger := probed()
	for _, c := range cases {
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: string(c.control), Config: model.Config{},
			Faults: []model.FaultEntry{{Event: c.event, Ordinal: c.ordinal, Kind: c.kind}}}
		with := mustRun(t, h, inventory.Factory(c.with, inventory.Fixed), s)
		if *ledger != c.withLedger {
			t.Errorf("%s on, %s: ledger %v, want %v", c.control, c.kind, *ledger, c.withLedger)
		}
		if !with.Held() || with.Faults[0].Fired != 1 {
			t.Errorf("%s on, %s: violated %v, fault %+v", c.control, c.kind, violated(with), with.Faults[0])
		}
		without := mustRun(t, h, inventory.Factory(c.without, inventory.Fixed), s)
		if diff := cmp.Diff(c.broken, violated(without)); diff != "" {
			t.Errorf("%s off, %s: violated (-want +got):\n%s", c.control, c.kind, diff)
		}
		for _, name := range c.broken {
			if inv, _ := without.Invariant(name); inv.FaultID != "f1" {
				t.Errorf("%s off: %s not attributed to the fault: %+v", c.control, name, inv)
			}
		}
		if *ledger != c.withoutLedger {
			t.Errorf("%s off, %s: ledger %v, want %v", c.control, c.kind, *ledger, c.withoutLedger)
		}
	}
}

func TestParseErrors(t *testing.T) {
	if _, err := inventory.NewFactory(inventory.Defended, "buggy"); err == nil || err.Error() != `inventory: unknown variant "buggy" (valid: fixed, planted)` {
		t.Errorf("NewFactory: %v", err)
	}
	if _, err := inventory.ParseControls([]string{"stable_keys", "idempotency"}); err == nil ||
		err.Error() != `inventory: unknown control "idempotency" (valid: stable_keys, hold_lookup, typed_outcomes, checkpoint_check, bind_request, recheck_authority)` {
		t.Errorf("ParseControls: %v", err)
	}
	if _, err := inventory.ParseControls([]string{"stable_keys", "stable_keys"}); err == nil || err.Error() != `inventory: control "stable_keys" listed twice` {
		t.Errorf("ParseControls: %v", err)
	}
	cs, err := inventory.ParseControls([]string{"stable_keys", "hold_lookup", "typed_outcomes", "checkpoint_check", "bind_request", "recheck_authority"})
	if err != nil || cs != inventory.Defended || cs.String() != "stable_keys,hold_lookup,typed_outcomes,checkpoint_check,bind_request,recheck_authority" {
		t.Errorf("ParseControls: %v %v %s", cs, err, cs)
	}
	if inventory.Controls(0).String() != "none" {
		t.Errorf("no control: %s", inventory.Controls(0))
	}
}
