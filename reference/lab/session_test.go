package lab_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/lab"
	"github.com/faultline/faultline/reference/paper"
)

var (
	auditOnce sync.Once
	auditEv   *assay.Evidence
	auditErr  error
)

// auditEvidence is the release evidence "faultline audit" gathers, its
// studies without the composition witnesses (auditStudies).
func auditEvidence(t *testing.T) *assay.Evidence {
	t.Helper()
	auditOnce.Do(func() { auditEv, auditErr = assay.Gather(copperfin.Definition(), auditStudies()) })
	if auditErr != nil {
		t.Fatal(auditErr)
	}
	return auditEv
}

// auditStudies is the audit's evidence configuration without the
// composition-pair exploration (zero draws): the tests compare the lab with
// the base study's placements, which assay.Gather computes from the
// same configuration whether or not it also explores the compositions.
func auditStudies() assay.EvidenceConfig {
	cfg := paper.EvidenceConfig()
	cfg.Compositions.Draws = 0
	return cfg
}

// get sends a GET to path and returns the status and the raw answer.
func get(t *testing.T, h http.Handler, path string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("GET %s: content type %q, body %s", path, ct, rec.Body)
	}
	return rec.Code, rec.Body.Bytes()
}

// coverageAnswer is the part of a coverage report the tests read.
type coverageAnswer struct {
	Summary   coverage.Summary  `json:"summary"`
	Keys      []coverage.KeyRow `json:"keys"`
	Unvisited []coverage.KeyRow `json:"unvisited"`
}

// sessionCoverage returns the session's coverage report, decoded, and its
// JSON.
func sessionCoverage(t *testing.T, h http.Handler) (*coverageAnswer, []byte) {
	t.Helper()
	code, body := get(t, h, "/api/coverage")
	if code != http.StatusOK {
		t.Fatalf("GET /api/coverage: %d %s", code, body)
	}
	var r coverageAnswer
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("GET /api/coverage: %v\n%s", err, body)
	}
	return &r, body
}

// reportJSON is the JSON of the coverage report of a tracker's data, as
// "faultline coverage report --format json" prints it.
func reportJSON(t *testing.T, tr *coverage.Tracker) string {
	t.Helper()
	var b bytes.Buffer
	opts := coverage.ReportOptions{Replay: map[string]string{"": "faultline replay %s"}}
	if err := coverage.NewReport(coverage.Default(), tr.Data(), opts).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return compact(t, b.Bytes())
}

// TestEnvelopeEqualsAudit: for the audit's setting of each profile (the
// request defaults: fault all, 2000 trials, seed 188), the envelope of the
// answer is the placement "faultline audit" prints for that profile, every
// check and reason included; and a run without idempotency and effect
// readback is an unsafe escape for its duplicate effects.
func TestEnvelopeEqualsAudit(t *testing.T) {
	if raceDetector {
		t.Skip("computes the whole audit in one goroutine to compare it with the lab's: go test ./... runs it in full")
	}
	ev := auditEvidence(t)
	h := lab.New(lab.Options{})
	wantRegion := map[copperfin.Profile]assay.Region{
		copperfin.ProfileBaseline: assay.RegionUnsafeEscape, copperfin.ProfileTyped: assay.RegionContainedButDead,
		copperfin.ProfileFailClosed: assay.RegionContainedButDead,
	}
	for _, p := range copperfin.Profiles {
		code, ans := post(t, h, "/api/assay", `{"profile":"`+string(p)+`"}`)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", p, code, ans["error"])
		}
		var audit *assay.Placement
		for i, pl := range ev.Base.Placements {
			if pl.Profile == string(p) && pl.Config == "all" {
				audit = &ev.Base.Placements[i]
			}
		}
		if audit == nil {
			t.Fatalf("the audit places no %s", p)
		}
		var want bytes.Buffer
		paper.Encode(&want, audit)
		if got, w := compact(t, ans["envelope"]), compact(t, want.Bytes()); got != w {
			t.Errorf("%s: envelope differs from the audit's placement:\n got %s\nwant %s", p, got, w)
		}
		var got assay.Placement
		json.Unmarshal(ans["envelope"], &got)
		if got.Region != wantRegion[p] || got.Trials != 2000 || got.Decision != wantRegion[p].Decision() {
			t.Errorf("%s: region %q (%s) over %d trials, want %q", p, got.Region, got.Decision, got.Trials, wantRegion[p])
		}
	}
	code, ans := post(t, h, "/api/assay", `{"controls":["bind_identity","pre_effect_authority","refresh_context","state_precondition","evidence_gate"]}`)
	if code != http.StatusOK {
		t.Fatalf("counterfactual: %d %s", code, ans["error"])
	}
	var pl assay.Placement
	json.Unmarshal(ans["envelope"], &pl)
	found := false
	for _, r := range pl.Reasons {
		found = found || strings.HasPrefix(r, "hard invariant zero duplicate effect failed: ")
	}
	if pl.Region != assay.RegionUnsafeEscape || pl.Profile != "custom" || !found {
		t.Errorf("without idempotency and effect_readback: region %q, profile %q, reasons %q; want an unsafe escape for duplicate effects", pl.Region, pl.Profile, pl.Reasons)
	}
}

