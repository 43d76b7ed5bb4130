package corpus_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
)

const goodCE = `{
  "counterexample": 1,
  "kind": "invariant_violation",
  "found_by": {"target": "t", "system": "reference"},
  "replay": "r",
  "schedule": {"version": 1, "seed": "s", "config": {"profile": "baseline"}, "faults": [{"event": "tool.commit", "ordinal": 1, "kind": "timeout_after_commit"}]},
  "expect": {"run_verdict": "unrecoverable", "claim_verdict": "unsafe", "violated": [{"invariant": "effect_at_most_once", "first_seq": 12, "event": "tool.commit", "fault_id": "f1"}]}
}`

func TestCounterexampleRoundTrip(t *testing.T) {
	ce, err := corpus.ParseCounterexample([]byte(goodCE))
	if err != nil {
		t.Fatal(err)
	}
	again, err := corpus.ParseCounterexample(corpus.Format(ce))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ce, again); diff != "" {
		t.Errorf("Parse(Format(c)) != c:\n%s", diff)
	}
	for _, is := range []func([]byte) bool{corpus.IsFile, corpus.IsCounterexample} {
		if !is([]byte(goodCE)) || is([]byte(`{"version":1}`)) || is([]byte(`[`)) {
			t.Error("IsCounterexample misjudges")
		}
	}
}

