package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// shopper is a purchasing agent of its own domain: it has the purchase
// approved, looks the item up through a "search" tool, charges the card through a "charge" tool
// (retrying an unknown outcome under the same request key), checkpoints
// the charge as a completed effect, and claims success. effectName picks
// how its checkpoint names the charge: by request key, by receipt id, or
// by a name of its own (an invented effect).
type shopper struct {
	effectName func(key string, res model.ToolResult) string
}

func (s shopper) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	a := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		IdempotencyKey: t.ID, TraceID: t.Trace}
	grant, err := env.Authority.Approve(ctx, t, a)
	if err != nil {
		return model.Claim{Verdict: model.ClaimDeny, Reason: "not approved"}, nil
	}
	a.CapabilityID, a.CapabilityExpiry = grant.ID, grant.Expiry
	if _, err := env.Tool.Commit(ctx, model.ToolCall{Tool: "search", RequestKey: t.ID + ":search", Action: a}); err != nil {
		return model.Claim{}, err
	}
	key := t.ID + ":charge"
	var res model.ToolResult
	for range 1 + t.RetryBudget {
		var err error
		if res, err = env.Tool.Commit(ctx, model.ToolCall{Tool: "charge", RequestKey: key, Action: a}); err != nil {
			return model.Claim{}, err
		}
		if res.Outcome != model.OutcomeUnknown {
			break
		}
	}
	if res.Outcome != model.OutcomeCommitted || res.Receipt == nil {
		return model.Claim{Verdict: model.ClaimHold, Reason: "charge not proven"}, nil
	}
	name := key
	if s.effectName != nil {
		name = s.effectName(key, res)
	}
	if err := env.Store.Save(ctx, model.Checkpoint{Seq: 1, WorkflowVersion: 1, State: "charged", CompletedEffects: []string{t.ID + ":search", name}}); err != nil {
		return model.Claim{}, err
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "charged " + res.Receipt.ID}, nil
}

func shopFixture() model.Fixture {
	return model.Fixture{Name: "shop",
		Subjects: []model.Subject{{ID: "cart-5", Tenant: "acme", Status: "open", Version: 1}},
		Capabilities: []model.Capability{{ID: "cap-buy", Actor: "agent", Subject: "cart-5", Tenant: "acme", Purpose: "purchase",
			Amount: 30, Expiry: 60_000}},
		Tasks: []model.Task{{ID: "buy-cart-5", Actor: "agent", Subject: "cart-5", Tenant: "acme", Purpose: "purchase", Amount: 30,
			Capability: "cap-buy"}}}
}

