package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/reference/lab"
)

func postLab(t *testing.T, url, body string) (int, map[string]json.RawMessage) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp.StatusCode, ans
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return c.String()
}

// TestLabAssayEqualsCLI: for each setting, the lab's figures equal the
// object "faultline assay --json" prints for the same flags, and the
// command line the lab shows is exactly those flags.
func TestLabAssayEqualsCLI(t *testing.T) {
	srv := httptest.NewServer(lab.New(lab.Options{}))
	defer srv.Close()
	cases := []struct {
		body string
		args []string
	}{
		{`{"profile":"typed","fault":"all","trials":2000,"seed":188}`,
			[]string{"assay", "--profile", "typed", "--fault", "all", "--trials", "2000", "--seed", "188"}},
		{`{"profile":"baseline","trials":2000,"seed":188}`,
			[]string{"assay", "--profile", "baseline", "--fault", "all", "--trials", "2000", "--seed", "188"}},
		{`{"controls":["bind_identity","pre_effect_authority","refresh_context","state_precondition","evidence_gate"]}`,
			[]string{"assay", "--controls", "bind_identity,pre_effect_authority,refresh_context,state_precondition,evidence_gate", "--fault", "all", "--trials", "2000", "--seed", "188"}},
		{`{"profile":"baseline","fault":"tool","trials":77,"seed":5,"compat":"paper188"}`,
			[]string{"assay", "--compat", "paper188", "--profile", "baseline", "--fault", "tool", "--trials", "77", "--seed", "5"}},
		{`{"profile":"fail_closed","fault":"state","trials":999,"seed":4294967295}`,
			[]string{"assay", "--profile", "fail_closed", "--fault", "state", "--trials", "999", "--seed", "4294967295"}},
		{`{"controls":[],"mode":"timeout_after_commit","trials":40,"seed":2}`,
			[]string{"assay", "--controls", "", "--fault", "all", "--mode", "timeout_after_commit", "--trials", "40", "--seed", "2"}},
		{`{"controls":["deny_on_warning","idempotency"],"fault":"context","mode":"stale_policy","trials":31,"seed":-9}`,
			[]string{"assay", "--controls", "idempotency,deny_on_warning", "--fault", "context", "--mode", "stale_policy", "--trials", "31", "--seed=-9"}},
	}
	for _, c := range cases {
		code, ans := postLab(t, srv.URL+"/api/assay", c.body)
		if code != http.StatusOK {
			t.Fatalf("%s: status %d %s", c.body, code, ans["error"])
		}
		var args []string
		json.Unmarshal(ans["args"], &args)
		if !reflect.DeepEqual(args, c.args) {
			t.Errorf("%s: lab args %q, want %q", c.body, args, c.args)
		}
		exit, out, stderr := runCLI(t, append(append([]string(nil), c.args...), "--json")...)
		if exit != 0 {
			t.Fatalf("%q: exit %d: %s", c.args, exit, stderr)
		}
		if got, want := compactJSON(t, ans["assay"]), compactJSON(t, []byte(out)); got != want {
			t.Errorf("%s: lab figures differ from faultline %s --json:\n lab %s\n cli %s", c.body, strings.Join(c.args, " "), got, want)
		}
	}
}

// TestLabReplayEqualsCLI: the viewer's result is the object
// "faultline replay FILE --json" prints, and held matches its exit code.
func TestLabReplayEqualsCLI(t *testing.T) {
	srv := httptest.NewServer(lab.New(lab.Options{}))
	defer srv.Close()
	base, err := os.ReadFile("../../reference/corpus/timeout-after-commit.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		string(base),
		strings.Replace(string(base), `"profile": "baseline"`, `"profile": "typed"`, 1),
		strings.Replace(string(base), `"ordinal": 1`, `"ordinal": 3`, 1),
		`{"version":1,"seed":"two","config":{"controls":["bind_identity"]},"faults":[{"event":"proposal","ordinal":1,"kind":"subject_swap"},{"id":"late","event":"evidence.receipt","ordinal":1,"kind":"drop_effect_receipt"}]}`,
	} {
		code, ans := postLab(t, srv.URL+"/api/replay", body)
		if code != http.StatusOK {
			t.Fatalf("status %d %s", code, ans["error"])
		}
		exit, out, stderr := runCLI(t, "replay", writeFile(t, body), "--json")
		if exit != 0 && exit != 1 && exit != 3 {
			t.Fatalf("replay exit %d: %s", exit, stderr)
		}
		if got, want := compactJSON(t, ans["record"]), compactJSON(t, []byte(out)); got != want {
			t.Errorf("lab replay differs from faultline replay --json:\n lab %s\n cli %s", got, want)
		}
		// held exactly when the CLI exits 0: a run that held every
		// invariant but left a scheduled fault unreached (3) is not held
		if held := string(ans["held"]) == "true"; held != (exit == 0) {
			t.Errorf("held %s, CLI exit %d", ans["held"], exit)
		}
	}
}

