package model_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

func events(res *model.Result) []string {
	var out []string
	for _, e := range res.Timeline.Events() {
		out = append(out, string(e.Event))
	}
	return out
}

// The baseline's timeline for timeout_after_commit up to the second commit
// (seq 19, 222 ms), which makes the duplicate refund: the approval kept in
// memory, the fan-out and join, the "authorized" checkpoint and a
// write-ahead "committing" checkpoint before each attempt.
var upToDuplicate = []string{"worker.start", "checkpoint.load", "context.eligibility", "context.subject", "context.policy",
	"proposal", "authority.grant", "memory.write", "evidence.decision", "branch.run", "branch.run", "branch.join", "memory.read",
	"checkpoint.write", "checkpoint.write", "tool.commit", "system.warn", "checkpoint.write", "tool.commit"}

// TestStopAtDuplicate: a blast radius of one effect, or an abort on
// duplicate effects above zero, stops the baseline's timeout-after-commit
// run right after the second commit (seq 19): the next record is run.stop,
// then the harness's hold claim; the system makes no further crossing.
func TestStopAtDuplicate(t *testing.T) {
	s, _ := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	cases := []struct {
		stop      model.Stop
		condition string
		limit     int64
		value     int64
	}{
		{model.Stop{MaxEffects: 1}, model.StopMaxEffects, 1, 2},
		{model.Stop{Abort: "duplicate_effects"}, model.StopAbort, 0, 1},
		{model.Stop{Abort: "violated_invariants"}, model.StopAbort, 0, 1},
	}
	for _, c := range cases {
		res := runWith(t, model.Options{Stop: c.stop}, s)
		want := append(append([]string(nil), upToDuplicate...), "run.stop", "claim")
		if diff := cmp.Diff(want, events(res)); diff != "" {
			t.Errorf("%+v: events (-want +got):\n%s", c.stop, diff)
		}
		st := res.Stopped
		if st == nil || st.Condition != c.condition || st.Limit != c.limit || st.Value != c.value || st.Seq != 19 || st.At != 222 {
			t.Fatalf("%+v: stop report %+v", c.stop, st)
		}
		stop := res.Timeline.Events()[19]
		if stop.Actor != "harness" || stop.Outcome != "stopped" || !strings.HasPrefix(stop.Detail, c.condition+": ") {
			t.Errorf("%+v: run.stop record %+v", c.stop, stop)
		}
		if len(res.Claims) != 1 || res.Claims[0].Verdict != model.ClaimHold || res.Claims[0].Reason != "stopped by a stop condition" {
			t.Errorf("%+v: claims %+v", c.stop, res.Claims)
		}
		if inv, _ := res.Invariant(model.InvEffectAtMostOnce); inv.Held || inv.FirstSeq != 19 {
			t.Errorf("%+v: effect_at_most_once %+v", c.stop, inv)
		}
		if res.RunVerdict != model.Unrecoverable || res.Terms.Effects != 2 {
			t.Errorf("%+v: run verdict %s, effects %d", c.stop, res.RunVerdict, res.Terms.Effects)
		}
	}
}

