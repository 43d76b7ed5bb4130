package llmagent_test

// The whole glue (docs/llm-agents.md shows it; TestGlueLines counts it):
// the run's world (the fake refund API and the agent's journal), the
// System that gives the agent one *http.Client joined to the run, and its
// Definition. The model is scriptedmodel's.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/faultline/faultline/examples/thirdparty/llmagent"
	"github.com/faultline/faultline/examples/thirdparty/scriptedmodel"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// world is one run's world, which the worker's restarts share, and its
// System. It serves the refund API: a refund per new Idempotency-Key, at
// the order's version the request expects, the first again for a key it
// has seen; its rows are the store the oracle reads (a run's requests come
// one at a time, each before the harness reads). spent is the agent's
// journal (llmagent.Journal): the requests it sent per task.
type world struct {
	rows          []model.LedgerEntry
	spent         map[string]int
	llm           *scriptedmodel.Model
	bug, provider string
}

func (f *world) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in llmagent.RefundRequest
	json.NewDecoder(r.Body).Decode(&in)
	key := r.Header.Get("Idempotency-Key")
	i := slices.IndexFunc(f.rows, func(e model.LedgerEntry) bool { return e.Key == key })
	if i < 0 {
		i, f.rows = len(f.rows), append(f.rows, model.LedgerEntry{Tool: "refund", Key: key, ActionRef: key, Subject: in.Order,
			Tenant: in.Tenant, Actor: in.Actor, Purpose: in.Purpose, ExpectedVersion: in.Version, ReceiptID: fmt.Sprint("re_", len(f.rows)+1)})
	}
	json.NewEncoder(w).Encode(map[string]string{"id": f.rows[i].ReceiptID})
}

func (f *world) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return slices.Clone(f.rows), nil
}

func (f *world) Spend(task string, n int) (int, error) { f.spent[task] += n; return f.spent[task], nil }

func (f *world) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	hc, err := f.llm.Client(env.Calls, f, httpfault.Rule{Method: "POST", Path: "/v1/refunds", Class: httpfault.Commit, Tool: "refund"})
	if err != nil {
		return model.Claim{}, err
	}
	a := llmagent.Agent{BaseURL: "http://127.0.0.1/", APIKey: "sk-ant-scripted", HTTP: hc, RefundsURL: "http://127.0.0.1/v1/refunds", Bug: f.bug, Provider: f.provider, Journal: f, Attempts: 1 + t.RetryBudget}
	id, err := a.Refund(ctx, llmagent.Task{ID: t.ID, Actor: t.Actor, Order: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, Version: f.llm.ContextVersion})
	if err != nil {
		return model.Claim{Verdict: model.ClaimHold, Reason: err.Error()}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "refunded " + id, Receipt: id}, nil
}

// definition: the config's system part {"bug": ..., "provider": "openai"}
// plants one bug and picks the API. The order's record is at version 2,
// the context the agent gives the model.
func definition() *model.Definition {
	task := model.Task{ID: "T-1", Actor: "agent", Subject: "O-731", Tenant: "acme", Purpose: "refund"}
	return &model.Definition{Name: "llm_refunds", Fixtures: []model.Fixture{{Name: "refunds", Tasks: []model.Task{task}, Subjects: []model.Subject{{ID: "O-731", Tenant: "acme", Version: 2}}}},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			var c struct{ Bug, Provider string }
			if err := json.Unmarshal(system, &c); err != nil || c.Bug != "" && !slices.Contains(llmagent.Bugs, c.Bug) || c.Provider != "" && c.Provider != "openai" {
				return nil, fmt.Errorf("system %s: want {\"bug\": one of %q, \"provider\": \"openai\" or none} (%v)", system, llmagent.Bugs, err)
			}
			w := &world{spent: map[string]int{}, llm: &scriptedmodel.Model{Tool: "refund", Field: "order", Tasks: []model.Task{task}, Decoys: map[string][]string{"acme": {"O-732"}}, TenantArg: "tenant", PurposeArg: "purpose", ContextArg: "context_version", ContextVersion: 2, OpenAI: c.Provider == "openai"}, bug: c.Bug, provider: c.Provider}
			return func() model.System { return w }, nil
		},
		Builtin: []string{model.InvRightSubject, model.InvCurrentEntitlement, model.InvEffectAtMostOnce, model.InvBudget, model.InvNoInventedProgress}, Clock: properties.BubbleClock}
}
