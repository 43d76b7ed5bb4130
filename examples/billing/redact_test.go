package billing_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/otelrun"
	"github.com/faultline/faultline/properties"
)

// The billing fixture's identifiers and their references ("ref-" and the
// FNV-32a hash of the identifier, model.RunRecord): every writer of a run
// shows the references and none of the identifiers.
const (
	refInvoice   = "ref-f1572fc4" // the task inv-1042
	refApproval  = "ref-87d1e02e" // the capability APR-1042
	chargedTwice = refInvoice + " charged 2 times"
	// the record names the first charge's receipt, not the retry's (key req-1)
	recordLacks   = "the task's record (checkpoint 4) lacks effect req-1 of the provider's ledger"
	firstCharge   = "payments.charge key " + refInvoice + ":charge replayed false receipt false"
	grantDetail   = "capability " + refApproval
	redactedTasks = `"task": "` + refInvoice + `"`
)

// raw are the billing fixture's identifiers: the account, the approval,
// the invoice (its task) and its trace, and the agent (their actor).
var raw = []string{"ACC-42", "APR-1042", "inv-1042", "billing-agent"}

// lostCharge is the fresh-key bug's one-fault counterexample: the charge's
// reply is lost after it committed, and the retry under a new key
// charges again.
func lostCharge() *model.Schedule {
	cfg := billing.Config(billing.FreshKeyPerRetry)
	cfg.Fixture = "billing"
	return &model.Schedule{Version: model.ScheduleVersion, Seed: "redaction", Config: cfg,
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}}
}

// leaks fails t when out carries a raw identifier of the fixture.
func leaks(t *testing.T, what string, out []byte) {
	t.Helper()
	for _, id := range raw {
		if bytes.Contains(out, []byte(id)) {
			t.Errorf("%s carries the identifier %s:\n%s", what, id, out)
		}
	}
}

