package mcpfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// provider is the fake storage service: a real MCP server (same SDK) with
// a destructive tool delete_snapshot that keeps its own table of effects,
// idempotent by the request's _meta key when byKey is on (a call without
// one is a new deletion), and a read-only
// tool get_deletion that reads that table back.
type provider struct {
	mu     sync.Mutex
	rows   []model.LedgerEntry
	byKey  bool
	lists  int // tools/list requests the server received
	server *mcp.Server
}

type deleteIn struct {
	Snapshot string `json:"snapshot"`
}

type deleteOut struct {
	Receipt  string `json:"receipt"`
	Snapshot string `json:"snapshot"`
	Bytes    int64  `json:"bytes"`
}

type getIn struct {
	Key string `json:"key"`
}

type getOut struct {
	Found   bool   `json:"found"`
	Receipt string `json:"receipt"`
	Trace   string `json:"trace"`
}

func newProvider(byKey bool) *provider {
	p := &provider{byKey: byKey}
	s := mcp.NewServer(&mcp.Implementation{Name: "snapshots", Version: "1"}, nil)
	yes := true
	mcp.AddTool(s, &mcp.Tool{Name: "delete_snapshot", Description: "delete a storage snapshot (cannot be undone)",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, p.delete)
	mcp.AddTool(s, &mcp.Tool{Name: "get_deletion", Description: "read a deletion back by its key",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, p.get)
	// purge_cache gives no annotations: the specification's defaults make it a commit
	mcp.AddTool(s, &mcp.Tool{Name: "purge_cache", Description: "purge the cache"},
		func(context.Context, *mcp.CallToolRequest, deleteIn) (*mcp.CallToolResult, deleteOut, error) {
			return nil, deleteOut{}, nil
		})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				p.mu.Lock()
				p.lists++
				p.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	p.server = s
	return p
}

func metaOf(req *mcp.CallToolRequest, k string) string {
	s, _ := req.Params.Meta[k].(string)
	return s
}

func (p *provider) delete(_ context.Context, req *mcp.CallToolRequest, in deleteIn) (*mcp.CallToolResult, deleteOut, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := metaOf(req, mcpfault.MetaKey)
	if p.byKey && key != "" {
		for _, r := range p.rows {
			if r.Key == key {
				return nil, deleteOut{Receipt: r.ReceiptID, Snapshot: r.Subject, Bytes: 300}, nil
			}
		}
	}
	id := fmt.Sprintf("del_%d", len(p.rows)+1)
	p.rows = append(p.rows, model.LedgerEntry{Tool: "delete_snapshot", Key: key, ActionRef: metaOf(req, mcpfault.MetaActionRef),
		Subject: in.Snapshot, Trace: metaOf(req, mcpfault.MetaTrace), ReceiptID: id})
	return nil, deleteOut{Receipt: id, Snapshot: in.Snapshot, Bytes: 300}, nil
}

func (p *provider) get(_ context.Context, _ *mcp.CallToolRequest, in getIn) (*mcp.CallToolResult, getOut, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.rows {
		if r.Key == in.Key {
			return nil, getOut{Found: true, Receipt: r.ReceiptID, Trace: r.Trace}, nil
		}
	}
	return nil, getOut{}, nil
}

// policy is the agent's behaviour: its defences off (the bugs) or on.
type policy struct {
	freshKey      bool // retries an unconfirmed deletion under a fresh key
	trustTimeout  bool // takes a transport error for a deletion done
	ignoreIsError bool // takes an IsError result for a deletion done
	checkTrace    bool // reads the deletion back and holds when its trace is not the job's
	noKey         bool // sends no idempotency key at all
	trustEnvelope bool // takes any result without IsError for a deletion done, its content unread
	// backoff, when set, retries an IsError result (a rate limit aside)
	// after this wait, doubled after each
	backoff time.Duration
}

// expireSnapshot is production code's shape (it uses nothing of
// faultline, the _meta names included): it takes a real MCP client
// session and deletes a snapshot through the delete_snapshot tool,
// retrying an unconfirmed call up to three attempts. It reports whether it
// holds a confirmed deletion.
func expireSnapshot(ctx context.Context, cs *mcp.ClientSession, pol policy, job, snapshot, trace string) (string, bool, error) {
	key := job + ":delete"
	wait := pol.backoff
	for attempt := range 3 {
		if pol.freshKey && attempt > 0 {
			key = fmt.Sprintf("%s:delete-%d", job, attempt)
		}
		meta := mcp.Meta{"idempotencyKey": key, "actionRef": job + ":delete", "traceId": trace}
		if pol.noKey {
			meta = mcp.Meta{"traceId": trace}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_snapshot", Arguments: deleteIn{Snapshot: snapshot}, Meta: meta})
		switch {
		case err != nil && pol.trustTimeout:
			return "", true, nil
		case err != nil && errors.Is(err, context.DeadlineExceeded):
			continue // unknown outcome: retry
		case err != nil && (errors.Is(err, mcp.ErrConnectionClosed) || errors.As(err, new(*jsonrpc.Error))):
			continue // a dropped connection or a server error: unknown outcome, retry
		case err != nil:
			return "", false, err
		case res.IsError && pol.ignoreIsError:
			return "", true, nil
		case res.IsError && res.Meta["retryAfterMs"] != nil:
			// rate limited: retry after the wait asked for
			var ms float64
			switch v := res.Meta["retryAfterMs"].(type) {
			case float64:
				ms = v
			case int64:
				ms = float64(v)
			}
			//faultline:ignore production code waits on the time package; the tests that pace it run it in a synctest bubble, whose clock is the run's
			time.Sleep(time.Duration(ms) * time.Millisecond)
			continue
		case res.IsError && wait > 0:
			//faultline:ignore production code waits on the time package; the tests that pace it run it in a synctest bubble, whose clock is the run's
			time.Sleep(wait)
			wait *= 2
			continue
		case res.IsError:
			return "", false, nil
		case pol.trustEnvelope:
			return "", true, nil
		}
		var out deleteOut
		if len(res.Content) == 0 || jsonDecode(res.Content[0], &out) != nil || out.Receipt == "" {
			continue // no decodable receipt: unconfirmed
		}
		if pol.checkTrace {
			back, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_deletion", Arguments: getIn{Key: key}})
			if err != nil {
				return "", false, err
			}
			var got getOut
			if jsonDecode(back.Content[0], &got) != nil || !got.Found || got.Trace != trace {
				return "", false, nil
			}
		}
		return out.Receipt, true, nil
	}
	return "", false, nil
}

// system is the test System: it builds a client per run around the
// adapter, connects it to the provider over the SDK's in-memory
// transports, and runs the agent on it; the oracle reads the provider's
// table.
type system struct {
	p    *provider
	pol  policy
	opts mcpfault.Options
	// deriveKey installs mcpfault.KeyFromArguments before the adapter
	deriveKey bool
}

func (s system) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	mw, err := mcpfault.New(env.Calls, s.opts)
	if err != nil {
		return model.Claim{}, err
	}
	mws := []mcp.Middleware{mw.Middleware()}
	if s.deriveKey {
		mws = append([]mcp.Middleware{mcpfault.KeyFromArguments()}, mws...)
	}
	cs, closeAll, err := connect(ctx, s.p.server, "janitor", mws...)
	if err != nil {
		return model.Claim{}, err
	}
	defer closeAll()
	receipt, done, err := expireSnapshot(ctx, cs, s.pol, task.ID, task.Subject, task.Trace)
	if merr := mw.Err(); merr != nil {
		return model.Claim{}, merr
	}
	if err != nil {
		return model.Claim{}, err
	}
	if done {
		return model.Claim{Verdict: model.ClaimRelease, Receipt: receipt}, nil
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: "deletion not confirmed"}, nil
}

func (s system) ProviderLedger(context.Context) ([]model.LedgerEntry, error) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	return append([]model.LedgerEntry(nil), s.p.rows...), nil
}

var fixture = model.Fixture{Name: "snapshots", Tasks: []model.Task{{ID: "job-1", Actor: "janitor", Subject: "snap-9",
	Tenant: "t", Purpose: "expire", Trace: "tr-job-1"}}}

// traceJoined is the user's own invariant: a released deletion was made
// under the job's trace.
var traceJoined = model.UserInvariant{Name: "trace_joined", Owner: "storage", Oracle: "ledger_readback",
	Doc: "no release of a deletion made under another trace", Check: func(v model.View) string {
		c, ok := v.Claim()
		if !ok || c.Verdict != model.ClaimRelease {
			return ""
		}
		for _, e := range v.Ledger() {
			if e.Task == v.Task().ID && e.Trace != v.Task().Trace {
				return fmt.Sprintf("released %s made under trace %q", e.ReceiptID, e.Trace)
			}
		}
		return ""
	}}

func options() model.Options {
	return model.Options{Builtin: []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress}, Invariants: []model.UserInvariant{traceJoined}}
}

