package lab

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRunTimeBound: a run that outlasts the time bound is answered 503 and
// keeps its slot until it ends, so a second request meanwhile is answered
// 503 as busy; once the slot is free, runs succeed again. Only answered
// runs count in the session's coverage.
func TestRunTimeBound(t *testing.T) {
	s := New(Options{Timeout: time.Millisecond})
	ask := func(body string) (int, string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/api/assay", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(rec, req)
		var ans struct{ Error string }
		json.Unmarshal(rec.Body.Bytes(), &ans)
		return rec.Code, ans.Error
	}
	// 20,000 trials take tens of milliseconds at least: far over 1 ms.
	code, msg := ask(`{"trials":20000}`)
	if code != http.StatusServiceUnavailable || msg != "the run exceeded the time bound of 1ms; ask for fewer trials" {
		t.Fatalf("long run: %d %q", code, msg)
	}
	code, msg = ask(`{"trials":1}`)
	if code != http.StatusServiceUnavailable || msg != "another run is still in progress; try again when it has finished" {
		t.Fatalf("run during a run: %d %q", code, msg)
	}
	// the late run ends by itself and frees its slot
	deadline := time.Now().Add(time.Minute)
	for len(s.slots) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the timed-out run never released its slot")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// the run no one was answered adds nothing to the session's coverage
	if n := s.coverageReport().Summary.Runs; n != 0 {
		t.Errorf("after a timed-out run and a refused one, the session's coverage counts %d runs; want 0", n)
	}
	s.opts.Timeout = time.Minute
	if code, msg = ask(`{"trials":1}`); code != http.StatusOK {
		t.Fatalf("after the slot was freed: %d %q", code, msg)
	}
	if n := s.coverageReport().Summary.Runs; n != 1 {
		t.Errorf("after one answered trial, the session's coverage counts %d runs; want 1", n)
	}
}
