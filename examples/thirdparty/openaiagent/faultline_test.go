package openaiagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/faultline/faultline/examples/thirdparty/openaiagent"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// fakeOpenAI is the batches endpoint in process: POST /v1/batches makes a
// batch job under the request's Idempotency-Key, and a key it has seen
// answers the first job again. Its rows are the provider's own store,
// which the oracle reads.
type fakeOpenAI struct {
	mu   sync.Mutex
	rows []model.LedgerEntry
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	var in struct {
		InputFileID string `json:"input_file_id"`
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/batches" || json.NewDecoder(r.Body).Decode(&in) != nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":null}}`)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	for _, row := range f.rows {
		if row.Key == key {
			fmt.Fprint(w, batchJSON(row))
			return
		}
	}
	row := model.LedgerEntry{Tool: "batch", Key: key, ActionRef: key, Subject: in.InputFileID, ReceiptID: "batch_" + strconv.Itoa(len(f.rows)+1)}
	f.rows = append(f.rows, row)
	fmt.Fprint(w, batchJSON(row))
}

func batchJSON(row model.LedgerEntry) string {
	b, _ := json.Marshal(map[string]any{"id": row.ReceiptID, "object": "batch", "endpoint": "/v1/chat/completions",
		"input_file_id": row.Subject, "completion_window": "24h", "status": "validating", "created_at": 946684800})
	return string(b)
}

func (f *fakeOpenAI) ledger() []model.LedgerEntry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]model.LedgerEntry(nil), f.rows...)
}

// openaiClient is an openai-go client whose HTTP goes through rt, with its
// default retries.
func openaiClient(rt http.RoundTripper) openai.Client {
	return openai.NewClient(option.WithAPIKey("sk-faultline"), option.WithBaseURL("http://127.0.0.1:8080/v1/"),
		option.WithHTTPClient(&http.Client{Transport: rt}))
}

// batches is the system under test: the agent over openai-go over the
// joined transport, one per run; the fake API is the run's durable state
// (Configure builds it).
type batches struct {
	api     *fakeOpenAI
	planted bool
}

var batchRules, _ = httpfault.Rules(httpfault.Rule{Method: http.MethodPost, Path: "/v1/batches", Class: httpfault.Commit, Tool: "batch"})

func (s batches) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	tr, err := httpfault.Join(env.Calls, httpfault.InProcess(s.api), httpfault.JoinOptions{
		Classify: batchRules, Receipt: "id", Render: httpfault.OpenAIError})
	if err != nil {
		return model.Claim{}, err
	}
	agent := openaiagent.Agent{Client: openaiClient(tr), Planted: s.planted}
	id, err := agent.Submit(ctx, task.ID, task.Subject)
	if err != nil {
		return model.Claim{Verdict: model.ClaimHold, Reason: err.Error()}, nil
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "submitted " + id, Receipt: id}, nil
}

func (s batches) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	return s.api.ledger(), nil
}

// definition describes the batch agent, planted or not, as production
// code (each run in a synctest bubble).
func definition(planted bool) *model.Definition {
	return &model.Definition{
		Name:     "openai_batches",
		Fixtures: []model.Fixture{{Name: "batches", Tasks: []model.Task{{ID: "eval-7", Actor: "agent", Subject: "file-abc", Tenant: "t", Purpose: "eval"}}}},
		Configure: func(json.RawMessage) (model.Factory, error) {
			f := &fakeOpenAI{}
			return func() model.System { return batches{api: f, planted: planted} }, nil
		},
		Builtin: []string{model.InvEffectAtMostOnce},
		Clock:   properties.BubbleClock,
	}
}