// TestCoverageEqualsTracker: the session's coverage after assay runs is,
// byte for byte, the report of a tracker fed the same trials through
// assay.Config.Observe; a refused request adds nothing; a reset empties it.
func TestCoverageEqualsTracker(t *testing.T) {
	h := lab.New(lab.Options{})
	empty := referenceTracker(t)
	if _, body := sessionCoverage(t, h); compact(t, body) != reportJSON(t, empty) {
		t.Fatalf("a new session's coverage is not empty:\n%s", body)
	}
	baseline, _ := copperfin.ProfileControls(copperfin.ProfileBaseline)
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	want := referenceTracker(t)
	for _, c := range []struct {
		body string
		cfg  assay.Config
	}{
		{`{"profile":"baseline","trials":500,"seed":3}`, assay.Config{Profile: "baseline", System: copperfin.ConfigOfControls(baseline).System, Trials: 500, Seed: 3}},
		{`{"fault":"state","mode":"checkpoint_rollback","trials":40}`, assay.Config{Profile: "typed", System: copperfin.ConfigOfControls(typed).System, Domains: []model.Domain{model.Domain("state")}, Kinds: []string{"checkpoint_rollback"}, Trials: 40, Seed: 188}},
	} {
		if code, ans := post(t, h, "/api/assay", c.body); code != http.StatusOK {
			t.Fatalf("%s: %d %s", c.body, code, ans["error"])
		}
		c.cfg.Observe = want.Record
		if _, err := assay.Run(copperfin.Definition(), c.cfg); err != nil {
			t.Fatal(err)
		}
	}
	if code, _ := post(t, h, "/api/assay", `{"trials":0}`); code != http.StatusBadRequest {
		t.Fatalf("0 trials: %d", code)
	}
	r, body := sessionCoverage(t, h)
	if got, w := compact(t, body), reportJSON(t, want); got != w {
		t.Errorf("session coverage differs from a tracker fed the same trials:\n got %s\nwant %s", got, w)
	}
	// the baseline makes no state read and no readback after a commit, so
	// its 19 trials of the two kinds of reads that lag reach no fault
	if r.Summary.Runs != 540 || r.Summary.Visits != 521 || r.Summary.FaultsNotReached != 19 || r.Summary.Reachable != 40 || r.Summary.Visited == 0 || r.Summary.Visited > 21 {
		t.Errorf("summary %+v: want 540 runs, 521 visits over 40 reachable keys (21 of them the catalogue kinds' own)", r.Summary)
	}
	if code, body := postRaw(t, h, "/api/coverage/reset", ""); code != http.StatusOK || compact(t, body) != reportJSON(t, empty) {
		t.Errorf("reset: %d %s", code, body)
	}
	if _, body := sessionCoverage(t, h); compact(t, body) != reportJSON(t, empty) {
		t.Errorf("coverage after a reset is not empty:\n%s", body)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/coverage", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/coverage: %d", rec.Code)
	}
}

// postRaw sends body to path and returns the status and the raw answer.
func postRaw(t *testing.T, h http.Handler, path, body string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, jsonRequest(path, body))
	return rec.Code, rec.Body.Bytes()
}

