package lab_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
	"github.com/faultline/faultline/reference/lab"
	"github.com/faultline/faultline/reference/paper"
)

// jsonRequest is a POST of body to path as application/json, as the
// page sends it.
func jsonRequest(path, body string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return req
}

// post sends body to path and returns the status and the decoded answer.
func post(t *testing.T, h http.Handler, path, body string) (int, map[string]json.RawMessage) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, jsonRequest(path, body))
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("POST %s %s: content type %q, body %s", path, body, ct, rec.Body)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("POST %s %s: answer is not a JSON object: %v\n%s", path, body, err, rec.Body)
	}
	return rec.Code, out
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.String()
}

// TestAssayEqualsRun: the API's assay object is, byte for byte (after
// compaction), the report of assay.Run for the same settings, and the
// command line names those settings.
func TestAssayEqualsRun(t *testing.T) {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	failClosed, _ := copperfin.ProfileControls(copperfin.ProfileFailClosed)
	cases := []struct {
		body    string
		cfg     assay.Config
		command string
	}{
		{`{}`, assay.Config{Profile: "typed", System: copperfin.ConfigOfControls(typed).System, Trials: 2000, Seed: 188},
			"faultline assay --profile typed --fault all --trials 2000 --seed 188"},
		{`{"profile":"baseline","fault":"tool","trials":77,"seed":5,"compat":"paper188"}`,
			assay.Config{Profile: "baseline", System: copperfin.ConfigOfControls(0).System, Domains: []model.Domain{model.Domain("tool")}, Trials: 77, Seed: 5, Compat: true},
			"faultline assay --compat paper188 --profile baseline --fault tool --trials 77 --seed 5"},
		{`{"controls":["evidence_gate","bind_identity","pre_effect_authority","refresh_context","state_precondition"],"trials":1234,"seed":7}`,
			assay.Config{Profile: "custom", System: copperfin.ConfigOfControls(typed.Without(copperfin.Idempotency).Without(copperfin.EffectReadback)).System, Trials: 1234, Seed: 7},
			"faultline assay --controls bind_identity,pre_effect_authority,refresh_context,state_precondition,evidence_gate --fault all --trials 1234 --seed 7"},
		{`{"controls":[],"fault":"all","mode":"checkpoint_rollback","trials":50,"seed":0}`,
			assay.Config{Profile: "custom", System: copperfin.ConfigOfControls(0).System, Trials: 50, Seed: 0, Kinds: []string{"checkpoint_rollback"}},
			"faultline assay --controls '' --fault all --mode checkpoint_rollback --trials 50 --seed 0"},
		{`{"profile":"fail_closed","fault":"evidence","mode":"break_trace_lineage","trials":9,"seed":-3}`,
			assay.Config{Profile: "fail_closed", System: copperfin.ConfigOfControls(failClosed).System, Domains: []model.Domain{model.Domain("evidence")}, Trials: 9, Seed: -3, Kinds: []string{"break_trace_lineage"}},
			"faultline assay --profile fail_closed --fault evidence --mode break_trace_lineage --trials 9 --seed=-3"},
	}
	h := lab.New(lab.Options{})
	for _, c := range cases {
		code, ans := post(t, h, "/api/assay", c.body)
		if code != http.StatusOK {
			t.Fatalf("%s: status %d: %s", c.body, code, ans["error"])
		}
		rep, err := assay.Run(copperfin.Definition(), c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := paper.WriteJSON(&want, rep); err != nil {
			t.Fatal(err)
		}
		if got, w := compact(t, ans["assay"]), compact(t, want.Bytes()); got != w {
			t.Errorf("%s: assay object differs from assay.Run:\n got %s\nwant %s", c.body, got, w)
		}
		var command string
		json.Unmarshal(ans["command"], &command)
		if command != c.command {
			t.Errorf("%s: command %q, want %q", c.body, command, c.command)
		}
		var boundary string
		json.Unmarshal(ans["boundary"], &boundary)
		if boundary != paper.Boundary {
			t.Errorf("%s: boundary %q", c.body, boundary)
		}
	}
}

// TestBadInputIs400 sends each kind of bad input and requires a 400 whose
// message names the problem.
func TestBadInputIs400(t *testing.T) {
	h := lab.New(lab.Options{})
	cases := []struct{ path, body, want string }{
		{"/api/assay", ``, "empty body"},
		{"/api/assay", `{"trials":`, "truncated JSON"},
		{"/api/assay", `{"trials" 5}`, "malformed JSON at byte"},
		{"/api/assay", `[1,2]`, "request: want a JSON object, got JSON array"},
		{"/api/assay", `{"trails":5}`, `unknown field "trails"`},
		{"/api/assay", `{} {}`, "trailing data"},
		{"/api/assay", `{"trials":"many"}`, `request: field "trials": want an integer, got JSON string`},
		{"/api/assay", `{"trials":2.5}`, `request: field "trials": want an integer, got JSON number`},
		{"/api/assay", `{"seed":"x"}`, `request: field "seed": want an integer, got JSON string`},
		{"/api/assay", `{"controls":"typed"}`, `request: field "controls": want a list of strings, got JSON string`},
		{"/api/assay", `{"profile":3}`, `request: field "profile": want a string, got JSON number`},
		{"/api/assay", `{"controls":["bind_identity","magic"]}`, `controls: unknown control "magic"`},
		{"/api/assay", `{"controls":["idempotency","idempotency"]}`, `control "idempotency" listed twice`},
		{"/api/assay", `{"profile":"paranoid"}`, `profile: unknown profile "paranoid"`},
		{"/api/assay", `{"profile":"typed","controls":[]}`, `give "profile" or "controls", not both`},
		{"/api/assay", `{"fault":"network"}`, `fault: unknown fault domain "network"`},
		{"/api/assay", `{"mode":"gremlin"}`, `mode: unknown fault kind "gremlin"`},
		{"/api/assay", `{"fault":"tool","mode":"stale_policy"}`, `mode: fault kind "stale_policy" is in domain context, not in the selected fault domain tool`},
		{"/api/assay", `{"compat":"paper1"}`, `compat: unknown compatibility target "paper1"`},
		{"/api/assay", `{"trials":0}`, "trials must be between 1 and 200000, got 0"},
		{"/api/assay", `{"trials":-4}`, "trials must be between 1 and 200000, got -4"},
		{"/api/assay", `{"trials":200001}`, "trials must be between 1 and 200000, got 200001"},
		{"/api/replay", ``, "schedule: empty input"},
		{"/api/replay", `{"version":1,`, "schedule: truncated JSON"},
		{"/api/replay", `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"gremlin"}]}`, `unknown fault kind "gremlin"`},
		{"/api/replay", `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":0,"kind":"timeout_after_commit"}]}`, "ordinal 0 must be 1 or more"},
		{"/api/replay", `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"proposal","ordinal":1,"kind":"timeout_after_commit"}]}`, `kind "timeout_after_commit" cannot be injected at event "proposal"`},
		{"/api/replay", `{"version":3,"seed":"s","config":{"profile":"typed"},"faults":[]}`, "unsupported version 3"},
		{"/api/replay", `{"version":1,"seed":"s","config":{"controls":["magic"]},"faults":[]}`, `unknown control "magic"`},
	}
	for _, c := range cases {
		code, ans := post(t, h, c.path, c.body)
		var msg string
		json.Unmarshal(ans["error"], &msg)
		if code != http.StatusBadRequest || !strings.Contains(msg, c.want) {
			t.Errorf("POST %s %q: status %d, error %q; want 400 naming %q", c.path, c.body, code, msg, c.want)
		}
	}
}

// TestBounds: the trial bound and the body bound are the server's options.
func TestBounds(t *testing.T) {
	h := lab.New(lab.Options{MaxTrials: 10, MaxBodyBytes: 64})
	code, ans := post(t, h, "/api/assay", `{"trials":10}`)
	if code != http.StatusOK {
		t.Fatalf("10 trials under a bound of 10: status %d %s", code, ans["error"])
	}
	code, ans = post(t, h, "/api/assay", `{"trials":11}`)
	if code != http.StatusBadRequest || !strings.Contains(string(ans["error"]), "trials must be between 1 and 10, got 11") {
		t.Errorf("11 trials under a bound of 10: status %d %s", code, ans["error"])
	}
	big := `{"trials":1,"seed":188` + strings.Repeat(" ", 64) + `}`
	for _, path := range []string{"/api/assay", "/api/replay"} {
		code, ans = post(t, h, path, big)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(ans["error"]), "request body exceeds the limit of 64 bytes") {
			t.Errorf("%s with %d bytes under a bound of 64: status %d %s", path, len(big), code, ans["error"])
		}
	}
	if lab.MaxTrials != 200000 || lab.MaxBodyBytes != 1<<20 {
		t.Errorf("documented bounds changed: %d trials, %d bytes", lab.MaxTrials, lab.MaxBodyBytes)
	}
}

