package httpfault_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
)

// exampleSystem posts one charge through a transport joined to the run.
type exampleSystem struct {
	url     string
	commits *atomic.Int32
}

func (s exampleSystem) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	rules, _ := httpfault.Rules(httpfault.Rule{Method: "POST", Path: "/payments", Class: httpfault.Commit, Tool: "pay"})
	tr, err := httpfault.Join(env.Calls, nil, httpfault.JoinOptions{Classify: rules})
	if err != nil {
		return model.Claim{}, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/payments", strings.NewReader(`{"amount":7400}`))
	req.Header.Set("Idempotency-Key", task.ID+":pay")
	_, err = (&http.Client{Transport: tr}).Do(req)
	fmt.Println("timeout:", errors.Is(err, os.ErrDeadlineExceeded), "server commits:", s.commits.Load())
	return model.Claim{Verdict: model.ClaimHold, Reason: "outcome unknown"}, nil
}

// ProviderLedger is the server's own record: one entry per commit.
func (s exampleSystem) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	var out []model.LedgerEntry
	for i := range s.commits.Load() {
		out = append(out, model.LedgerEntry{Tool: "pay", Key: "inv-1:pay", ReceiptID: fmt.Sprint("rcpt-", i+1)})
	}
	return out, nil
}

// Lose the reply of the first commit request to a real loopback server:
// the run's fault decides, the transport renders it; the server
// committed, the client sees a timeout.
func Example() {
	var commits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		commits.Add(1)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"receipt_id":"rcpt-1","amount":7400}`)
	}))
	defer srv.Close()

	h := model.NewHarness(model.Fixture{Name: "pay", Tasks: []model.Task{{ID: "inv-1", Subject: "acct-9", Amount: 7400}}},
		model.Options{Builtin: []string{model.InvEffectAtMostOnce}})
	res, err := h.Run(func() model.System { return exampleSystem{srv.URL, &commits} }, &model.Schedule{Version: model.ScheduleVersion,
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Faults {
		fmt.Printf("%s %s reached=%t fired=%d\n", f.ID, f.Kind, f.Reached, f.Fired)
	}
	// Output:
	// timeout: true server commits: 1
	// f1 timeout_after_commit reached=true fired=1
}
