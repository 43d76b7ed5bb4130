package httpfault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/faultline/faultline/model"
)

// maxBody bounds the answer a response disturbance reads (1 MiB); a
// longer answer passes through undisturbed.
const maxBody = 1 << 20

// call is one commit request being disturbed.
type call struct {
	t    *Transport
	x    int
	req  *http.Request
	body []byte
}

// disturbance acts on one commit request, with the transport's lock
// held (it reads from the network only through c.t.unlocked). It calls next to let the
// request go on (toward the server, through the faults scheduled after
// it), or answers in its place; fired reports whether it disturbed
// anything. It describes how a kind disturbs the exchange; what follows
// is decided by the server and the client.
type disturbance func(c *call, f *armed, next func() (*http.Response, error)) (resp *http.Response, fired bool, err error)

// disturbances are the kinds the transport injects. Each must be a tool
// kind at tool.commit, and must forward the request before disturbing
// exactly when its spec's phase is after_commit (checked by the tests).
var disturbances = map[string]disturbance{
	"sandbox_denial":           sandboxDenial,
	"timeout_before_send":      timeoutBeforeSend,
	"reject_before_commit":     rejectBeforeCommit,
	"rate_limit":               rateLimit,
	"tool_timeout":             toolTimeout,
	"budget_exhaustion":        timeoutBeforeSend,
	"timeout_after_commit":     timeoutAfterCommit,
	"partial_success_response": partialSuccess,
	"malformed_response":       malformed,
	"output_drift":             outputDrift,
}

func init() {
	for kind := range disturbances {
		s, err := model.Spec(kind)
		if err != nil || s.Domain != model.DomainTool || s.Event != model.EvToolCommit {
			panic(fmt.Sprintf("httpfault: %s is not a tool kind at %s", kind, model.EvToolCommit))
		}
	}
}

// answer is a response the transport gives in the server's place.
func answer(req *http.Request, status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	header.Set("Content-Type", "application/json")
	header.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: header,
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req}
}

// withBody returns resp carrying body instead of its own.
func withBody(resp *http.Response, body []byte) *http.Response {
	r := *resp
	r.Header = resp.Header.Clone()
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	return &r
}

// receipted lets the request go on and reads a committed answer: it
// returns the answer with its body and, when the answer is a 2xx JSON
// object carrying the receipt field (within maxBody), that object.
func (c *call) receipted(next func() (*http.Response, error)) (*http.Response, []byte, map[string]json.RawMessage, error) {
	resp, err := next()
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, nil, nil, err
	}
	var body []byte
	c.t.unlocked(func() { body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody+1)) })
	if err != nil {
		c.t.unlocked(func() { resp.Body.Close() })
		return nil, nil, nil, err
	}
	if len(body) > maxBody {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return resp, nil, nil, nil
	}
	c.t.unlocked(func() { resp.Body.Close() })
	resp = withBody(resp, body)
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj[c.t.opts.Receipt] == nil {
		return resp, body, nil, nil
	}
	return resp, body, obj, nil
}

func sandboxDenial(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	return nil, true, fmt.Errorf("%w (fault %s)", ErrSandboxDenied, f.id)
}

// timeoutBeforeSend also serves budget_exhaustion, whose persistence
// (every later commit request) comes from its spec's correlation.
func timeoutBeforeSend(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	return nil, true, &TimeoutError{FaultID: f.id, Kind: f.entry.Kind}
}

func rejectBeforeCommit(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	return answer(c.req, http.StatusUnprocessableEntity, nil, `{"error":"rejected before commit"}`), true, nil
}

func rateLimit(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	return answer(c.req, http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}}, `{"error":"rate limited"}`), true, nil
}

func toolTimeout(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	c.t.held = append(c.t.held, held{req: c.req, body: c.body, x: c.x})
	return nil, true, &TimeoutError{FaultID: f.id, Kind: f.entry.Kind}
}

func timeoutAfterCommit(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	resp, err := next()
	if err != nil {
		return nil, false, err
	}
	c.t.unlocked(func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
	})
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	return nil, ok, &TimeoutError{FaultID: f.id, Kind: f.entry.Kind, Sent: true}
}

func partialSuccess(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	resp, _, obj, err := c.receipted(next)
	if err != nil || obj == nil {
		return resp, false, err
	}
	delete(obj, c.t.opts.Receipt)
	b, _ := json.Marshal(obj)
	return withBody(resp, b), true, nil
}

func malformed(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	resp, body, obj, err := c.receipted(next)
	if err != nil || obj == nil {
		return resp, false, err
	}
	return withBody(resp, body[:len(body)/2]), true, nil
}

func outputDrift(c *call, f *armed, next func() (*http.Response, error)) (*http.Response, bool, error) {
	resp, _, obj, err := c.receipted(next)
	if err != nil || obj == nil {
		return resp, false, err
	}
	rf, af := c.t.opts.Receipt, c.t.opts.Amount
	obj[drifted(rf)] = obj[rf]
	delete(obj, rf)
	if a := obj[af]; len(a) > 0 && (a[0] == '-' || a[0] >= '0' && a[0] <= '9') {
		obj[af], _ = json.Marshal(string(a))
	}
	b, _ := json.Marshal(obj)
	return withBody(resp, b), true, nil
}

// drifted is a field's name after a schema drift: camelCase for a
// snake_case name (receipt_id becomes receiptId), else the name with a
// "_v2" suffix.
func drifted(name string) string {
	parts := strings.Split(name, "_")
	if len(parts) == 1 {
		return name + "_v2"
	}
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}
