package httpfault_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// keylessDefinition is a payer that sends its charges without an
// idempotency key and retries an unknown outcome, through the joined
// transport, with httpfault.KeyFromBody in front of it when derive.
func keylessDefinition(derive bool) *model.Definition {
	def := payDefinition(jpayer{retries: 2, noKey: true})
	def.Configure = func(json.RawMessage) (model.Factory, error) {
		p := &jpayments{}
		return func() model.System {
			return paySystem{p: p, cfg: jpayer{retries: 2, noKey: true}, keyFromBody: derive}
		}, nil
	}
	return def
}

// TestKeylessClientIsTested: a client that sends no idempotency key is
// explored, not refused: the exhaustive walk finds its duplicate charge
// after a lost reply, and the counterexample and its timeline say the
// charge went without a key; the same client behind KeyFromBody holds.
func TestKeylessClientIsTested(t *testing.T) {
	walk := func(derive bool) *properties.ExhaustiveReport {
		def := keylessDefinition(derive)
		def.Clock = nil // no run of this walk sleeps
		rep, err := properties.Explore(def, properties.WithExhaustive(), properties.WithMaxFaults(1),
			properties.WithKinds("timeout_after_commit"), properties.WithoutWorldEvents())
		if err != nil {
			t.Fatal(err)
		}
		return rep.Exhaustive
	}
	rep := walk(false)
	cx := rep.Counterexample
	if !rep.Found || cx.Invariant != model.InvEffectAtMostOnce || cx.FaultKind != "timeout_after_commit" || cx.FirstSeq != 3 ||
		cx.Detail != "second ledger effect for task ref-3295c79a, sent without an idempotency key" { // inv-1, redacted
		t.Fatalf("keyless: report %+v, counterexample %+v", rep, cx)
	}
	var details []string
	for _, e := range cx.Timeline {
		if e.Event == model.EvToolCommit {
			details = append(details, e.Outcome+": "+e.Detail)
		}
	}
	if got := strings.Join(details, " | "); got != "unknown: charge sent without an idempotency key, replayed false receipt false | committed: charge sent without an idempotency key, replayed false receipt true" {
		t.Fatalf("keyless commits in the timeline: %s", got)
	}
	if rep := walk(true); rep.Found || rep.Schedules != 4 || rep.Fired != 3 {
		t.Fatalf("with KeyFromBody: %+v", rep)
	}
}

// TestKeyFromBody: the derived key is the same for the same method, path
// and body, differs otherwise, and a key the client set is kept.
func TestKeyFromBody(t *testing.T) {
	var got []string
	rt := httpfault.KeyFromBody(roundTrip(func(r *http.Request) (*http.Response, error) {
		got = append(got, r.Header.Get("Idempotency-Key"))
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	for _, tc := range []struct{ method, url, body, key string }{
		{"POST", "http://127.0.0.1/charges", `{"amount":1}`, ""},
		{"POST", "http://127.0.0.1/charges?x=1", `{"amount":1}`, ""},
		{"POST", "http://127.0.0.1/charges", `{"amount":2}`, ""},
		{"PUT", "http://127.0.0.1/charges", `{"amount":1}`, ""},
		{"POST", "http://127.0.0.1/charges", `{"amount":1}`, "mine"},
		{"GET", "http://127.0.0.1/charges", ``, ""},
	} {
		req, _ := http.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
		if tc.body == "" {
			req.Body = http.NoBody
		}
		if tc.key != "" {
			req.Header.Set("Idempotency-Key", tc.key)
		}
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if req.Header.Get("Idempotency-Key") != tc.key {
			t.Fatalf("the client's request was changed: %v", req.Header)
		}
	}
	if len(got) != 6 || !strings.HasPrefix(got[0], "body-") || len(got[0]) != 37 || got[1] != got[0] ||
		got[2] == got[0] || got[3] == got[0] || got[3] == got[2] || got[4] != "mine" || got[5] != "" {
		t.Fatalf("keys %q", got)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
