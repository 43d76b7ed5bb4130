package corpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// legacyRecord is an exploration's record of before counterexample
// version 2 (written by record below before it wrote version 2): the
// baseline's duplicate refund, found at check 3 of seed 42.
func legacyRecord(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "reference", "copperfin", "testdata", "record-v1.counterexample.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// record writes the exploration's two files for the baseline's duplicate
// refund (properties.WriteCounterexample, as faultline explore --out
// does) and returns the counterexample file's bytes and the schedule
// file's path.
func record(t *testing.T) ([]byte, string, *model.Result) {
	t.Helper()
	s, err := model.SingleFault("timeout_after_commit", func() model.Config {
		c := copperfin.Settings{Profile: copperfin.ProfileBaseline}.Config()
		c.Fixture = "copperfin"
		return c
	}())
	if err != nil {
		t.Fatal(err)
	}
	res, err := copperfin.Definition().Replay(s)
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	cx := &properties.Counterexample{Schedule: s, Shrunk: s, Violation: inv.Violation, FaultKind: "timeout_after_commit", Timeline: model.Normalize(res.Timeline.Events())[:inv.FirstSeq],
		System: copperfin.Name}
	dir := t.TempDir()
	if err := properties.WriteCounterexample(dir, cx, &properties.Report{ChecksToFailure: 3, Seed: 42}, "faultline replay %s"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(strings.TrimSuffix(cx.File, ".json") + ".counterexample.json")
	if err != nil {
		t.Fatal(err)
	}
	return data, cx.File, res
}

// TestRecordMapsOntoACounterexample: an exploration writes a
// counterexample file of the current version, and its record of before
// reads as the same counterexample by the documented mapping; each
// replays to its recorded first violation and survives the corpus
// format's round trip, and a replay that no longer shows the violation
// is a difference.
func TestRecordMapsOntoACounterexample(t *testing.T) {
	data, file, res := record(t)
	if corpus.IsRecord(data) || !corpus.IsFile(data) || !corpus.IsCounterexample(data) {
		t.Fatal("the exploration's file is not recognised as a counterexample file")
	}
	if old := legacyRecord(t); !corpus.IsRecord(old) || corpus.IsFile(old) || !corpus.IsCounterexample(old) {
		t.Fatal("the record is not recognised as a record")
	}
	inv, _ := res.Invariant(model.InvEffectAtMostOnce)
	want := &corpus.Counterexample{Version: 2, Kind: corpus.KindViolation,
		Note:         "exploration counterexample, schedule file " + filepath.Base(file),
		FoundBy:      corpus.FoundBy{Target: "properties", System: "copperfin", RapidSeed: 42, ChecksToFailure: 3, Shrunk: res.Schedule},
		Replay:       "faultline replay " + file,
		ScheduleFile: filepath.Base(file),
		Schedule:     res.Schedule,
		Expect: &corpus.Expect{FirstOnly: true, Violated: []corpus.Violation{{Invariant: "effect_at_most_once", FirstSeq: inv.FirstSeq,
			Event: model.EvToolCommit, FaultID: "f1", Detail: "second ledger effect for task refund-O-731"}}},
		Timeline: model.Normalize(res.Timeline.Events())[:inv.FirstSeq],
	}
	var ce *corpus.Counterexample
	for _, c := range []struct {
		name   string
		data   []byte
		replay string
	}{{"written", data, want.Replay}, {"record", legacyRecord(t), "faultline replay " + filepath.Base(file)}} {
		got, err := corpus.ReadCounterexample(c.data)
		if err != nil {
			t.Fatal(err)
		}
		want.Replay = c.replay
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: mapping (-want +got):\n%s", c.name, diff)
		}
		again, err := corpus.ParseCounterexample(corpus.Format(got))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Errorf("%s: Parse(Format(FromRecord(r))) differs:\n%s", c.name, diff)
		}
		if err := got.Check(res); err != nil {
			t.Errorf("%s: replay: %v", c.name, err)
		}
		ce = got
	}
	// first_only compares the recorded invariant only: another violation
	// and other verdicts are not differences, the recorded one missing is
	held := *res
	held.Invariants = append([]model.InvariantResult(nil), res.Invariants...)
	held.RunVerdict = model.Recovered
	for i := range held.Invariants {
		held.Invariants[i].Held = held.Invariants[i].Invariant != model.InvProvableOutcome
	}
	if err := ce.Check(&held); err == nil || err.Error() != `recorded violation no longer seen: effect_at_most_once after tool.commit (fault "f1")` {
		t.Errorf("Check of a run without the violation: %v", err)
	}
}

