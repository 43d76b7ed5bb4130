package stripeagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/stripe/stripe-go/v82"

	"github.com/faultline/faultline/examples/thirdparty/stripeagent"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// fakeStripe is Stripe's refunds endpoint in process: POST /v1/refunds
// makes a refund under the request's Idempotency-Key, and a key it has
// seen replays the first answer (Idempotent-Replayed: true), as Stripe
// does. Its rows are the provider's own store, which the oracle reads.
type fakeStripe struct {
	mu   sync.Mutex
	rows []model.LedgerEntry
}

func (f *fakeStripe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/v1/refunds" || r.ParseForm() != nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","message":"Unrecognized request URL."}}`)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	amount, _ := strconv.ParseInt(r.PostForm.Get("amount"), 10, 64)
	for _, row := range f.rows {
		if row.Key == key {
			w.Header().Set("Idempotent-Replayed", "true")
			fmt.Fprint(w, refundJSON(row))
			return
		}
	}
	row := model.LedgerEntry{Tool: "refund", Key: key, ActionRef: key, Subject: r.PostForm.Get("charge"), Amount: amount,
		ReceiptID: "re_" + strconv.Itoa(len(f.rows)+1)}
	f.rows = append(f.rows, row)
	fmt.Fprint(w, refundJSON(row))
}

func refundJSON(row model.LedgerEntry) string {
	b, _ := json.Marshal(map[string]any{"id": row.ReceiptID, "object": "refund", "amount": row.Amount, "charge": row.Subject,
		"currency": "usd", "status": "succeeded"})
	return string(b)
}

func (f *fakeStripe) ledger() []model.LedgerEntry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]model.LedgerEntry(nil), f.rows...)
}

// stripeClient is a stripe-go client whose HTTP goes through rt, with its
// default retries and no log output.
func stripeClient(rt http.RoundTripper) *stripe.Client {
	b := stripe.GetBackendWithConfig(stripe.APIBackend, &stripe.BackendConfig{
		HTTPClient:    &http.Client{Transport: rt},
		URL:           stripe.String("http://127.0.0.1:8080"),
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	return stripe.NewClient("sk_test_faultline", stripe.WithBackends(&stripe.Backends{API: b, Connect: b, Uploads: b, MeterEvents: b}))
}

// refunds is the system under test: the agent over stripe-go over the
// joined transport, one per run; the fake Stripe is the run's durable
// state (Configure builds it).
type refunds struct {
	stripe  *fakeStripe
	planted bool
}

var refundRules, _ = httpfault.Rules(httpfault.Rule{Method: http.MethodPost, Path: "/v1/refunds", Class: httpfault.Commit, Tool: "refund"})

func (s refunds) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(s.stripe), httpfault.JoinOptions{
		Classify: refundRules, Receipt: "id", Render: httpfault.StripeError})
	if err != nil {
		return model.Claim{}, err
	}
	agent := stripeagent.Agent{Client: stripeClient(tr), Planted: s.planted}
	id, err := agent.Refund(ctx, task.ID, task.Subject, task.Amount)
	if err != nil {
		return model.Claim{Verdict: model.ClaimHold, Reason: err.Error()}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "refunded " + id, Receipt: id}, nil
}

func (s refunds) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.stripe.ledger(), nil
}

// definition describes the refund agent, planted or not, as production
// code (each run in a synctest bubble).
func definition(planted bool) *model.Definition {
	return &model.Definition{
		Name:     "stripe_refunds",
		Fixtures: []model.Fixture{{Name: "refunds", Tasks: []model.Task{{ID: "refund-ch_1", Actor: "agent", Subject: "ch_1", Tenant: "t", Purpose: "refund", Amount: 300}}}},
		Configure: func(json.RawMessage) (model.Factory, error) {
			f := &fakeStripe{}
			return func() model.System { return refunds{stripe: f, planted: planted} }, nil
		},
		Builtin: []string{model.InvEffectAtMostOnce},
		Clock:   properties.BubbleClock,
	}
}