// TestReplayEqualsReplay: the viewer's result is the result of
// copperfin.Definition().Replay, the run behind faultline replay.
func TestReplayEqualsReplay(t *testing.T) {
	data, err := os.ReadFile("../corpus/timeout-after-commit.json")
	if err != nil {
		t.Fatal(err)
	}
	h := lab.New(lab.Options{})
	for _, body := range []string{string(data), strings.Replace(string(data), `"baseline"`, `"typed"`, 1)} {
		code, ans := post(t, h, "/api/replay", body)
		if code != http.StatusOK {
			t.Fatalf("status %d %s", code, ans["error"])
		}
		s, err := model.ParseSchedule([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		res, err := copperfin.Definition().Replay(s)
		if err != nil {
			t.Fatal(err)
		}
		var want, wantResult bytes.Buffer
		paper.Encode(&want, res.Record())
		if got, w := compact(t, ans["record"]), compact(t, want.Bytes()); got != w {
			t.Errorf("replay record differs:\n got %s\nwant %s", got, w)
		}
		paper.Encode(&wantResult, res)
		if got, w := compact(t, ans["result"]), compact(t, wantResult.Bytes()); got != w {
			t.Errorf("replay result differs:\n got %s\nwant %s", got, w)
		}
		if string(ans["held"]) != map[bool]string{true: "true", false: "false"}[res.Err() == nil] {
			t.Errorf("held %s, want %t", ans["held"], res.Err() == nil)
		}
	}
	// a fault the run never reaches: every invariant holds, but the run
	// tested nothing at it, so it is not held
	unreached := strings.Replace(string(data), `"baseline"`, `"typed"`, 1)
	s, err := model.ParseSchedule([]byte(unreached))
	if err != nil {
		t.Fatal(err)
	}
	s.Faults = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 50, Kind: "timeout_after_commit"}}
	code, ans := post(t, h, "/api/replay", string(model.Format(s)))
	if code != http.StatusOK || string(ans["held"]) != "false" {
		t.Fatalf("a never reached fault: status %d, held %s", code, ans["held"])
	}
}