func TestRecordErrorsNameTheProblem(t *testing.T) {
	data := legacyRecord(t)
	good := string(data)
	cases := []struct{ from, to, want string }{
		{`"version": 1`, `"version": 2`, "unsupported version 2 (want 1)"},
		{`"invariant": "effect_at_most_once"`, `"invariant": "Luck!"`, `invariant name "Luck!": must start with a lower-case letter a-z`},
		{`"replay":`, `"extra": 1, "replay":`, `unknown field "extra"`},
		{`"event": "tool.commit",
  "fault_id"`, `"event": "",
  "fault_id"`, `missing "event"`},
		{`"kind": "timeout_after_commit"`, `"kind": "gremlin"`, `unknown fault kind "gremlin"`},
	}
	for _, c := range cases {
		in := strings.Replace(good, c.from, c.to, 1)
		if in == good {
			t.Fatalf("case %q changes nothing", c.from)
		}
		if _, err := corpus.ReadCounterexample([]byte(in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.to, err, c.want)
		}
	}
	// any invariant a system declares is accepted, by syntax
	user := strings.Replace(good, `"invariant": "effect_at_most_once"`, `"invariant": "charged_once"`, 1)
	if ce, err := corpus.ReadCounterexample([]byte(user)); err != nil || ce.Expect.Violated[0].Invariant != "charged_once" {
		t.Errorf("a user invariant: %v", err)
	}
	if _, err := corpus.ReadCounterexample([]byte(`{"version":1,"config":{"profile":"typed"},"faults":[]}`)); err == nil || !strings.Contains(err.Error(), "neither a counterexample file") {
		t.Errorf("a schedule file: %v", err)
	}
}

func TestRecordDecodingIsStrict(t *testing.T) {
	data := legacyRecord(t)
	good := string(data)
	for _, c := range []struct{ from, to, want string }{
		{`"invariant":`, `"Invariant":`, `counterexample record: field "Invariant" does not match "invariant"`},
		{`"replay":`, `"replay": "x", "replay":`, `counterexample record: key "replay" appears twice`},
		{`"timeline": [`, `"timeline": [` + strings.Repeat(`{"seq": 1},`, corpus.MaxEntries+1), `events, more than the limit of 10000`},
	} {
		in := strings.Replace(good, c.from, c.to, 1)
		if in == good {
			t.Fatalf("case %q changes nothing", c.from)
		}
		if _, err := corpus.ParseRecord([]byte(in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestRecordNamesItsSystem: a record is labelled with the system its
// record names, not with any one system; a record that names none (written
// before records kept their system) reads with no system.
func TestRecordNamesItsSystem(t *testing.T) {
	data := legacyRecord(t)
	for _, c := range []struct{ from, to, want string }{
		{`"system": "copperfin"`, `"system": "billing"`, "billing"},
		{`"system": "copperfin",`, ``, ""},
	} {
		in := strings.Replace(string(data), c.from, c.to, 1)
		if in == string(data) {
			t.Fatalf("case %q changes nothing", c.from)
		}
		ce, err := corpus.ReadCounterexample([]byte(in))
		if err != nil || ce.FoundBy.System != c.want {
			t.Errorf("%q: %v, system %q, want %q", c.to, err, ce.FoundBy.System, c.want)
		}
	}
}