// TestLabReplayErrorsEqualCLI: a bad schedule gets the message
// "faultline replay" prints, without the file name.
func TestLabReplayErrorsEqualCLI(t *testing.T) {
	srv := httptest.NewServer(lab.New(lab.Options{}))
	defer srv.Close()
	good := `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`
	for _, body := range []string{
		``, `{"version":1,`, `{"version":1} x`, `{"version":1,"seed":"s" "config":{}}`,
		strings.Replace(good, "timeout_after_commit", "gremlin", 1),
		strings.Replace(good, "tool.commit", "tool.comit", 1),
		strings.Replace(good, `"seed"`, `"sed"`, 1),
		strings.Replace(good, `"ordinal":1`, `"ordinal":0`, 1),
		strings.Replace(good, `"config":{"profile":"typed"},`, "", 1),
		strings.Replace(good, `"typed"`, `"paranoid"`, 1),
		strings.Replace(good, `{"profile":"typed"}`, `{"profile":"typed","controls":[]}`, 1),
		strings.Replace(good, `"version":1`, `"version":2`, 1),
		strings.Replace(good, `"tool.commit"`, `"proposal"`, 1),
		strings.Replace(good, `"faults":[`, `"faults":[{"id":"a","event":"proposal","ordinal":1,"kind":"subject_swap"},{"id":"a",`, 1),
	} {
		code, ans := postLab(t, srv.URL+"/api/replay", body)
		var msg string
		json.Unmarshal(ans["error"], &msg)
		path := writeFile(t, body)
		exit, _, stderr := runCLI(t, "replay", path)
		want := strings.TrimSuffix(strings.TrimPrefix(stderr, "faultline: "+path+": "), "\n")
		if code != http.StatusBadRequest || exit != 2 || msg != want {
			t.Errorf("%q: lab %d %q; CLI exit %d %q", body, code, msg, exit, want)
		}
	}
}

func TestLabRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8188", ":8188", "192.0.2.7:8188", "[::]:8188", "lab.example:8188"} {
		code, _, stderr := runCLI(t, "lab", "--addr", addr)
		if code != 2 || !strings.Contains(stderr, "is not a loopback address") || !strings.Contains(stderr, "--allow-remote") {
			t.Errorf("--addr %s: exit %d, %q", addr, code, stderr)
		}
	}
	code, _, stderr := runCLI(t, "lab", "--addr", "8188")
	if code != 2 || !strings.Contains(stderr, `--addr "8188": address 8188: missing port in address`) {
		t.Errorf("--addr 8188: exit %d, %q", code, stderr)
	}
}

func TestLoopbackOnlyHost(t *testing.T) {
	h := loopbackOnly(lab.New(lab.Options{}))
	for host, want := range map[string]int{
		"127.0.0.1:8188": 200, "localhost:8188": 200, "[::1]:8188": 200, "LOCALHOST": 200, "127.1.2.3": 200,
		"attacker.example:8188": 403, "192.0.2.7:8188": 403, "": 403,
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
		}
	}
}

// syncBuffer is a writer safe to read while the command writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLabServesAndStopsOnInterrupt starts "faultline lab" on a free
// loopback port, fetches the page and runs an assay through it, then
// interrupts the process and requires a clean stop (exit 0).
func TestLabServesAndStopsOnInterrupt(t *testing.T) {
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"lab", "--addr", "127.0.0.1:0"}, &out, &errb) }()
	re := regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+/)`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == ""; {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("lab exited %d before serving: %s", code, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("lab did not start serving")
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(page, []byte("faultline lab")) {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	if code, ans := postLab(t, url+"api/assay", `{"trials":10}`); code != 200 {
		t.Fatalf("assay through the served lab: %d %s", code, ans["error"])
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(out.String(), "faultline lab: stopped") {
			t.Fatalf("after an interrupt: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("lab did not stop after an interrupt")
	}
	if _, err := http.Get(url); err == nil {
		t.Error("lab still answers after it stopped")
	}
}
