package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

func runOn(t *testing.T, fx model.Fixture, src string) *model.Result {
	t.Helper()
	s, err := model.ParseSchedule([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return runSchedule(t, fx, s)
}

// TestWorldEventAfterTheLastCheck: a capability revoked right after the
// pre-effect state read (the last check before the commit) is caught by
// the guarded commit under typed, and breaks current_entitlement without
// pre_effect_authority. The world event is recorded as a "world" event
// carrying its fault id, right after the crossing it is attached to.
func TestWorldEventAfterTheLastCheck(t *testing.T) {
	const sched = `{"version":1,"seed":"w","config":{CONFIG},"faults":[{"event":"state.read","ordinal":1,"kind":"capability_revocation"}]}`
	res := run(t, mustParse(t, strings.Replace(sched, "{CONFIG}", `{"profile":"typed"}`, 1)))
	var world, read model.Event
	for i, e := range res.Timeline.Events() {
		if e.Event == model.EvWorld {
			world, read = e, res.Timeline.Events()[i-1]
		}
	}
	if world.FaultID != "f1" || world.Actor != "world" || world.Outcome != "capability_revocation" || read.Event != model.EvStateRead {
		t.Fatalf("world event %+v after %+v", world, read)
	}
	if c := res.Claims[0]; c.Verdict != model.ClaimDeny || !strings.Contains(c.Reason, "precondition_failed") || !res.Held() || res.Terms.Effects != 0 {
		t.Fatalf("typed: claim %+v, effects %d, invariants %+v", c, res.Terms.Effects, res.Invariants)
	}
	res = run(t, mustParse(t, strings.Replace(sched, "{CONFIG}", `{"controls":["bind_identity","refresh_context","state_precondition","idempotency","effect_readback","evidence_gate"]}`, 1)))
	if inv, _ := res.Invariant(model.InvCurrentEntitlement); inv.Held || inv.Detail != "capability revoked at effect time" || inv.FaultID != "f1" {
		t.Fatalf("without pre_effect_authority: %+v", inv)
	}
}

func mustParse(t *testing.T, src string) *model.Schedule {
	t.Helper()
	s, err := model.ParseSchedule([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWorkerCrashAfterCommit: the reply of a committed refund is lost with
// the worker; the baseline's fresh worker refunds again, typed resolves it
// by readback.
func TestWorkerCrashAfterCommit(t *testing.T) {
	const sched = `{"version":1,"seed":"w","config":{"profile":"PROFILE"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"worker_crash"}]}`
	res := run(t, mustParse(t, strings.Replace(sched, "PROFILE", "baseline", 1)))
	if inv, _ := res.Invariant(model.InvEffectAtMostOnce); inv.Held || res.Terms.Effects != 2 {
		t.Fatalf("baseline: %+v effects %d", inv, res.Terms.Effects)
	}
	res = run(t, mustParse(t, strings.Replace(sched, "PROFILE", "typed", 1)))
	if !res.Held() || res.Terms.Effects != 1 || res.RunVerdict != model.Recovered {
		t.Fatalf("typed: %+v effects %d verdict %s", res.Invariants, res.Terms.Effects, res.RunVerdict)
	}
}

// TestRepeatedOrder: on the three-task workload typed refunds O-731 and
// O-732 and denies the second request for O-731; without idempotency the
// second request refunds O-731 again, which breaks effect_at_most_once.
func TestRepeatedOrder(t *testing.T) {
	const sched = `{"version":1,"seed":"batch","config":{CONFIG},"faults":[]}`
	res := runOn(t, copperfin.CopperfinBatch(), strings.Replace(sched, "{CONFIG}", `{"profile":"typed","fixture":"copperfin-batch"}`, 1))
	var claims []string
	for _, c := range res.Claims {
		claims = append(claims, c.Task+":"+string(c.Verdict)+":"+c.Reason)
	}
	want := []string{"refund-O-731:release:refund completed", "refund-O-732:release:refund completed", "refund-O-731-again:deny:refund already made by another request"}
	if !slices.Equal(claims, want) || !res.Held() || res.Terms.Effects != 2 || !res.Terms.Recovered {
		t.Fatalf("claims %v, effects %d, terms %+v", claims, res.Terms.Effects, res.Terms)
	}
	res = runOn(t, copperfin.CopperfinBatch(), strings.Replace(sched, "{CONFIG}", `{"controls":["bind_identity","pre_effect_authority","refresh_context","state_precondition","effect_readback","evidence_gate"],"fixture":"copperfin-batch"}`, 1))
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	if inv.Held || inv.Detail != "second effect for subject O-731: task refund-O-731 already made it" || !res.Terms.DuplicateEffect || res.Terms.Effects != 3 {
		t.Fatalf("without idempotency: %+v, terms %+v", inv, res.Terms)
	}
	// a schedule for one fixture is refused by a harness over another
	if _, err := model.NewHarness(copperfin.Copperfin(), model.Options{}).Run(copperfin.Factory(0), res.Schedule); err == nil ||
		!strings.Contains(err.Error(), `config names fixture "copperfin-batch", the harness runs "copperfin"`) {
		t.Fatalf("fixture mismatch: %v", err)
	}
}

// TestComposedCheckpointDisturbances: a worker restart and a stale replica
// at the same write store the checkpoint once; a stale replica with
// nothing older serves the newest, so the resume is valid.
func TestComposedCheckpointDisturbances(t *testing.T) {
	res := run(t, mustParse(t, `{"version":1,"seed":"c","config":{"profile":"typed"},"faults":[
		{"event":"checkpoint.write","ordinal":3,"kind":"worker_restart"},{"event":"checkpoint.write","ordinal":3,"kind":"stale_checkpoint"}]}`))
	if !res.Held() || res.Claims[0].Verdict != model.ClaimHold || res.Claims[0].Reason != "checkpoint 2 is older than the acknowledged 3" {
		t.Fatalf("claims %+v invariants %+v", res.Claims, res.Invariants)
	}
	res = run(t, mustParse(t, `{"version":1,"seed":"c","config":{"profile":"typed"},"faults":[
		{"event":"checkpoint.write","ordinal":1,"kind":"stale_checkpoint"}]}`))
	if f := res.Faults[0]; f.Fired != 0 || !res.Held() || res.RunVerdict != model.Inconclusive {
		t.Fatalf("a stale replica of the first checkpoint: %+v %s", f, res.RunVerdict)
	}
}

func TestWorldEventTargets(t *testing.T) {
	for target, want := range map[string]string{"0": "between 1 and 86400000", "soon": `target "soon" must be whole logical milliseconds`, "86400001": "between 1"} {
		_, err := model.ParseSchedule([]byte(`{"version":1,"seed":"t","config":{"profile":"typed"},"faults":[{"event":"proposal","ordinal":1,"kind":"clock_advance","target":"` + target + `"}]}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("target %q: %v", target, err)
		}
	}
	if len(model.WorldEvents()) != 5 || len(model.Catalogue()) != 35 {
		t.Fatalf("%d world events, %d catalogue kinds", len(model.WorldEvents()), len(model.Catalogue()))
	}
	for _, w := range model.WorldEvents() {
		if !w.World {
			t.Errorf("%s is not marked a world event", w.Kind)
		}
	}
}
