package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// swapAtCommit runs the reference system with a tool client that swaps
// the action's subject for O-732 (at its own state version) after every
// check of the workflow, on the way to the provider: only a guard the
// provider evaluates at the commit can see it.
type swapAtCommit struct{ inner model.System }

func (s swapAtCommit) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	env.Tool = swapTool{env.Tool}
	return s.inner.Run(ctx, env, task)
}

type swapTool struct{ model.ToolClient }

func (t swapTool) Commit(ctx context.Context, call model.ToolCall) (model.ToolResult, error) {
	call.Action.Subject, call.Action.ExpectedVersion = "O-732", 17
	return t.ToolClient.Commit(ctx, call)
}

// TestGuardChecksTheBinding: under bind_identity the commit's guard asks
// the provider to find the action bound to its capability, so a refund of
// O-732 under the grant for O-731 is refused at the commit (no effect).
// The liveness guard of pre_effect_authority does not check the binding,
// as the paper's artefact has it (only bind_identity stops a swapped
// subject): without bind_identity the same commit passes and breaks
// right_subject.
func TestGuardChecksTheBinding(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	run := func(cs copperfin.Controls) *model.Result {
		t.Helper()
		s := &model.Schedule{Version: model.ScheduleVersion, Seed: "guard", Config: copperfin.ConfigOfControls(cs), Faults: []model.FaultEntry{}}
		res, err := model.NewHarness(copperfin.Copperfin(), model.Options{}).Run(func() model.System { return swapAtCommit{copperfin.New(cs)} }, s)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(typed)
	if !res.Held() || res.Terms.Effects != 0 || res.Verdict != model.ClaimDeny ||
		res.Claims[0].Reason != "refund not made: precondition_failed: precondition failed: capability CAP-27-731 is bound to O-731, not O-732" {
		t.Errorf("typed: held %t effects %d claim %s %q, want a guard refusal with no effect", res.Held(), res.Terms.Effects, res.Verdict, res.Claims[0].Reason)
	}
	res = run(typed.Without(copperfin.BindIdentity))
	if rs, _ := res.Invariant(model.InvRightSubject); rs.Held || rs.Detail != "effect on O-732 for task refund-O-731 of O-731" {
		t.Errorf("typed without bind_identity: right_subject %+v, want the swapped effect", rs)
	}
}

// TestWorkedExample3DenialListsEveryPrecondition is the paper's worked
// example 3: after the approval (checkpoint 1) the capability expires
// (the clock past 120,000 ms), policy version 13 no longer allows the
// refund and the order moves to version 44. The typed kernel runs every
// check and its denial names all three failed preconditions, each with
// its warning, and no effect is made.
func TestWorkedExample3DenialListsEveryPrecondition(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	at := func(kind, target string) model.FaultEntry {
		return model.FaultEntry{Event: model.EvCheckpointWrite, Ordinal: 1, Kind: kind, Target: target}
	}
	res := run(t, &model.Schedule{Version: model.ScheduleVersion, Seed: "worked example 3", Config: copperfin.ConfigOfControls(typed),
		Faults: []model.FaultEntry{at("clock_advance", "120000"), at("policy_change", ""), at("state_version_change", "")}})
	var warned []string
	for _, e := range res.Timeline.Events() {
		if e.Event == model.EvWarn {
			warned = append(warned, e.Outcome)
		}
	}
	const want = "capability is not live at effect time; context changed: refresh context and request new authority; state version changed since the proposal"
	if len(res.Claims) != 1 || res.Claims[0].Verdict != model.ClaimDeny || res.Claims[0].Reason != want || res.Terms.Effects != 0 || !res.Held() ||
		strings.Join(warned, ",") != "capability_not_live,stale_context,version_conflict" {
		t.Errorf("claims %+v, effects %d, warnings %v, invariants %+v", res.Claims, res.Terms.Effects, warned, res.Invariants)
	}
}