// TestRedactionEveryWriter: the run record, the counterexample files of
// properties and of the fuzz target, the replay's timeline (text and
// JSON), the dossier's diagnoses and the OpenTelemetry trace of one
// counterexample of the billing agent show the same references in place
// of its identifiers, and none of the identifiers; the redacted files
// still replay, since the schedule they hold names no identifier and a
// replay compares no detail.
func TestRedactionEveryWriter(t *testing.T) {
	def := plantedDef()
	s := lostCharge()
	res, err := def.Run(s, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// the run itself keeps the identifiers: a program reads them
	if inv, _ := res.Invariant(billing.InvChargedOnce); inv.Detail != "inv-1042 charged 2 times" || res.Claims[0].Task != "inv-1042" {
		t.Fatalf("the run changed: %+v, claims %+v", inv, res.Claims)
	}

	t.Run("record", func(t *testing.T) {
		rec := res.Record()
		if len(rec.Violations) != 2 || rec.Violations[0].Detail != recordLacks || rec.Violations[1].Detail != chargedTwice || rec.Timeline[3].Detail != grantDetail ||
			rec.Timeline[6].Detail != firstCharge || rec.Claims[0].Task != refInvoice || rec.Tasks[0].Task != refInvoice {
			t.Errorf("record: violations %+v, seq 4 %q, seq 7 %q, claims %+v, tasks %+v",
				rec.Violations, rec.Timeline[3].Detail, rec.Timeline[6].Detail, rec.Claims, rec.Tasks)
		}
		for _, e := range rec.Timeline {
			if e.Task != refInvoice {
				t.Errorf("seq %d: task %q, want %s", e.Seq, e.Task, refInvoice)
			}
		}
		data, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		leaks(t, "the record", data)
		// it replays: its schedule, read back from the JSON, gives the
		// same record byte for byte
		var back struct {
			Schedule json.RawMessage `json:"schedule"`
		}
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		s2, err := model.ParseSchedule(back.Schedule)
		if err != nil {
			t.Fatal(err)
		}
		again, err := def.Replay(s2)
		if err != nil {
			t.Fatal(err)
		}
		if data2, _ := json.Marshal(again.Record()); !bytes.Equal(data, data2) {
			t.Errorf("the record's replay differs:\n%s\n%s", data, data2)
		}
	})

	t.Run("properties counterexample", func(t *testing.T) {
		dir := t.TempDir()
		rep, err := properties.Explore(def, explore(billing.FreshKeyPerRetry, properties.WithFailDir(dir), properties.WithMaxFaults(1),
			properties.WithKinds("timeout_after_commit"), properties.WithoutWorldEvents())...)
		if err != nil {
			t.Fatal(err)
		}
		cx := rep.Counterexample
		if !rep.Found || cx.Detail != chargedTwice || cx.Timeline[6].Detail != firstCharge || !strings.Contains(cx.String(), ": "+chargedTwice+"\n") {
			t.Fatalf("counterexample %+v", rep)
		}
		data, err := os.ReadFile(strings.TrimSuffix(cx.File, ".json") + ".counterexample.json")
		if err != nil {
			t.Fatal(err)
		}
		replays(t, def, data)
	})

	t.Run("fuzz corpus file", func(t *testing.T) {
		dir := t.TempDir()
		target, err := fuzz.NewTarget(def, fuzz.WithConfig(billing.Config(billing.FreshKeyPerRetry)),
			fuzz.WithReplayTest("TestPlanted/"+billing.FreshKeyPerRetry.String()), fuzz.WithFailDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		dec, err := fuzz.NewDecoder(def, fuzz.WithConfig(billing.Config(billing.FreshKeyPerRetry)))
		if err != nil {
			t.Fatal(err)
		}
		site := -1
		for i := range dec.Sites() {
			if f := dec.Decode([]byte{byte(i)}).Faults[0]; f.Kind == "timeout_after_commit" && site < 0 {
				site = i
			}
		}
		var f *fuzz.Failure
		if err := target.Check([]byte{byte(site)}); !errors.As(err, &f) || f.Detail != chargedTwice ||
			!strings.HasPrefix(err.Error(), billing.InvChargedOnce+" violated: "+chargedTwice+"\n") {
			t.Fatalf("fuzz failure %v", err)
		}
		leaks(t, "the fuzz failure", []byte(f.Error()))
		data, err := os.ReadFile(strings.TrimSuffix(f.File, ".json") + ".counterexample.json")
		if err != nil {
			t.Fatal(err)
		}
		replays(t, def, data)
	})

	t.Run("replay timeline", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "lost-charge.json")
		if err := os.WriteFile(path, model.Format(s), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := cli.Main([]string{"replay", path}, &out, &errb, billing.Definition()); code != cli.ExitViolation {
			t.Fatalf("replay: exit %d, want 1: %s", code, errb.String())
		}
		for _, want := range []string{"  " + firstCharge + "\n", "  " + grantDetail + "\n", ": " + chargedTwice + "\n", "Claim for " + refInvoice + ": "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("replay's text lacks %q:\n%s", want, out.String())
			}
		}
		leaks(t, "replay's text", out.Bytes())
		out.Reset()
		if code := cli.Main([]string{"replay", "--format", "json", path}, &out, &errb, billing.Definition()); code != cli.ExitViolation ||
			!strings.Contains(out.String(), `"detail": "`+firstCharge+`"`) || !strings.Contains(out.String(), redactedTasks) {
			t.Errorf("replay --format json: exit %d\n%s", code, out.String())
		}
		leaks(t, "replay's record", out.Bytes())
	})

	t.Run("dossier", func(t *testing.T) {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		if code := cli.Main([]string{"dossier", "--out", dir, "--trials", "20"}, &out, &errb, billing.Definition()); code != cli.ExitOK {
			t.Fatalf("dossier: exit %d: %s", code, errb.String())
		}
		for _, name := range []string{"dossier.json", "dossier.md"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			leaks(t, name, data)
			if name == "dossier.json" && (!bytes.Contains(data, []byte(`"detail": "`+chargedTwice+`"`)) ||
				!bytes.Contains(data, []byte(`(payments.charge key `+refInvoice+`:charge replayed false receipt true)`))) {
				t.Errorf("%s lacks the diagnosis of the fresh-key bug by its references", name)
			}
		}
	})

	t.Run("OpenTelemetry trace", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), otelrun.FileName(res))
		if err := otelrun.WriteFile(path, res); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"name":"task ` + refInvoice + `"`, `{"key":"faultline.task","value":{"stringValue":"` + refInvoice + `"}}`,
			`{"key":"faultline.detail","value":{"stringValue":"` + firstCharge + `"}}`,
			`{"key":"faultline.invariant.detail","value":{"stringValue":"` + chargedTwice + `"}}`} {
			if !bytes.Contains(data, []byte(want)) {
				t.Errorf("the trace lacks %s", want)
			}
		}
		leaks(t, "the trace", data)
	})
}

// replays reads a counterexample file, checks it shows the references
// (its expectation's detail, its timeline) and no identifier, and
// replays it on def to the violation it records.
func replays(t *testing.T, def *model.Definition, data []byte) {
	t.Helper()
	leaks(t, "the counterexample file", data)
	ce, err := corpus.ReadCounterexample(data)
	if err != nil {
		t.Fatal(err)
	}
	// a Check counterexample expects the invariant it shrank on; a fuzz
	// failure's file every one the run broke
	if v := ce.Expect.Violated; len(v) == 0 || v[len(v)-1].Detail != chargedTwice || len(v) == 2 && v[0].Detail != recordLacks || len(v) > 2 || ce.Timeline[6].Detail != firstCharge || ce.Timeline[6].Task != refInvoice {
		t.Errorf("counterexample: expect %+v, seq 7 %+v", v, ce.Timeline[6])
	}
	res, err := def.Replay(ce.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if err := ce.Check(res); err != nil {
		t.Errorf("the redacted counterexample does not replay: %v", err)
	}
}