func runShopper(t *testing.T, sys shopper, opts model.Options, sched string) *model.Result {
	t.Helper()
	s, err := model.ParseSchedule([]byte(sched))
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(shopFixture(), opts).Run(func() model.System { return sys }, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFaultAimedAtATool: with "tool" set, a fault's ordinal counts only
// that tool's calls (the first charge is the second tool.commit of the
// run); without it, the ordinal counts every tool.commit (the first is
// the search). The timeline names each commit's tool, and the fault
// report and the record name the fault's.
func TestFaultAimedAtATool(t *testing.T) {
	const head = `{"version":1,"seed":"aim","config":{"controls":[]},"faults":[`
	opts := model.Options{Builtin: []string{model.InvBudget}}
	aimed := runShopper(t, shopper{}, opts, head+`{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"charge"}]}`)
	plain := runShopper(t, shopper{}, opts, head+`{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`)

	type step struct {
		seq     int
		event   model.EventName
		tool    string
		ordinal int
		fault   string
		outcome string
	}
	steps := func(res *model.Result) []step {
		var out []step
		for _, e := range res.Timeline.Events() {
			out = append(out, step{e.Seq, e.Event, e.Tool, e.Ordinal, e.FaultID, e.Outcome})
		}
		return out
	}
	// aimed at charge: the search commits, the first charge times out
	// after committing, the retry under the same key replays the receipt
	wantAimed := []step{
		{1, model.EvWorkerStart, "", 1, "", ""},
		{2, model.EvAuthorityGrant, "", 1, "", "ok"},
		{3, model.EvToolCommit, "search", 1, "", "committed"},
		{4, model.EvToolCommit, "charge", 2, "f1", "unknown"},
		{5, model.EvToolCommit, "charge", 3, "", "committed"},
		{6, model.EvCheckpointWrite, "", 1, "", "ok"},
		{7, model.EvClaim, "", 0, "", "release"},
	}
	if got := steps(aimed); !equalSteps(got, wantAimed) {
		t.Fatalf("aimed at charge:\n got %v\nwant %v", got, wantAimed)
	}
	// not aimed: the first tool.commit is the search
	wantPlain := []step{
		{1, model.EvWorkerStart, "", 1, "", ""},
		{2, model.EvAuthorityGrant, "", 1, "", "ok"},
		{3, model.EvToolCommit, "search", 1, "f1", "unknown"},
		{4, model.EvToolCommit, "charge", 2, "", "committed"},
		{5, model.EvCheckpointWrite, "", 1, "", "ok"},
		{6, model.EvClaim, "", 0, "", "release"},
	}
	if got := steps(plain); !equalSteps(got, wantPlain) {
		t.Fatalf("not aimed:\n got %v\nwant %v", got, wantPlain)
	}
	fa, fp := aimed.Faults[0], plain.Faults[0]
	if fa.Tool != "charge" || !fa.Reached || fa.Fired != 1 || fa.FiredAt != 4 || fa.Placement() != "tool.commit(charge)#1" {
		t.Errorf("aimed fault report %+v (%s)", fa, fa.Placement())
	}
	if fp.Tool != "" || !fp.Reached || fp.Fired != 1 || fp.FiredAt != 3 || fp.Placement() != "tool.commit#1" {
		t.Errorf("plain fault report %+v (%s)", fp, fp.Placement())
	}
	if at := aimed.Record().Faults[0].At; at != "tool.commit(charge)#1" {
		t.Errorf("record names the aimed fault at %q", at)
	}
	if at := plain.Record().Faults[0].At; at != "tool.commit#1" {
		t.Errorf("record names the plain fault at %q", at)
	}

	// the second charge exists only once the first timed out: aimed at
	// charge#2 alone, the fault is never reached; composed after the
	// charge#1 timeout, it fires at the retry (seq 5)
	alone := runShopper(t, shopper{}, opts, head+`{"event":"tool.commit","ordinal":2,"kind":"timeout_after_commit","tool":"charge"}]}`)
	if f := alone.Faults[0]; f.Reached || alone.RunVerdict != model.Inconclusive {
		t.Errorf("charge#2 without a retry: %+v %s", f, alone.RunVerdict)
	}
	if next := alone.Record().NextCheck; !strings.Contains(next, "at an occurrence of tool.commit calling tool charge that the run reaches (this run had 1)") {
		t.Errorf("next check %q", next)
	}
	both := runShopper(t, shopper{}, opts, head+`{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"charge"},`+
		`{"event":"tool.commit","ordinal":2,"kind":"timeout_after_commit","tool":"charge"}]}`)
	if f1, f2 := both.Faults[0], both.Faults[1]; f1.FiredAt != 4 || f2.FiredAt != 5 || both.Timeline.Events()[5-1].Tool != "charge" {
		t.Errorf("charge#1 then charge#2: %+v %+v", f1, f2)
	}
	// a tool the system never calls is never reached
	none := runShopper(t, shopper{}, opts, head+`{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"refund"}]}`)
	if f := none.Faults[0]; f.Reached || f.Fired != 0 || none.RunVerdict != model.Inconclusive {
		t.Errorf("a tool never called: %+v %s", f, none.RunVerdict)
	}
	// the fast path counts the same way
	s, _ := model.ParseSchedule([]byte(head + `{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"charge"}]}`))
	terms, err := model.NewHarness(shopFixture(), opts).Terms(func() model.System { return shopper{} }, s)
	if err != nil || terms != aimed.Terms {
		t.Errorf("Terms %+v (%v), Run %+v", terms, err, aimed.Terms)
	}
}

func equalSteps[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWorldEventAimedAtATool: a world event placed at tool.commit may aim
// at a tool too: it takes effect right after that tool's ordinal-th call,
// and a crash says where.
func TestWorldEventAimedAtATool(t *testing.T) {
	res := runShopper(t, shopper{}, model.Options{Builtin: []string{model.InvBudget}},
		`{"version":1,"seed":"w","config":{"controls":[]},"faults":[{"event":"tool.commit","ordinal":1,"kind":"clock_advance","target":"500","tool":"charge"}]}`)
	w := res.Timeline.Events()[4] // seq 5: right after the charge at seq 4
	if w.Event != model.EventName("world") || w.FaultID != "f1" || res.Timeline.Events()[3].Tool != "charge" || res.Faults[0].FiredAt != 5 {
		t.Fatalf("world event at %+v; faults %+v", w, res.Faults)
	}
	res = runShopper(t, shopper{}, model.Options{Builtin: []string{model.InvBudget}},
		`{"version":1,"seed":"w","config":{"controls":[]},"faults":[{"event":"tool.commit","ordinal":1,"kind":"worker_crash","tool":"charge"}]}`)
	c := res.Timeline.Events()[5] // seq 6: the world event at seq 5, then the crash
	if c.Event != model.EvWorkerCrash || c.Detail != "worker crashed after tool.commit(charge)#1" || res.Faults[0].FiredAt != 5 {
		t.Fatalf("crash %+v; faults %+v", c, res.Faults)
	}
}

// TestScheduleTool: "tool" is optional; Format writes it only when set and
// the canonical form decodes to an equal schedule; an empty or null tool,
// and a tool on an event that has none, are errors naming the problem.
func TestScheduleTool(t *testing.T) {
	in := `{"version":1,"seed":"t","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":2,"kind":"timeout","tool":"search"},{"event":"proposal","ordinal":1,"kind":"subject_swap"}]}`
	in = strings.Replace(in, `"kind":"timeout"`, `"kind":"tool_timeout"`, 1)
	s, err := model.ParseSchedule([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.Faults[0].Tool != "search" || s.Faults[1].Tool != "" {
		t.Fatalf("tools %q %q", s.Faults[0].Tool, s.Faults[1].Tool)
	}
	canon := string(model.Format(s))
	if strings.Count(canon, `"tool"`) != 1 || !strings.Contains(canon, `"kind": "tool_timeout",
      "tool": "search"`) {
		t.Fatalf("canonical form:\n%s", canon)
	}
	again, err := model.ParseSchedule([]byte(canon))
	if err != nil || again.Faults[0] != s.Faults[0] || again.Faults[1] != s.Faults[1] || string(model.Format(again)) != canon {
		t.Fatalf("round trip: %v\n%s", err, model.Format(again))
	}
	const head = `{"version":1,"config":{"profile":"typed"},"faults":[`
	for _, c := range []struct{ in, want string }{
		{head + `{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":""}]}`, `schedule: faults[0]: "tool" is empty`},
		{head + `{"event":"proposal","ordinal":1,"kind":"subject_swap"},{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":null}]}`, `schedule: faults[1]: "tool" is empty`},
		{head + `{"event":"proposal","ordinal":1,"kind":"subject_swap","tool":"search"}]}`, `schedule: faults[0]: "tool" "search" is set, but event "proposal" has no tool (only "tool.commit" does)`},
		{head + `{"event":"branch.run","ordinal":1,"kind":"branch_failure","tool":"search"}]}`, `event "branch.run" has no tool`},
		{head + `{"event":"state.read","ordinal":1,"kind":"worker_crash","tool":"charge"}]}`, `event "state.read" has no tool`},
		{head + `{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","Tool":"x"}]}`, `field "Tool" does not match "tool"`},
		{head + `{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tools":"x"}]}`, `unknown field "tools"`},
	} {
		_, err := model.ParseSchedule([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
	// Validate refuses a tool on an event without one in a schedule built
	// in Go, too
	bad := &model.Schedule{Version: model.ScheduleVersion, Config: copperfin.ConfigOfControls(0),
		Faults: []model.FaultEntry{{Event: model.EvCheckpointWrite, Ordinal: 1, Kind: "checkpoint_rollback", Tool: "charge"}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `event "checkpoint.write" has no tool`) {
		t.Errorf("Validate: %v", err)
	}
}

// TestCompletedEffectsNamedAsTheSystemSawThem: a checkpoint may name its
// completed charge by the request key it sent or by the receipt id the
// provider returned, and no_invented_progress holds for both on a correct
// run; a name that is neither still breaks it, at the checkpoint's write.
func TestCompletedEffectsNamedAsTheSystemSawThem(t *testing.T) {
	const clean = `{"version":1,"seed":"clean","config":{"controls":[]},"faults":[]}`
	opts := model.Options{Builtin: []string{model.InvNoInventedProgress}}
	for name, pick := range map[string]func(string, model.ToolResult) string{
		"request key": func(key string, _ model.ToolResult) string { return key },
		"receipt id":  func(_ string, res model.ToolResult) string { return res.Receipt.ID },
	} {
		res := runShopper(t, shopper{effectName: pick}, opts, clean)
		inv, _ := res.Invariant(model.InvNoInventedProgress)
		led, _ := res.Invariant(model.InvRecordedAgreesWithLedger)
		if !inv.Held || !led.Held || res.RunVerdict != model.Recovered || len(res.Invariants) != 3 || res.Invariants[2].Invariant != "retry_paced" {
			t.Errorf("%s: %+v, run %s", name, res.Invariants, res.RunVerdict)
		}
	}
	// the receipt id and the request key really are different names
	res := runShopper(t, shopper{effectName: func(_ string, res model.ToolResult) string { return res.Receipt.ID }}, opts, clean)
	if r := res.Claims[0].Reason; r != "charged rcpt-2" {
		t.Fatalf("claim %q", r)
	}
	// an empty name is quoted, so the message shows it
	for invented, shown := range map[string]string{"charge-done": "charge-done", "rcpt-9": "rcpt-9", "buy-cart-5:refund": "buy-cart-5:refund", "": `""`} {
		res := runShopper(t, shopper{effectName: func(string, model.ToolResult) string { return invented }}, opts, clean)
		inv, _ := res.Invariant(model.InvNoInventedProgress)
		want := "checkpoint 1 records effect " + shown + " that the ledger does not hold (neither a request key nor a receipt id of the task's effects)"
		if inv.Held || inv.FirstSeq != 5 || inv.Event != model.EvCheckpointWrite || inv.Detail != want {
			t.Errorf("%s: %+v", invented, inv)
		}
	}
}
