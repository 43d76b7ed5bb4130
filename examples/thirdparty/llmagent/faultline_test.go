package llmagent_test

// The whole glue (docs/llm-agents.md shows it, and TestGlueLines counts
// it): the fake refund API, the System that joins the agent's one
// *http.Client to the run, and its Definition. The scripted model is
// package scriptedmodel's.

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/faultline/faultline/examples/thirdparty/llmagent"
	"github.com/faultline/faultline/examples/thirdparty/scriptedmodel"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// refunds is the refund API: a refund per new Idempotency-Key, the first
// again for a key it has seen. Its rows are the store the oracle reads.
type refunds struct {
	mu   sync.Mutex
	rows []model.LedgerEntry
}

func (f *refunds) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var in struct{ Order, Tenant, Actor, Purpose string }
	json.NewDecoder(r.Body).Decode(&in)
	key, row := r.Header.Get("Idempotency-Key"), len(f.rows)
	for row > 0 && f.rows[row-1].Key != key {
		row--
	}
	if row == 0 {
		f.rows = append(f.rows, model.LedgerEntry{Tool: "refund", Key: key, ActionRef: key, Subject: in.Order, Tenant: in.Tenant,
			Actor: in.Actor, Purpose: in.Purpose, ReceiptID: "re_" + strconv.Itoa(len(f.rows)+1)})
		row = len(f.rows)
	}
	json.NewEncoder(w).Encode(map[string]string{"id": f.rows[row-1].ReceiptID})
}

func (f *refunds) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]model.LedgerEntry(nil), f.rows...), nil
}

// agent is one run's System: both APIs behind one joined transport.
type agent struct {
	*refunds
	llm *scriptedmodel.Model
	bug string
}

var rules, _ = httpfault.Rules(httpfault.Rule{Method: "POST", Path: "/v1/messages", Class: httpfault.Commit, Tool: "model"},
	httpfault.Rule{Method: "POST", Path: "/v1/refunds", Class: httpfault.Commit, Tool: "refund"})

func (s agent) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	mux := http.NewServeMux()
	mux.Handle("/v1/messages", s.llm)
	mux.Handle("/v1/refunds", s.refunds)
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(mux), httpfault.JoinOptions{Classify: rules,
		Result: scriptedmodel.Result, Render: httpfault.AnthropicOverloaded})
	if err != nil {
		return model.Claim{}, err
	}
	a := llmagent.Agent{BaseURL: "http://127.0.0.1/", APIKey: "sk-ant-scripted", RefundsURL: "http://127.0.0.1/v1/refunds",
		HTTP: &http.Client{Transport: s.llm.Transport(env.Calls, tr)}, Bug: s.bug}
	id, err := a.Refund(ctx, llmagent.Task{ID: t.ID, Actor: t.Actor, Order: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose})
	if err != nil {
		return model.Claim{Verdict: model.ClaimHold, Reason: err.Error()}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "refunded " + id}, nil
}

// definition: the config's system part {"bug": ...} plants one bug.
func definition() *model.Definition {
	task := model.Task{ID: "T-1", Actor: "agent", Subject: "O-731", Tenant: "acme", Purpose: "refund"}
	return &model.Definition{Name: "llm_refunds", Fixtures: []model.Fixture{{Name: "refunds", Tasks: []model.Task{task}}},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			var c struct{ Bug string }
			err := json.Unmarshal(system, &c)
			llm := &scriptedmodel.Model{Tool: "refund", Field: "order", Tasks: []model.Task{task}, Decoys: map[string][]string{"acme": {"O-732"}}}
			w := &refunds{}
			return func() model.System { return agent{w, llm, c.Bug} }, err
		},
		Builtin: []string{model.InvRightSubject, model.InvEffectAtMostOnce, model.InvBudget}, Clock: properties.BubbleClock}
}
