package httpfault_test

import (
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

// Lose the reply of the first commit request to a real loopback server:
// the server committed, the client sees a timeout.
func Example() {
	var commits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		commits.Add(1)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"receipt_id":"rcpt-1","amount":7400}`)
	}))
	defer srv.Close()

	sched, err := model.ParseSchedule([]byte(`{"version": 1, "config": {"controls": []},
		"faults": [{"event": "tool.commit", "ordinal": 1, "kind": "timeout_after_commit"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	ft, err := httpfault.New(nil, sched, httpfault.Options{MaxRequests: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ft.CloseIdleConnections()
	client := &http.Client{Transport: ft}

	_, err = client.Post(srv.URL+"/payments", "application/json", strings.NewReader(`{"amount":7400}`))
	fmt.Println("timeout:", errors.Is(err, os.ErrDeadlineExceeded), "server commits:", commits.Load())
	for _, f := range ft.Faults() {
		fmt.Printf("%s %s reached=%t fired=%d key=%s\n", f.ID, f.Kind, f.Reached, f.Fired, f.Key)
	}
	_, err = client.Post("http://192.0.2.1/payments", "application/json", strings.NewReader(`{}`))
	fmt.Println("refused:", errors.Is(err, httpfault.ErrRefused))
	// Output:
	// timeout: true server commits: 1
	// f1 timeout_after_commit reached=true fired=1 key=tool/effect/after_commit/isolated/ledger_readback
	// refused: true
}
