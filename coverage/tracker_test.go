package coverage_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestScheduledNotReachedIsNotAVisit: a fault scheduled for the fifth
// tool.commit of a run that commits once never reaches its boundary; it is
// counted as scheduled, not reached, and the key stays unvisited in the
// report and fails a gate that requires it.
func TestScheduledNotReachedIsNotAVisit(t *testing.T) {
	s := at(t, "timeout_after_commit", 5, copperfin.ProfileTyped)
	res := runSchedule(t, s)
	if res.Faults[0].Reached || res.Faults[0].Fired != 0 {
		t.Fatalf("the fault at ordinal 5 was reached: %+v", res.Faults[0])
	}
	tr := newTracker(t, nil)
	if err := tr.Record(res); err != nil {
		t.Fatal(err)
	}
	k := mustKey(t, "tool/effect/after_commit/isolated/ledger_readback")
	d := tr.Data()
	e := d.Keys[k]
	if e == nil || e.Visits != 0 || e.NotReached != 1 || e.NotFired != 0 || e.Schedule != nil || d.Runs != 1 || len(d.Keys) != 1 {
		t.Fatalf("runs %d, keys %d, entry %+v", d.Runs, len(d.Keys), e)
	}
	if v, u := tr.KeyCounts(k); v != 0 || u != 1 {
		t.Fatalf("KeyCounts %d, %d", v, u)
	}
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	if r.Summary.Visited != 0 || r.Summary.NotReached != 1 || r.Summary.NeverTried != 27 || r.Summary.NotDrawn != 12 || r.Summary.FaultsNotReached != 1 {
		t.Fatalf("summary %+v", r.Summary)
	}
	row := r.Keys[11]
	if row.Key != k.String() || row.Status != coverage.StatusNotReached ||
		row.Reason != "scheduled 1 time, but its event never occurred (timeout_after_commit)" {
		t.Fatalf("row %+v", row)
	}
	g, err := coverage.Gate(coverage.Default(), d, coverage.GateOptions{Require: []coverage.Requirement{{Line: 1, Values: [5]string{"tool", "effect", "after_commit", "isolated", "ledger_readback"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Passed() || len(g.Missing) != 1 || !strings.Contains(g.Missing[0].Reason, "never occurred") {
		t.Fatalf("gate %+v", g)
	}

	// the same fault at the first commit visits the key
	tr2 := record(t, at(t, "timeout_after_commit", 1, copperfin.ProfileTyped))
	if e := tr2.Data().Keys[k]; e.Visits != 1 || e.NotReached != 0 || e.Schedule == nil {
		t.Fatalf("ordinal 1: %+v", e)
	}
}

// TestReachedNotFired: checkpoint_rollback at the first checkpoint write
// has no older checkpoint to roll back to, so it is reached but does not
// fire: not a visit either.
func TestReachedNotFired(t *testing.T) {
	s := at(t, "checkpoint_rollback", 1, copperfin.ProfileTyped)
	res := runSchedule(t, s)
	if !res.Faults[0].Reached || res.Faults[0].Fired != 0 {
		t.Fatalf("fault %+v", res.Faults[0])
	}
	d := record(t, s).Data()
	e := d.Keys[mustKey(t, "state/state/after_checkpoint/isolated/ledger_readback")]
	if e.Visits != 0 || e.NotReached != 0 || e.NotFired != 1 {
		t.Fatalf("entry %+v", e)
	}
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	// nothing visited: every key of the universe is unvisited, in report
	// order (the 10 under synchronized or shared, and the keys of
	// sliding_grant_cache and ambient_identity_leak, are not drawn)
	row := r.Unvisited[20]
	if len(r.Unvisited) != 28 || r.Summary.Visited != 0 || r.Summary.NotReached != 1 || r.Summary.FaultsNotFired != 1 ||
		row.Key != "state/state/after_checkpoint/isolated/ledger_readback" || row.Status != coverage.StatusNotReached ||
		row.Reason != "reached 1 time, but the disturbance had nothing to act on (checkpoint_rollback)" {
		t.Fatalf("summary %+v, row %+v", r.Summary, row)
	}
}

// TestSharedKeyReason: a key several kinds share names all of them as the
// ones that may have been scheduled; a visit by any of them visits the key.
func TestSharedKeyReason(t *testing.T) {
	d := record(t, at(t, "tool_timeout", 3, copperfin.ProfileTyped)).Data()
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{})
	row := r.Keys[22]
	if row.Key != "tool/tool_call/before_commit/isolated/ledger_readback" || row.Status != coverage.StatusNotReached ||
		row.Reason != "scheduled 1 time, but its event never occurred (timeout_before_send or tool_timeout or network_error)" {
		t.Fatalf("row %+v", row)
	}
	if got := r.Keys[21].Reason; got != "no recorded run scheduled sandbox_denial" {
		t.Fatalf("never tried: %q", got)
	}
	d = record(t, single(t, "timeout_before_send", copperfin.ProfileTyped), single(t, "tool_timeout", copperfin.ProfileTyped)).Data()
	if e := d.Keys[mustKey(t, row.Key)]; e.Visits != 2 || len(d.Keys) != 1 || e.Schedule.Faults[0].Kind != "timeout_before_send" {
		t.Fatalf("two kinds of one key: %+v", e)
	}
}

// TestCounterexampleBesideItsKey: the baseline's timeout after commit
// duplicates the refund; the violation is kept under the fault's key with
// the oracle's seq, event and detail, and the schedule replays it; the
// record that names only the second refund is kept beside it.
func TestCounterexampleBesideItsKey(t *testing.T) {
	s := single(t, "timeout_after_commit", copperfin.ProfileBaseline)
	d := record(t, s, single(t, "timeout_after_commit", copperfin.ProfileTyped)).Data()
	e := d.Keys[mustKey(t, "tool/effect/after_commit/isolated/ledger_readback")]
	if e.Visits != 2 || len(e.Counterexamples) != 2 || e.Counterexamples[1].Invariant != model.InvRecordedAgreesWithLedger ||
		e.Counterexamples[1].FirstSeq != 22 || e.Counterexamples[1].Event != model.EvClaim {
		t.Fatalf("entry %+v", e)
	}
	c := e.Counterexamples[0]
	// seq 19 is the retried tool.commit, the second ledger effect (seq 16 is
	// the first commit, whose reply the fault lost)
	want := coverage.Counterexample{Violation: model.Violation{Invariant: "effect_at_most_once", FirstSeq: 19,
		Event: model.EvToolCommit, Detail: "second ledger effect for task refund-O-731"}, Count: 1, Schedule: s, System: copperfin.Name}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Fatalf("counterexample (-want +got):\n%s", diff)
	}
	// the baseline schedule sorts before the typed one (same faults, profile "baseline" < "typed")
	if string(model.Format(e.Schedule)) != string(model.Format(s)) {
		t.Fatalf("kept schedule:\n%s", model.Format(e.Schedule))
	}
	if again := runSchedule(t, c.Schedule); again.Held() {
		t.Fatal("the counterexample's schedule does not replay the violation")
	}
	r := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{Dir: "cx", Replay: faultlineReplay.Replay})
	row := r.Keys[11]
	if row.Status != coverage.StatusViolated || len(row.Counterexamples) != 2 ||
		row.Counterexamples[0].Schedule.Replay != "faultline replay cx/"+row.Counterexamples[0].Schedule.File ||
		!strings.HasPrefix(row.Counterexamples[0].Schedule.File, "timeout_after_commit-") {
		t.Fatalf("row %+v", row)
	}
}

func TestRecordRejectsBadResults(t *testing.T) {
	tr := newTracker(t, nil)
	good := runSchedule(t, single(t, "stale_policy", copperfin.ProfileTyped))
	noSched := *good
	noSched.Schedule = nil
	unknown := *good
	unknown.Faults = []model.FaultReport{{ID: "f1", Kind: "gremlin", Oracle: "receipt"}}
	lying := *good
	lying.Faults = append([]model.FaultReport(nil), good.Faults...)
	lying.Faults[0].Oracle = model.OracleName("receipt")
	for _, c := range []struct {
		res  *model.Result
		want string
	}{
		{nil, "nil result"},
		{&noSched, "no schedule"},
		{&unknown, `kind "gremlin" is not in the coverage universe`},
		{&lying, `reports oracle "receipt", but its spec names "policy_record"`},
	} {
		if err := tr.Record(c.res); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Record error %v, want %q", err, c.want)
		}
	}
	if d := tr.Data(); d.Runs != 0 || len(d.Keys) != 0 {
		t.Fatalf("rejected results were counted: %+v", d)
	}
	// a result the oracle did not adjudicate counts nothing but itself
	bare := *good
	bare.Invariants = nil
	if err := tr.Record(&bare); err != nil {
		t.Fatal(err)
	}
	if d := tr.Data(); d.Runs != 1 || d.NotAdjudicated != 1 || len(d.Keys) != 0 {
		t.Fatalf("unadjudicated result: %+v", d)
	}
}

// TestConcurrentRecordEqualsSequential records the audit's runs from 8
// goroutines in different orders and gets the sequential record.
func TestConcurrentRecordEqualsSequential(t *testing.T) {
	scheds := auditSchedules(t)
	var results []*model.Result
	for _, s := range scheds {
		results = append(results, runSchedule(t, s))
	}
	seq := newTracker(t, nil)
	for _, r := range results {
		if err := seq.Record(r); err != nil {
			t.Fatal(err)
		}
	}
	par := newTracker(t, nil)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range results {
				if err := par.Record(results[(len(results)-1-i+w*7)%len(results)]); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	want := seq.Data()
	want.Runs *= 8
	want.Systems[copperfin.Name].Runs *= 8
	want.Systems[copperfin.Name].Traced *= 8
	want.Systems[copperfin.Name].Concurrent *= 8
	for _, e := range want.Keys {
		e.Visits *= 8
		e.NotReached *= 8
		e.NotFired *= 8
		for i := range e.Counterexamples {
			e.Counterexamples[i].Count *= 8
		}
	}
	if diff := cmp.Diff(want, par.Data()); diff != "" {
		t.Fatalf("concurrent record differs (-want +got):\n%s", diff)
	}
	// every kind once under each of the three profiles: 3 visits per kind of
	// a key; the counterexamples are the baseline's and fail_closed's
	// (recorded_agrees_with_ledger: it denies refunds the provider made;
	// typed holds everywhere; fail_closed never retries, so span_carry_over
	// has no retry to act on: not fired), one per violating kind and
	// invariant; span_carry_over's correlated run and the timeout before
	// send that makes its retry put 2 visits more (and the baseline's
	// provable_outcome) on trace_lineage's key and 3 on the tool_call
	// ledger_readback key, as on the span_carry_over branch; each kind of
	// read that lags is not reached under the baseline, which makes no such
	// read (no effect readback, no state precondition), and
	// lagging_readback breaks nothing without its defect (resend_unseen);
	// server_error's and network_error's runs after the commit put 3
	// visits on their keys each: the baseline breaks effect_at_most_once
	// and recorded_agrees_with_ledger, fail_closed the latter, typed holds;
	// 189 runs (183 before server_error's and network_error's runs after
	// the commit joined the audit's; 168 before the catalogue's five new
	// kinds under each profile)
	d := seq.Data()
	if d.Runs != 189 || len(d.Keys) != 40 {
		t.Fatalf("runs %d, keys %d", d.Runs, len(d.Keys))
	}
	want2 := map[string]string{
		"identity/proposal/before_validation/isolated/capability_record":    "9 current_entitlement×1 right_subject×3",
		"identity/authority/before_commit/isolated/capability_record":       "3 current_entitlement×1",
		"identity/authority/before_commit/persistent/capability_record":     "2 not reached 1",
		"identity/worker/before_validation/persistent/capability_record":    "3 provable_outcome×1 right_subject×1",
		"context/proposal/before_validation/isolated/ledger_readback":       "9 right_subject×1",
		"context/proposal/before_validation/isolated/state_version":         "9 current_entitlement×3",
		"context/proposal/before_validation/isolated/policy_record":         "3 current_entitlement×1",
		"context/proposal/before_validation/synchronized/policy_record":     "3 current_entitlement×1",
		"context/proposal/before_validation/shared/policy_record":           "3 current_entitlement×1",
		"context/memory/before_commit/isolated/checkpoint_store":            "3",
		"tool/effect/before_commit/isolated/ledger_readback":                "9 effect_at_most_once×1 recorded_agrees_with_ledger×2",
		"tool/effect/after_commit/isolated/ledger_readback":                 "3 effect_at_most_once×1 recorded_agrees_with_ledger×2",
		"tool/effect/after_commit/isolated/receipt":                         "9 effect_at_most_once×2 provable_outcome×1 recorded_agrees_with_ledger×5",
		"tool/effect/after_commit/repeated/ledger_readback":                 "3 effect_at_most_once×1 recorded_agrees_with_ledger×2",
		"tool/effect/after_commit/repeated/receipt":                         "6 effect_at_most_once×2 recorded_agrees_with_ledger×4",
		"tool/effect/after_commit/persistent/ledger_readback":               "3 effect_at_most_once×1 recorded_agrees_with_ledger×1",
		"tool/effect/after_commit/persistent/receipt":                       "6 effect_at_most_once×2 recorded_agrees_with_ledger×2",
		"tool/effect/after_commit/synchronized/ledger_readback":             "3 effect_at_most_once×1 recorded_agrees_with_ledger×2",
		"tool/effect/after_commit/synchronized/receipt":                     "9 effect_at_most_once×2 provable_outcome×1 recorded_agrees_with_ledger×5",
		"tool/effect/after_commit/shared/ledger_readback":                   "3 effect_at_most_once×1 recorded_agrees_with_ledger×2",
		"tool/effect/after_commit/shared/receipt":                           "9 effect_at_most_once×2 provable_outcome×1 recorded_agrees_with_ledger×5",
		"tool/sandbox/before_validation/isolated/ledger_readback":           "3",
		"tool/tool_call/before_commit/isolated/ledger_readback":             "12 effect_at_most_once×2 recorded_agrees_with_ledger×3",
		"tool/tool_call/before_commit/isolated/budget_counter":              "3",
		"tool/tool_call/before_commit/repeated/ledger_readback":             "3 effect_at_most_once×1 recorded_agrees_with_ledger×1",
		"tool/tool_call/before_commit/persistent/budget_counter":            "3",
		"tool/tool_call/before_commit/synchronized/ledger_readback":         "3 effect_at_most_once×1 recorded_agrees_with_ledger×1",
		"tool/tool_call/before_commit/shared/ledger_readback":               "3 effect_at_most_once×1 recorded_agrees_with_ledger×1",
		"state/state/before_commit/isolated/state_version":                  "5 current_entitlement×1 not reached 1",
		"state/state/after_commit/isolated/ledger_readback":                 "2 not reached 1",
		"state/state/after_checkpoint/isolated/ledger_readback":             "3 effect_at_most_once×1 recorded_agrees_with_ledger×2",
		"state/state/after_checkpoint/repeated/ledger_readback":             "3 effect_at_most_once×1 recorded_agrees_with_ledger×2",
		"state/state/after_checkpoint/persistent/ledger_readback":           "3 budget×1 effect_at_most_once×1 recorded_agrees_with_ledger×1",
		"state/worker/after_checkpoint/isolated/checkpoint_store":           "3",
		"state/checkpoint_store/after_checkpoint/isolated/checkpoint_store": "12",
		"state/branch_join/before_commit/isolated/join_record":              "3",
		"evidence/effect/before_commit/isolated/trace_lineage":              "5 provable_outcome×2 not fired 1",
		"evidence/proof/after_receipt/isolated/receipt":                     "3 provable_outcome×1 recorded_agrees_with_ledger×1",
		"evidence/proof/after_receipt/synchronized/receipt":                 "3 provable_outcome×1 recorded_agrees_with_ledger×1",
		"evidence/proof/after_receipt/shared/receipt":                       "3 provable_outcome×1 recorded_agrees_with_ledger×1",
	}
	for k, e := range d.Keys {
		got := itoa(e.Visits)
		for _, c := range e.Counterexamples {
			got += " " + c.Invariant + "×" + itoa(c.Count)
		}
		if e.NotReached != 0 {
			got += " not reached " + itoa(e.NotReached)
		}
		if e.NotFired != 0 {
			got += " not fired " + itoa(e.NotFired)
		}
		if got != want2[k.String()] {
			t.Errorf("%s: %s (not reached %d, not fired %d), want %s", k, got, e.NotReached, e.NotFired, want2[k.String()])
		}
	}
}

// TestWorldEventsHaveNoKey: a world event in a schedule is neither counted
// nor an error; the catalogue fault beside it is, the kept schedule holds
// both, and a violation the world event reached is unattributed.
func TestWorldEventsHaveNoKey(t *testing.T) {
	s, err := model.ParseSchedule([]byte(`{"version": 1, "seed": "world", "config": {"profile": "baseline"}, "faults": [
		{"event": "authority.grant", "ordinal": 1, "kind": "capability_revocation"},
		{"event": "context.policy", "ordinal": 1, "kind": "stale_policy"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := runSchedule(t, s)
	inv, _ := res.Invariant(model.InvCurrentEntitlement)
	if inv.Held || inv.FaultID != "f1" || res.Faults[0].Fired != 1 || res.Faults[1].Fired != 1 {
		t.Fatalf("the revocation did not break current_entitlement: %+v, faults %+v", inv, res.Faults)
	}
	tr := newTracker(t, nil)
	if err := tr.Record(res); err != nil {
		t.Fatal(err)
	}
	d := tr.Data()
	e := d.Keys[mustKey(t, "context/proposal/before_validation/isolated/policy_record")]
	if d.Runs != 1 || len(d.Keys) != 1 || e == nil || e.Visits != 1 || len(e.Schedule.Faults) != 2 {
		t.Fatalf("runs %d, keys %d, entry %+v", d.Runs, len(d.Keys), e)
	}
	var unattributed []string
	for _, c := range d.Unattributed {
		unattributed = append(unattributed, c.Invariant)
	}
	if !slices.Equal(unattributed, []string{model.InvCurrentEntitlement}) || len(e.Counterexamples) != 0 {
		t.Fatalf("unattributed %v, counterexamples under the key %+v", unattributed, e.Counterexamples)
	}
}