func TestCounterexampleErrorsNameTheProblem(t *testing.T) {
	cases := []struct{ from, to, want string }{
		{`"counterexample": 1,`, ``, `missing "counterexample"`},
		{`"counterexample": 1`, `"counterexample": 3`, "unsupported version 3"},
		{`"replay": "r"`, `"replay": "r", "extra": 1`, `unknown field "extra"`},
		{`"kind": "invariant_violation"`, `"kind": "flaky"`, `unknown kind "flaky"`},
		{`"kind": "invariant_violation",`, ``, `missing "kind"`},
		{`"kind": "invariant_violation"`, `"kind": "nondeterminism"`, `kind nondeterminism takes no "expect"`},
		{`"kind": "invariant_violation"`, `"kind": "schedule_decode"`, `takes "input", not "schedule" or "expect"`},
		{`"system": "reference"`, `"system": ""`, `"found_by" needs "target" and "system"`},
		{`"ordinal": 1`, `"ordinal": 0`, "ordinal 0 must be 1 or more"},
		{`"violated": [`, `"violated": null, "x": [`, `unknown field "x"`},
		{`"invariant": "effect_at_most_once", `, ``, `expect.violated[0] needs "invariant" and "event"`},
		{`}` + "\n}", `}` + "\n} {}", "trailing data"},
		{`"run_verdict": "unrecoverable", `, ``, `"expect" needs "run_verdict" and "claim_verdict" (or "first_only")`},
		{`"violated": [`, `"first_only": true, "violated": [`, `an "expect" with "first_only" has one entry in "violated" and no verdicts`},
	}
	for _, c := range cases {
		in := strings.Replace(goodCE, c.from, c.to, 1)
		if in == goodCE {
			t.Fatalf("case %q changes nothing", c.from)
		}
		_, err := corpus.ParseCounterexample([]byte(in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q -> %q: error %v, want %q", c.from, c.to, err, c.want)
		}
	}
	noExpect := strings.Replace(goodCE, `,
  "expect"`, `, "x_expect"`, 1)
	if _, err := corpus.ParseCounterexample([]byte(noExpect)); err == nil {
		t.Error("a violation without expect was accepted")
	}
	dec := &corpus.Counterexample{Version: 1, Kind: corpus.KindScheduleDecode, FoundBy: corpus.FoundBy{Target: "t", System: "reference"}, Input: "not quoted"}
	if _, err := corpus.ParseCounterexample(corpus.Format(dec)); err == nil || !strings.Contains(err.Error(), "must be a Go string literal") {
		t.Errorf("unquoted input: %v", err)
	}
}

func TestCheckNamesEveryDifference(t *testing.T) {
	ce, err := corpus.ParseCounterexample([]byte(goodCE))
	if err != nil {
		t.Fatal(err)
	}
	res := &model.Result{RunVerdict: model.Recovered, Verdict: model.ClaimRelease, Invariants: []model.InvariantResult{
		{Violation: model.Violation{Invariant: "effect_at_most_once"}, Held: true},
		{Violation: model.Violation{Invariant: "provable_outcome", Event: model.EvClaim, FaultID: "f1"}, Held: false},
	}}
	err = ce.Check(res)
	want := `run verdict recovered, recorded unrecoverable; claim verdict release, recorded unsafe; recorded violation no longer seen: effect_at_most_once after tool.commit (fault "f1"); violation not recorded: provable_outcome after claim (fault "f1")`
	if err == nil || err.Error() != want {
		t.Errorf("Check: %v\nwant %s", err, want)
	}
}

// TestCounterexampleDecodingIsStrict: keys in another case and repeated
// keys, which encoding/json accepts, are errors that name the key; so are
// more than corpus.MaxEntries timeline events.
func TestCounterexampleDecodingIsStrict(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{`"kind":`, `"Kind":`, `counterexample: field "Kind" does not match "kind": keys are case-sensitive`},
		{`"system":`, `"System":`, `counterexample: found_by: field "System" does not match "system"`},
		{`"first_seq": 12`, `"first_seq": 12, "first_seq": 13`, `counterexample: expect.violated[0]: key "first_seq" appears twice`},
		{`"replay": "r"`, `"replay": "r", "replay": "s"`, `counterexample: key "replay" appears twice`},
		{`"faults": [`, `"Faults": [`, `counterexample: schedule: field "Faults" does not match "faults"`},
	} {
		in := strings.Replace(goodCE, c.from, c.to, 1)
		if in == goodCE {
			t.Fatalf("case %q changes nothing", c.from)
		}
		if _, err := corpus.ParseCounterexample([]byte(in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q -> %q: error %v, want %q", c.from, c.to, err, c.want)
		}
	}
	timeline := func(n int) string {
		return strings.Replace(goodCE, `"replay": "r",`, `"replay": "r", "timeline": [`+strings.Repeat(`{"seq": 1},`, n-1)+`{"seq": 1}],`, 1)
	}
	if _, err := corpus.ParseCounterexample([]byte(timeline(corpus.MaxEntries))); err != nil {
		t.Fatalf("%d events: %v", corpus.MaxEntries, err)
	}
	_, err := corpus.ParseCounterexample([]byte(timeline(corpus.MaxEntries + 1)))
	if err == nil || err.Error() != `counterexample: "timeline" has 10001 events, more than the limit of 10000` {
		t.Errorf("over the limit: %v", err)
	}
}

// TestVersion2Fields: version 2's fields decode (the shrunk schedule
// strictly) and survive the round trip; a version-1 file holding one is
// an error, and so is a version neither 1 nor 2.
func TestVersion2Fields(t *testing.T) {
	sched := goodCE[strings.Index(goodCE, `"schedule": `)+len(`"schedule": `) : strings.Index(goodCE, `,
  "expect"`)]
	v2 := strings.Replace(strings.Replace(goodCE, `"counterexample": 1`, `"counterexample": 2`, 1), `"replay": "r",`,
		`"replay": "r", "schedule_file": "cx.json", "interleaving": [1, 2], "context_switches": 1, "jitter": "logical times vary between runs (global randomness, e.g. a jittered back-off): up to 7 ms",`, 1)
	v2 = strings.Replace(v2, `"system": "reference"`, `"system": "reference", "rapid_shrunk_schedule": `+sched, 1)
	ce, err := corpus.ParseCounterexample([]byte(v2))
	if err != nil {
		t.Fatal(err)
	}
	if ce.ScheduleFile != "cx.json" || !slices.Equal(ce.Interleaving, []int{1, 2}) || ce.ContextSwitches != 1 || ce.FoundBy.Shrunk == nil ||
		ce.Jitter != "logical times vary between runs (global randomness, e.g. a jittered back-off): up to 7 ms" ||
		!slices.Equal(ce.FoundBy.Shrunk.Faults, ce.Schedule.Faults) {
		t.Fatalf("version 2 fields: %+v", ce)
	}
	again, err := corpus.ParseCounterexample(corpus.Format(ce))
	if err != nil || !reflect.DeepEqual(ce, again) {
		t.Fatalf("round trip: %v\n%s", err, corpus.Format(ce))
	}
	for _, c := range []struct{ in, want string }{
		{strings.Replace(v2, `"counterexample": 2`, `"counterexample": 1`, 1), `version 1 takes no "schedule_file"`},
		{strings.Replace(goodCE, `"replay": "r",`, `"replay": "r", "jitter": "up to 7 ms",`, 1), `version 1 takes no "schedule_file", "interleaving", "context_switches", "jitter"`},
		{strings.Replace(v2, `"counterexample": 2`, `"counterexample": 3`, 1), `unsupported version 3 (want 1 or 2)`},
		{strings.Replace(v2, `"rapid_shrunk_schedule": {`, `"rapid_shrunk_schedule": {"Faults": [], `, 1), `found_by.rapid_shrunk_schedule: `},
	} {
		if _, err := corpus.ParseCounterexample([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