func run(t testing.TB, sys system, faults ...model.FaultEntry) *model.Result {
	t.Helper()
	h := model.NewHarness(fixture, options())
	res, err := h.Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "mcp", Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runClocked is run with the clock of the synctest bubble it is called
// in, the run's clock for production code that waits.
func runClocked(t testing.TB, sys system, faults ...model.FaultEntry) *model.Result {
	t.Helper()
	opts := options()
	opts.Clock = properties.BubbleClock
	res, err := model.NewHarness(fixture, opts).Run(func() model.System { return sys }, &model.Schedule{Version: model.ScheduleVersion, Seed: "mcp", Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func events(res *model.Result) string {
	var evs []string
	for _, e := range res.Timeline.Events() {
		evs = append(evs, string(e.Event)+"/"+e.Outcome)
	}
	return strings.Join(evs, " ")
}

func at(kind string) model.FaultEntry {
	return model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: kind}
}

// jsonDecode decodes a text content as JSON into v.
func jsonDecode(c mcp.Content, v any) error {
	t, ok := c.(*mcp.TextContent)
	if !ok {
		return fmt.Errorf("content of type %T", c)
	}
	return json.Unmarshal([]byte(t.Text), v)
}

// connect joins a client named name, its sending middleware mws (the
// adapter's last), to server over an in-memory transport: the session a
// test System's Run uses, and the func that closes both ends.
func connect(ctx context.Context, server *mcp.Server, name string, mws ...mcp.Middleware) (*mcp.ClientSession, func(), error) {
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	client.AddSendingMiddleware(mws...)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Close() }, nil
}