// TestReplayCoverage: a replayed schedule whose fault is never reached
// counts as scheduled, not reached, never as a visit; a reached one visits
// its key; a world event, which has no key, is not counted and the answer
// says why. The session equals a tracker fed the same replays.
func TestReplayCoverage(t *testing.T) {
	h := lab.New(lab.Options{})
	want := referenceTracker(t)
	key := func(kind string) string {
		k, ok := coverage.Default().KindKey(kind)
		if !ok {
			t.Fatalf("no key for %s", kind)
		}
		return k.String()
	}
	replay := func(body string) lab.ReplayResponse {
		t.Helper()
		code, raw := postRaw(t, h, "/api/replay", body)
		if code != http.StatusOK {
			t.Fatalf("replay: %d %s", code, raw)
		}
		var ans lab.ReplayResponse
		if err := json.Unmarshal(raw, &ans); err != nil {
			t.Fatal(err)
		}
		s, err := model.ParseSchedule([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		res, err := copperfin.Definition().Replay(s)
		if err != nil {
			t.Fatal(err)
		}
		want.Record(res) // a world event is refused here too
		return ans
	}
	tac := key("timeout_after_commit")

	// 1. the fault is scheduled for the ninth commit, which never happens
	ans := replay(`{"version":1,"seed":"late","config":{"profile":"baseline"},"faults":[{"event":"tool.commit","ordinal":9,"kind":"timeout_after_commit"}]}`)
	if ans.Result.Faults[0].Reached {
		t.Fatal("the ninth commit was reached; the test needs an unreachable occurrence")
	}
	rc := ans.Coverage
	if !rc.Recorded || len(rc.Keys) != 1 || rc.Keys[0].Key != tac || rc.Keys[0].Visited || rc.Keys[0].Status != coverage.StatusNotReached ||
		!strings.HasPrefix(rc.Keys[0].Reason, "scheduled 1 time, but its event never occurred (") {
		t.Errorf("unreached replay's coverage: %+v", rc)
	}
	r, _ := sessionCoverage(t, h)
	s := r.Summary
	if s.Runs != 1 || s.Visited != 0 || s.Visits != 0 || s.FaultsNotReached != 1 || s.NotReached != 1 {
		t.Errorf("after an unreached replay: %+v; want 1 run, 0 visited, 1 fault not reached", s)
	}
	unvisited := false
	for _, k := range r.Unvisited {
		unvisited = unvisited || (k.Key == tac && k.Status == coverage.StatusNotReached)
	}
	if !unvisited {
		t.Errorf("%s is not listed as scheduled, not reached: %+v", tac, r.Unvisited)
	}

	// 2. the corpus's reached timeout after commit visits and breaks its key
	data, err := os.ReadFile("../corpus/timeout-after-commit.json")
	if err != nil {
		t.Fatal(err)
	}
	rc = replay(string(data)).Coverage
	if !rc.Recorded || len(rc.Keys) != 1 || !rc.Keys[0].Visited || rc.Keys[0].Status != coverage.StatusViolated {
		t.Errorf("reached replay's coverage: %+v", rc)
	}

	// 3. a world event has no coverage key: the run counts, no key does
	rc = replay(`{"version":1,"seed":"w","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"clock_advance"}]}`).Coverage
	if !rc.Recorded || rc.Reason != "counted as a run; its world events have no coverage key" || len(rc.Keys) != 0 {
		t.Errorf("world event's coverage: %+v", rc)
	}

	r, body := sessionCoverage(t, h)
	if got, w := compact(t, body), reportJSON(t, want); got != w {
		t.Errorf("session coverage differs from a tracker fed the same replays:\n got %s\nwant %s", got, w)
	}
	if s := r.Summary; s.Runs != 3 || s.Visited != 1 || s.Violated != 1 || s.Visits != 1 || s.FaultsNotReached != 1 {
		t.Errorf("after the three replays: %+v; want 3 runs, 1 key visited and violated", s)
	}
}

// referenceTracker returns an empty coverage tracker of the reference
// system's runs, as the lab's.
func referenceTracker(t *testing.T) *coverage.Tracker {
	t.Helper()
	tr, err := coverage.NewTracker(nil, copperfin.Definition())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