// TestStopMaxFaults: two scheduled timeouts fire at the first and second
// commits (seq 16 and 19); with max_faults 1 the run stops after the second
// firing.
func TestStopMaxFaults(t *testing.T) {
	s, err := model.ParseSchedule([]byte(`{"version":1,"seed":"two","config":{"profile":"baseline"},"faults":[
		{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"},
		{"event":"tool.commit","ordinal":2,"kind":"timeout_after_commit"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := runWith(t, model.Options{Stop: model.Stop{MaxFaults: 1}}, s)
	if st := res.Stopped; st == nil || st.Condition != model.StopMaxFaults || st.Value != 2 || st.Seq != 19 {
		t.Fatalf("stop report %+v", res.Stopped)
	}
	if got := events(res); got[len(got)-2] != "run.stop" || len(got) != 21 {
		t.Fatalf("events %v", got)
	}
}

// TestStopExpiry: with an expiry at 55 ms the typed run with no fault stops
// at the first crossing at or after 55 ms (the proposal at 60 ms, seq 6)
// and the run is inconclusive, not recovered.
func TestStopExpiry(t *testing.T) {
	s := &model.Schedule{Version: 1, Seed: "none", Config: copperfin.ConfigOfProfile(copperfin.ProfileTyped), Faults: []model.FaultEntry{}}
	res := runWith(t, model.Options{Stop: model.Stop{Expiry: 55}}, s)
	if st := res.Stopped; st == nil || st.Condition != model.StopExpiry || st.Seq != 6 || st.At != 60 || st.Value != 60 || st.Limit != 55 {
		t.Fatalf("stop report %+v", res.Stopped)
	}
	want := []string{"worker.start", "checkpoint.load", "context.eligibility", "context.subject", "context.policy", "proposal", "run.stop", "claim"}
	if diff := cmp.Diff(want, events(res)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if res.RunVerdict != model.Inconclusive || !res.Held() || res.Terms.Effects != 0 || !res.Terms.ServiceLoss {
		t.Fatalf("verdict %s held %t terms %+v", res.RunVerdict, res.Held(), res.Terms)
	}
}

// TestStopNotMetChangesNothing: declared conditions that are never met, and
// no declaration at all, give the same result as each other (the whole
// Result, unexported budget and contract fields included), with no run.stop
// record, for every kind of the catalogue under every profile. Three fault
// firings are the most a single catalogue fault makes (budget_exhaustion
// fires on each of its 1 + 2 attempts), so max_faults 3 is never met.
func TestStopNotMetChangesNothing(t *testing.T) {
	loose := model.Stop{MaxEffects: 2, MaxFaults: 3, Abort: "duplicate_effects", AbortAbove: 1, Expiry: 10000}
	runs := 0
	for _, spec := range model.Catalogue() {
		for _, p := range copperfin.Profiles {
			s, _ := model.SingleFault(spec.Kind, copperfin.ConfigOfProfile(p))
			a, b := runWith(t, model.Options{}, s), runWith(t, model.Options{Stop: loose}, s)
			if b.Stopped != nil {
				t.Errorf("%s/%s: stopped %+v", spec.Kind, p, b.Stopped)
			}
			if diff := cmp.Diff(a, b, cmp.AllowUnexported(model.Result{})); diff != "" {
				t.Errorf("%s/%s: results differ (-none +loose):\n%s", spec.Kind, p, diff)
			}
			runs++
		}
	}
	if runs != 35*3 {
		t.Errorf("%d runs, want one per kind (35) and profile (3)", runs)
	}
	// max_faults 2 is met by the persistent budget_exhaustion at its third
	// firing, before any invariant is violated
	s, _ := model.SingleFault("budget_exhaustion", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	res := runWith(t, model.Options{Stop: model.Stop{MaxFaults: 2}}, s)
	if st := res.Stopped; st == nil || st.Condition != model.StopMaxFaults || st.Value != 3 || res.RunVerdict != model.Inconclusive || !res.Held() {
		t.Errorf("max_faults 2 on budget_exhaustion: %+v %s", res.Stopped, res.RunVerdict)
	}
}

// TestStopBoundsRunawayRetry: a system that retries without bound (the
// unbounded_retry defect) under a persistent budget_exhaustion is stopped by
// max_faults 3 at its fourth firing, the crossing at which the oracle finds
// the budget violated (attempt 4 of 1 + 2): the stop bounds the blast
// radius without hiding the violation, and the run is unrecoverable.
func TestStopBoundsRunawayRetry(t *testing.T) {
	for _, c := range []struct {
		profile copperfin.Profile
		seq     int
		at      model.Millis
	}{{copperfin.ProfileBaseline, 25, 322}, {copperfin.ProfileTyped, 32, 392}} {
		s, _ := model.SingleFault("budget_exhaustion", copperfin.ConfigOfProfile(c.profile))
		s.Config = copperfin.WithMutant(s.Config, "unbounded_retry")
		cs, _ := copperfin.ControlsOf(s.Config)
		f, err := copperfin.NewFactory(cs, copperfin.MutantOf(s.Config))
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.NewHarness(copperfin.Copperfin(), model.Options{Stop: model.Stop{MaxFaults: 3}}).Run(f, s)
		if err != nil {
			t.Fatal(err)
		}
		st := res.Stopped
		if st == nil || st.Condition != model.StopMaxFaults || st.Value != 4 || st.Seq != c.seq || st.At != c.at {
			t.Fatalf("%s: stop report %+v", c.profile, st)
		}
		inv, _ := res.Invariant(model.InvBudget)
		if inv.Held || inv.FirstSeq != c.seq || inv.Detail != "attempt 4 exceeds one plus the retry budget of 2" {
			t.Errorf("%s: budget %+v", c.profile, inv)
		}
		if res.RunVerdict != model.Unrecoverable || res.Faults[0].Fired != 4 || len(res.Timeline.Events()) != c.seq+2 {
			t.Errorf("%s: verdict %s, fired %d, %d events", c.profile, res.RunVerdict, res.Faults[0].Fired, len(res.Timeline.Events()))
		}
	}
}

func TestStopRejectsBadDeclaration(t *testing.T) {
	s, _ := model.SingleFault("subject_swap", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	for stop, want := range map[model.Stop]string{
		{MaxEffects: -1}: "max_effects -1",
		{MaxFaults: -2}:  "max_faults -2",
		{Expiry: -5}:     "expiry_ms -5",
		{Abort: "fires"}: `unknown abort metric "fires"`,
		{AbortAbove: 3}:  "without an abort metric",
		{Abort: "unsafe_effects", AbortAbove: -1}: "abort_above -1",
	} {
		_, err := model.NewHarness(copperfin.Copperfin(), model.Options{Stop: stop}).Run(copperfin.Factory(0), s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error %v, want %q", stop, err, want)
		}
	}
}
