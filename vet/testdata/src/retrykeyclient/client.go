// Package retrykeyclient is production code that sends its idempotency
// key in its client's own request: an MCP call's _meta, an HTTP header.
package retrykeyclient

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const metaKey = "idempotencyKey"

type janitor struct {
	cs *mcp.ClientSession
	hc *http.Client
}

// call sends key as the call's _meta idempotency key.
func (j janitor) call(ctx context.Context, id, key string) (*mcp.CallToolResult, error) {
	return j.cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_snapshot", Meta: mcp.Meta{metaKey: key, "actionRef": id}})
}

// post sends key in the Idempotency-Key header.
func (j janitor) post(ctx context.Context, key string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/charges", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Idempotency-Key", key)
	return j.hc.Do(req)
}

// --- true positives ---

func (j janitor) metaFreshID(ctx context.Context, id string) {
	for range 3 {
		res, err := j.cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_snapshot",
			Meta: mcp.Meta{"idempotencyKey": uuid.NewString()}}) // want `the "idempotencyKey" entry of the mcp.Meta varies across the attempts of the retry loop at line \d+: uuid.NewString`
		if err == nil && !res.IsError {
			return
		}
	}
}

func (j janitor) headerFromCounter(ctx context.Context, id string) {
	for attempt := 0; attempt < 3; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/charges", nil)
		req.Header.Set("Idempotency-Key", id+"-"+strconv.Itoa(attempt)) // want `the "Idempotency-Key" header varies across the attempts of the retry loop at line \d+: it is built from the attempt counter attempt`
		if resp, err := j.hc.Do(req); err == nil && resp.StatusCode < 300 {
			return
		}
	}
}

func (j janitor) throughHelper(ctx context.Context, id string) {
	key := "janitor:delete:" + id
	for attempt := 1; attempt <= 3; attempt++ {
		if attempt > 1 {
			key = "janitor:delete:" + id + "+retry" + strconv.Itoa(attempt) // want `the "idempotencyKey" entry of the mcp.Meta that j.call sends varies across the attempts of the retry loop at line \d+: it is built from the attempt counter attempt`
		}
		if _, err := j.call(ctx, id, key); err == nil {
			return
		}
	}
}

func (j janitor) headerHelperFresh(ctx context.Context) {
	for range 2 {
		if _, err := j.post(ctx, uuid.New().String()); err == nil { // want `the "Idempotency-Key" header that j.post sends varies across the attempts of the retry loop at line \d+: uuid.New`
			return
		}
	}
}

func (j janitor) snakeCaseKey(ctx context.Context, id string) {
	for i := 0; ; i++ {
		args := map[string]any{"idempotency_key": fmt.Sprintf("%s#%d", id, i)} // want `the "idempotency_key" entry of the map\[string\]any varies`
		if _, err := j.cs.CallTool(ctx, &mcp.CallToolParams{Name: "charge", Meta: args}); err == nil {
			return
		}
	}
}

// --- look-alikes: not findings ---

func (j janitor) stableMetaKey(ctx context.Context, id string) {
	key := "janitor:delete:" + id // derived from the logical action, once
	for range 3 {
		if _, err := j.call(ctx, id, key); err == nil {
			return
		}
	}
}

func (j janitor) keyFromActionInLoop(ctx context.Context, id string) {
	for range 3 {
		if _, err := j.post(ctx, "charge:"+id); err == nil { // the same value on every attempt
			return
		}
	}
}

func (j janitor) freshTraceNotKey(ctx context.Context, id string) {
	for range 3 {
		res, err := j.cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_snapshot",
			Meta: mcp.Meta{"idempotencyKey": id, "traceId": uuid.NewString()}}) // a fresh trace, not a key
		if err == nil && !res.IsError {
			return
		}
	}
}

func (j janitor) eachSnapshot(ctx context.Context, ids []string) {
	for i := 0; i < len(ids); i++ { // each element is its own action
		j.call(ctx, ids[i], "janitor:delete:"+ids[i]+strconv.Itoa(i))
	}
}

func (j janitor) noCall(ids []string) map[string]string {
	out := map[string]string{}
	for attempt := 0; attempt < 3; attempt++ {
		m := map[string]string{"idempotencyKey": strconv.Itoa(attempt)} // nothing sent in the loop
		out[m["idempotencyKey"]] = ""
	}
	return out
}

func (j janitor) otherHeader(ctx context.Context, id string) {
	for attempt := 0; attempt < 3; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/charges", nil)
		req.Header.Set("Idempotency-Key", id)
		req.Header.Set("X-Attempt", strconv.Itoa(attempt)) // an attempt header, not the key
		if resp, err := j.hc.Do(req); err == nil && resp.StatusCode < 300 {
			return
		}
	}
}
