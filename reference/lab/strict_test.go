package lab_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline/faultline/reference/lab"
)

// send POSTs body to srv's path with the headers given (name, value, ...)
// and returns the status and the error message of the answer.
func send(t *testing.T, srv *httptest.Server, path, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var ans struct{ Error string }
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(data, &ans); err != nil || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("POST %s: %d %q, not a JSON error", path, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, ans.Error
}

// sessionRuns is the number of runs the session's coverage counts.
func sessionRuns(t *testing.T, srv *httptest.Server) int {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/api/coverage")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct{ Summary struct{ Runs int } }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r.Summary.Runs
}

// TestStrictRequestKeys: what encoding/json would let through is a 400
// that names the problem, and nothing runs: a duplicated key (the last
// would win), a key in the wrong case, a null body, a null value; the
// reset's optional body is as strict.
func TestStrictRequestKeys(t *testing.T) {
	srv := httptest.NewServer(lab.New(lab.Options{}))
	defer srv.Close()
	cases := []struct{ path, body, want string }{
		{"/api/assay", `{"trials":1,"trials":200000}`, `request: duplicated key "trials": give each field once`},
		{"/api/assay", `{"profile":"typed","seed":4,"profile":"baseline"}`, `request: duplicated key "profile": give each field once`},
		{"/api/assay", `{"Trials":200000}`, `request: key "Trials" is in the wrong case: the field is "trials"`},
		{"/api/assay", `{"trials":1,"TRIALS":2}`, `request: key "TRIALS" is in the wrong case: the field is "trials"`},
		{"/api/assay", `{"Mode":"rate_limit"}`, `request: key "Mode" is in the wrong case: the field is "mode"`},
		{"/api/assay", `null`, `request: the body is null: want a JSON object`},
		{"/api/assay", " null\n", `request: the body is null: want a JSON object`},
		{"/api/assay", `{"trials":null}`, `request: field "trials" is null: give a value, or omit the field for its default`},
		{"/api/assay", `{"controls":null}`, `request: field "controls" is null: give a value, or omit the field for its default`},
		{"/api/assay", `{"mode":null}`, `request: field "mode" is null: give a value, or omit the field for its default`},
		{"/api/coverage/reset", `null`, `request: the body is null: want a JSON object`},
		{"/api/coverage/reset", `{"all":true}`, `request: unknown field "all"`},
		{"/api/coverage/reset", `{} x`, `request: trailing data after the JSON object`},
		{"/api/assay", "\ufeff{\"trials\":1}", `request: the body starts with a UTF-8 byte-order mark; send it without one`},
	}
	for _, c := range cases {
		code, msg := send(t, srv, c.path, c.body, "Content-Type", "application/json")
		if code != http.StatusBadRequest || msg != c.want {
			t.Errorf("POST %s %q: %d %q\nwant 400 %q", c.path, c.body, code, msg, c.want)
		}
	}
	if n := sessionRuns(t, srv); n != 0 {
		t.Fatalf("refused requests ran: the session counts %d runs", n)
	}
	if code, msg := send(t, srv, "/api/assay", `{"trials":2,"seed":7,"profile":"typed","fault":"all","mode":"","compat":""}`, "Content-Type", "application/json"); code != http.StatusOK || sessionRuns(t, srv) != 2 {
		t.Fatalf("every field once, in its case: %d %q", code, msg)
	}
}