// TestPage: the page is one self-contained response: its script and style
// are inline and allowed by hash, nothing names another host, and every
// control, profile, domain and mode is on it.
func TestPage(t *testing.T) {
	h := lab.New(lab.Options{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	page := rec.Body.String()
	csp := rec.Header().Get("Content-Security-Policy")
	if !strings.HasPrefix(csp, "default-src 'none'; ") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	for _, tag := range []string{"script", "style"} {
		m := regexp.MustCompile(`(?s)<`+tag+`>(.*?)</`+tag+`>`).FindAllStringSubmatch(page, -1)
		if len(m) != 1 {
			t.Fatalf("want one inline <%s>, found %d", tag, len(m))
		}
		sum := sha256.Sum256([]byte(m[0][1]))
		if src := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, tag+"-src "+src) {
			t.Errorf("CSP %q does not allow the inline %s (%s)", csp, tag, src)
		}
	}
	// the only address on the page is the SVG namespace, which is not fetched
	addrs := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^"'\s]*`).FindAllString(page, -1)
	for _, a := range addrs {
		if a != "http://www.w3.org/2000/svg" {
			t.Errorf("page names another host: %s", a)
		}
	}
	for _, bad := range []string{" src=", "<link rel=\"stylesheet", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page loads something: %q", bad)
		}
	}
	var want []string
	for _, c := range copperfin.AllControls {
		if c == copperfin.NoticeReconcile {
			continue
		}
		want = append(want, `value="`+string(c)+`"`)
	}
	// the lab's runs send no notices: notice_reconcile has no box
	if strings.Contains(page, `value="`+string(copperfin.NoticeReconcile)+`"`) {
		t.Errorf("page offers %s", copperfin.NoticeReconcile)
	}
	for _, p := range copperfin.Profiles {
		want = append(want, `data-profile="`+string(p)+`"`)
	}
	for _, s := range model.Catalogue() {
		want = append(want, `value="`+string(s.Domain)+`/`+s.Kind+`"`, `<option value="`+string(s.Domain)+`">`)
	}
	want = append(want, `max="200000"`, `id="envelope-figure"`, `id="heatmaps"`, paper.Interpretation["cannot_establish"])
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %s", w)
		}
	}
	for _, c := range []struct {
		method, path string
		code         int
	}{{"GET", "/nope", 404}, {"GET", "/api/assay", 405}, {"POST", "/", 405}} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, rec.Code, c.code)
		}
	}
}

// TestResponseShapes: the documented fields, and nothing else.
func TestResponseShapes(t *testing.T) {
	h := lab.New(lab.Options{})
	_, ans := post(t, h, "/api/assay", `{"trials":3}`)
	var keys []string
	for k := range ans {
		keys = append(keys, k)
	}
	if want := []string{"args", "assay", "boundary", "command", "envelope"}; !sameSet(keys, want) {
		t.Errorf("assay answer keys %v, want %v", keys, want)
	}
	var args []string
	json.Unmarshal(ans["args"], &args)
	if want := []string{"assay", "--profile", "typed", "--fault", "all", "--trials", "3", "--seed", "188"}; !reflect.DeepEqual(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
