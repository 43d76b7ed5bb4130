package assay_test

import (
	"context"
	"slices"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// swapAtCommit runs the reference system with a tool client that swaps
// the action's subject for O-732 (at its state version) after every check
// of the workflow: only a guard the provider evaluates at the commit can
// see the swap.
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

// TestBindingGuardPairs: the pairs of a swap the workflow's own checks
// cannot see show that the commit guard of bind_identity carries it, and
// pre_effect_authority's liveness guard does not.
func TestBindingGuardPairs(t *testing.T) {
	sys := wrapped("copperfin_swapped_at_commit", func(cs copperfin.Controls, _ string) (model.Factory, error) {
		return func() model.System { return swapAtCommit{copperfin.New(cs)} }, nil
	})
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "guard", Config: copperfin.ConfigOfProfile(copperfin.ProfileTyped), Faults: []model.FaultEntry{}}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	setup := assay.Setup{Fixture: copperfin.Copperfin()}
	bind, err := assay.ContrastOf(sys, setup, s, names(typed), names(typed.Without(copperfin.BindIdentity)))
	if err != nil {
		t.Fatal(err)
	}
	if bind.Class != assay.LeverageShown || !slices.Equal(bind.Off.Violated, []string{model.InvRightSubject}) || !bind.On.Held() ||
		bind.On.Claim != model.ClaimDeny || bind.On.Effects != 0 {
		t.Errorf("bind_identity pair: %s: %s; on %+v", bind.Class, bind.Reason, bind.On)
	}
	auth, err := assay.ContrastOf(sys, setup, s, names(typed), names(typed.Without(copperfin.PreEffectAuthority)))
	if err != nil {
		t.Fatal(err)
	}
	if auth.Class != assay.InvalidGreen || !auth.Off.Held() || auth.Off.Effects != 0 {
		t.Errorf("pre_effect_authority pair: %s: %s", auth.Class, auth.Reason)
	}
}

// TestSubjectSwapPairsNameTheBindingControl: on copperfin-batch a subject
// swap of the second task's proposal asks for a refund of O-731 under the
// grant for O-732. The counterfactual pairs say which control carries it:
// removing bind_identity (whose guard checks the binding) brings the
// transfer back with pre_effect_authority still on, and removing
// pre_effect_authority (liveness and amount, the paper's re-check of
// authority) leaves it contained.
func TestSubjectSwapPairsNameTheBindingControl(t *testing.T) {
	s, err := model.ParseSchedule([]byte(`{"version":1,"seed":"x","config":{"fixture":"copperfin-batch","profile":"typed"},` +
		`"faults":[{"event":"proposal","ordinal":2,"kind":"subject_swap"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	setup := assay.Setup{Fixture: copperfin.CopperfinBatch()}
	bind, err := assay.ContrastOf(refDef(), setup, s, names(typed), names(typed.Without(copperfin.BindIdentity)))
	if err != nil {
		t.Fatal(err)
	}
	if bind.Class != assay.LeverageShown || !slices.Equal(bind.Off.Violated, []string{model.InvRightSubject, model.InvEffectAtMostOnce}) ||
		bind.Off.Controls != "pre_effect_authority,refresh_context,state_precondition,idempotency,effect_readback,evidence_gate" ||
		bind.On.Claim != model.ClaimDeny || bind.On.RunVerdict != model.ContainedFailure {
		t.Errorf("bind_identity pair: %+v", bind)
	}
	auth, err := assay.ContrastOf(refDef(), setup, s, names(typed), names(typed.Without(copperfin.PreEffectAuthority)))
	if err != nil {
		t.Fatal(err)
	}
	if auth.Class != assay.InvalidGreen || !auth.Off.Held() || auth.Off.Fired != 1 {
		t.Errorf("pre_effect_authority pair: %+v, want an invalid green (another control carries it)", auth)
	}
}
