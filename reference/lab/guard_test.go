package lab_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline/faultline/reference/lab"
)

// TestCrossSiteRefused: a POST from another origin, or one a browser marks
// as cross-site or same-site, is refused 403 before it runs or resets
// anything; a POST not sent as application/json is refused 415; the lab's
// own page, and a client that is not a page (no Origin, no
// Sec-Fetch-Site), are answered.
func TestCrossSiteRefused(t *testing.T) {
	srv := httptest.NewServer(lab.New(lab.Options{}))
	defer srv.Close()
	own := srv.URL // http://127.0.0.1:PORT
	const js = "application/json"
	if code, msg := send(t, srv, "/api/assay", `{"trials":3}`, "Content-Type", js); code != http.StatusOK {
		t.Fatalf("plain POST: %d %q", code, msg)
	}
	refusals := []struct {
		path   string
		header []string
		code   int
		want   string
	}{
		{"/api/coverage/reset", []string{"Content-Type", js, "Origin", "http://evil.example"}, 403,
			`cross-site request refused: Origin "http://evil.example" is not the lab's own origin "` + own + `"`},
		{"/api/assay", []string{"Content-Type", js, "Origin", "http://evil.example"}, 403,
			`cross-site request refused: Origin "http://evil.example" is not the lab's own origin "` + own + `"`},
		{"/api/replay", []string{"Content-Type", js, "Origin", "null"}, 403,
			`cross-site request refused: Origin "null" is not the lab's own origin "` + own + `"`},
		{"/api/assay", []string{"Content-Type", js, "Origin", "http://localhost:1"}, 403,
			`cross-site request refused: Origin "http://localhost:1" is not the lab's own origin "` + own + `"`},
		{"/api/assay", []string{"Content-Type", js, "Origin", strings.Replace(own, "http:", "https:", 1)}, 403,
			`cross-site request refused: Origin "` + strings.Replace(own, "http:", "https:", 1) + `" is not the lab's own origin "` + own + `"`},
		{"/api/assay", []string{"Content-Type", js, "Origin", own + "/"}, 403,
			`cross-site request refused: Origin "` + own + `/" is not the lab's own origin "` + own + `"`},
		{"/api/coverage/reset", []string{"Content-Type", js, "Sec-Fetch-Site", "cross-site"}, 403,
			`cross-site request refused: Sec-Fetch-Site is "cross-site"; the lab answers a POST only from its own page (same-origin) or a request the user made directly (none)`},
		{"/api/assay", []string{"Content-Type", js, "Sec-Fetch-Site", "same-site", "Origin", own}, 403,
			`cross-site request refused: Sec-Fetch-Site is "same-site"; the lab answers a POST only from its own page (same-origin) or a request the user made directly (none)`},
		{"/api/coverage/reset", nil, 415, "Content-Type missing: a POST to the lab must be sent as application/json"},
		{"/api/assay", []string{"Content-Type", "text/plain"}, 415, `Content-Type "text/plain" refused: a POST to the lab must be sent as application/json`},
		{"/api/assay", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, `Content-Type "application/x-www-form-urlencoded" refused: a POST to the lab must be sent as application/json`},
		{"/api/replay", []string{"Content-Type", "multipart/form-data; boundary=x"}, 415, `Content-Type "multipart/form-data; boundary=x" refused: a POST to the lab must be sent as application/json`},
		{"/api/assay", []string{"Content-Type", "application/jsonp"}, 415, `Content-Type "application/jsonp" refused: a POST to the lab must be sent as application/json`},
	}
	for _, c := range refusals {
		body := `{"trials":200000}`
		if c.path == "/api/coverage/reset" {
			body = ""
		}
		code, msg := send(t, srv, c.path, body, c.header...)
		if code != c.code || msg != c.want {
			t.Errorf("POST %s %v: %d %q\nwant %d %q", c.path, c.header, code, msg, c.code, c.want)
		}
	}
	// nothing was reset and nothing ran
	if n := sessionRuns(t, srv); n != 3 {
		t.Fatalf("after refused requests the session counts %d runs; want the 3 of the first run", n)
	}
	for _, h := range [][]string{
		{"Content-Type", js, "Origin", own, "Sec-Fetch-Site", "same-origin"},
		{"Content-Type", "application/json; charset=utf-8", "Origin", strings.ToUpper(own)},
		{"Content-Type", "Application/JSON", "Sec-Fetch-Site", "none"},
	} {
		if code, msg := send(t, srv, "/api/assay", `{"trials":1}`, h...); code != http.StatusOK {
			t.Errorf("POST /api/assay %v: %d %q, want 200", h, code, msg)
		}
	}
	if code, msg := send(t, srv, "/api/coverage/reset", `{}`, "Content-Type", js, "Origin", own, "Sec-Fetch-Site", "same-origin"); code != http.StatusOK || sessionRuns(t, srv) != 0 {
		t.Errorf("reset from the lab's own page: %d %q", code, msg)
	}
	// a preflight is never granted
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/api/assay", nil)
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight: %d, Access-Control-Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}
