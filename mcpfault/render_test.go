package mcpfault_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// probe is a System whose agent makes calls and records what the client
// saw for each, as one line.
type probe struct {
	p    *provider
	opts mcpfault.Options
	do   func(ctx context.Context, cs *mcp.ClientSession) []string
	seen *[]string
}

func (s probe) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	mw, err := mcpfault.New(env.Calls, s.opts)
	if err != nil {
		return model.Claim{}, err
	}
	cs, done, err := connect(ctx, s.p.server, "probe", mw.Middleware())
	if err != nil {
		return model.Claim{}, err
	}
	defer done()
	*s.seen = append(*s.seen, s.do(ctx, cs)...)
	return model.Claim{Verdict: model.ClaimHold}, mw.Err()
}

func (s probe) ProviderLedger(ctx context.Context) ([]model.LedgerEntry, error) {
	return system{p: s.p}.ProviderLedger(ctx)
}

// seen renders a tools/call answer as one line.
func seen(res *mcp.CallToolResult, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("error deadline=%v: %v", errors.Is(err, context.DeadlineExceeded), err)
	case res.IsError:
		return fmt.Sprintf("isError meta=%v: %s", res.Meta, res.Content[0].(*mcp.TextContent).Text)
	}
	return fmt.Sprintf("ok structured=%v text=%s", res.StructuredContent, res.Content[0].(*mcp.TextContent).Text)
}

func deleteCall(key string) func(ctx context.Context, cs *mcp.ClientSession) []string {
	return func(ctx context.Context, cs *mcp.ClientSession) []string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_snapshot", Arguments: deleteIn{Snapshot: "snap-9"},
			Meta: mcp.Meta{mcpfault.MetaKey: key, mcpfault.MetaTrace: "tr-job-1"}})
		return []string{seen(res, err)}
	}
}

// TestRendering: what the client sees for each kind, in MCP terms.
func TestRendering(t *testing.T) {
	want := map[string]string{
		"":                         `ok structured=map[bytes:300 receipt:del_1 snapshot:snap-9] text={"bytes":300,"receipt":"del_1","snapshot":"snap-9"}`,
		"timeout_before_send":      `error deadline=true: calling "delete_snapshot": timeout: request never left: context deadline exceeded`,
		"reject_before_commit":     `isError meta=map[]: provider rejected the request before commit`,
		"timeout_after_commit":     `error deadline=true: calling "delete_snapshot": timeout: no reply: context deadline exceeded`,
		"tool_timeout":             `error deadline=true: calling "delete_snapshot": timeout: no reply yet: context deadline exceeded`,
		"partial_success_response": `ok structured=map[bytes:300 snapshot:snap-9] text={"bytes":300,"snapshot":"snap-9"}`,
		"malformed_response":       `ok structured=<nil> text={"bytes":300,"receipt":"d`,
		"output_drift":             `ok structured=map[bytes:300 receipt_ref:del_1 snapshot:snap-9] text={"bytes":"300","receipt_ref":"del_1","snapshot":"snap-9"}`,
		"rate_limit":               `isError meta=map[retryAfterMs:100]: rate limited: retry after 100 ms`,
		"break_trace_lineage":      `ok structured=map[bytes:300 receipt:del_1 snapshot:snap-9] text={"bytes":300,"receipt":"del_1","snapshot":"snap-9"}`,
	}
	want["false_success"] = `ok structured=map[error:success envelope carrying an error: the provider failed the request; nothing committed ok:false] text={"error":"success envelope carrying an error: the provider failed the request; nothing committed","ok":false}`
	// before commit (the default target): a JSON-RPC internal error, a
	// closed connection
	want["server_error"] = `error deadline=false: server error: failed before commit`
	want["network_error"] = `error deadline=false: calling "delete_snapshot": connection refused: connection closed`
	// the provider's refusals: an IsError result, nothing deleted
	want["do_not_retry"] = `isError meta=map[]: rejected permanently: do not retry`
	want["provider_outage"] = `isError meta=map[]: provider unavailable (503): outage`
	want["credential_expired"] = `isError meta=map[]: unauthorized (401): credential expired`
	rows := map[string]int{"timeout_before_send": 0, "reject_before_commit": 0, "rate_limit": 0, "tool_timeout": 0, "false_success": 0,
		"server_error": 0, "network_error": 0, "do_not_retry": 0, "provider_outage": 0, "credential_expired": 0}
	for _, kind := range append([]string{""}, mcpfault.Kinds()...) {
		p := newProvider(true)
		var got []string
		var faults []model.FaultEntry
		if kind != "" {
			faults = []model.FaultEntry{at(kind)}
		}
		h := model.NewHarness(fixture, model.Options{Builtin: []string{}})
		if _, err := h.Run(func() model.System { return probe{p: p, do: deleteCall("k1"), seen: &got} },
			&model.Schedule{Version: model.ScheduleVersion, Seed: "r", Faults: faults}); err != nil {
			t.Fatal(err)
		}
		n, ok := rows[kind]
		if !ok {
			n = 1
		}
		if len(got) != 1 || got[0] != want[kind] || len(p.rows) != n {
			t.Errorf("%s: saw %q, %d rows\nwant %q, %d rows", kind, got, len(p.rows), want[kind], n)
		}
		if kind == "break_trace_lineage" && (len(p.rows) != 1 || p.rows[0].Trace != "orphan-req-1") {
			t.Errorf("break_trace_lineage: provider rows %+v", p.rows)
		}
	}
}

// TestWhatCrosses: only a commit tool's tools/call crosses tool.commit and
// a Readback tool's ledger.readback; initialize, tools/list and read-only
// tools are no crossing. Annotations come from a tools/list the agent
// makes, or from one listing the middleware makes itself; a tool without
// annotations is a commit; Options.Commit overrides.
func TestWhatCrosses(t *testing.T) {
	call := func(ctx context.Context, cs *mcp.ClientSession, name string, meta mcp.Meta) string {
		args := map[string]any{"snapshot": "s"}
		if name == "get_deletion" {
			args = map[string]any{"key": "k"}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
		if err != nil {
			return err.Error()
		}
		return fmt.Sprint(res.IsError)
	}
	key := mcp.Meta{mcpfault.MetaKey: "k"}
	for _, tc := range []struct {
		name   string
		opts   mcpfault.Options
		list   bool
		lists  int
		events string
	}{
		{"self-listed", mcpfault.Options{}, false, 1, "worker.start/ tool.commit/committed tool.commit/committed claim/hold"},
		{"agent-listed", mcpfault.Options{}, true, 1, "worker.start/ tool.commit/committed tool.commit/committed claim/hold"},
		{"readback", mcpfault.Options{Readback: []string{"get_deletion"}}, true, 1,
			"worker.start/ tool.commit/committed ledger.readback/ok tool.commit/committed claim/hold"},
		{"overridden", mcpfault.Options{Commit: map[string]bool{"purge_cache": false, "get_deletion": true}}, false, 1,
			"worker.start/ tool.commit/committed tool.commit/committed claim/hold"},
		{"all overridden", mcpfault.Options{Commit: map[string]bool{"purge_cache": false, "get_deletion": false, "delete_snapshot": true}}, false, 0,
			"worker.start/ tool.commit/committed claim/hold"},
	} {
		p := newProvider(true)
		var got []string
		do := func(ctx context.Context, cs *mcp.ClientSession) []string {
			if tc.list {
				if _, err := cs.ListTools(ctx, nil); err != nil {
					return []string{err.Error()}
				}
			}
			return []string{call(ctx, cs, "delete_snapshot", key), call(ctx, cs, "get_deletion", key), call(ctx, cs, "purge_cache", key)}
		}
		h := model.NewHarness(fixture, model.Options{Builtin: []string{}})
		res, err := h.Run(func() model.System { return probe{p: p, opts: tc.opts, do: do, seen: &got} },
			&model.Schedule{Version: model.ScheduleVersion, Seed: "w"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if strings.Join(got, " ") != "false false false" || p.lists != tc.lists || events(res) != tc.events {
			t.Errorf("%s: saw %v, %d tools/list at the server, timeline %s\nwant %d lists, %s", tc.name, got, p.lists, events(res), tc.lists, tc.events)
		}
	}
}

// TestNoKey: a commit call without an idempotency key is tested, not
// refused: after a lost reply the agent's retry deletes again, and the
// violation and the timeline say the call went without a key; behind
// KeyFromArguments the same agent holds. A Ref extractor's error refuses
// the call with an error naming the tool, and the run ends with it
// although the agent swallowed it.
func TestNoKey(t *testing.T) {
	for _, tc := range []struct {
		opts   mcpfault.Options
		derive bool
		rows   int
		detail string
	}{
		{mcpfault.Options{}, false, 2, "second ledger effect for task job-1, sent without an idempotency key"},
		{mcpfault.Options{Ref: func(p *mcp.CallToolParams) (mcpfault.Ref, error) { return mcpfault.Ref{}, nil }}, false, 2,
			"second ledger effect for task job-1, sent without an idempotency key"},
		{mcpfault.Options{}, true, 1, ""},
	} {
		p := newProvider(true)
		res := run(t, system{p: p, pol: policy{noKey: true}, opts: tc.opts, deriveKey: tc.derive}, at("timeout_after_commit"))
		inv, _ := res.Invariant(model.InvEffectAtMostOnce)
		if len(p.rows) != tc.rows || inv.Detail != tc.detail || inv.Held != (tc.detail == "") || res.Faults[0].Fired != 1 {
			t.Errorf("derive %v: %d rows, %+v", tc.derive, len(p.rows), inv)
		}
		if d := res.Timeline.Events()[1].Detail; !tc.derive && d != "delete_snapshot sent without an idempotency key, replayed false receipt false" {
			t.Errorf("timeline: %s", d)
		}
	}
	p := newProvider(true)
	h := model.NewHarness(fixture, options())
	swallow := system{p: p, pol: policy{noKey: true, trustTimeout: true}, opts: mcpfault.Options{Ref: func(p *mcp.CallToolParams) (mcpfault.Ref, error) {
		return mcpfault.Ref{}, errors.New("argument \"job\" missing")
	}}}
	_, err := h.Run(func() model.System { return swallowing{swallow} }, &model.Schedule{Version: model.ScheduleVersion, Seed: "k"})
	if want := `mcpfault: tool "delete_snapshot": argument "job" missing`; err == nil || err.Error() != want || len(p.rows) != 0 {
		t.Errorf("run error %v, %d rows; want %q", err, len(p.rows), want)
	}
	if _, err := mcpfault.New(nil, mcpfault.Options{}); err == nil || !strings.Contains(err.Error(), "nil model.Calls") {
		t.Errorf("New(nil): %v", err)
	}
}

// swallowing is a System that drops every error of its agent and claims a
// release: the run must still end with the adapter's error.
type swallowing struct{ system }

func (s swallowing) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	s.system.Run(ctx, env, task) //nolint:errcheck // the bug under test
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

// TestDeterministic: the same schedule twice gives the same timeline,
// fault reports and provider rows.
func TestDeterministic(t *testing.T) {
	faults := []model.FaultEntry{at("tool_timeout"), {Event: model.EvToolCommit, Ordinal: 2, Kind: "partial_success_response"}}
	var first string
	for i := range 3 {
		p := newProvider(true)
		res := run(t, system{p: p, pol: policy{freshKey: true}}, faults...)
		got := fmt.Sprintf("%+v\n%+v\n%+v\n%+v", res.Timeline, res.Faults, res.Invariants, p.rows)
		if i == 0 {
			first = got
			if len(p.rows) != 3 || events(res) != "worker.start/ tool.commit/unknown tool.commit/committed tool.commit/committed claim/release" {
				t.Fatalf("rows %+v, timeline %s", p.rows, events(res))
			}
		} else if got != first {
			t.Fatalf("run %d differs:\n%s\nfirst:\n%s", i+1, got, first)
		}
	}
}

// TestAimedAtTool: the crossing's Tool is the MCP tool name, so a fault
// aimed at a tool counts only that tool's calls: rate_limit at the first
// purge_cache (the second commit of the run) leaves delete_snapshot alone.
func TestAimedAtTool(t *testing.T) {
	p := newProvider(true)
	var got []string
	do := func(ctx context.Context, cs *mcp.ClientSession) []string {
		a := deleteCall("k1")(ctx, cs)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "purge_cache", Arguments: deleteIn{Snapshot: "s"}, Meta: mcp.Meta{mcpfault.MetaKey: "k2"}})
		return append(a, seen(res, err))
	}
	h := model.NewHarness(fixture, model.Options{Builtin: []string{}})
	res, err := h.Run(func() model.System { return probe{p: p, do: do, seen: &got} }, &model.Schedule{Version: model.ScheduleVersion, Seed: "a",
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit", Tool: "purge_cache"}}})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Faults[0]
	if len(got) != 2 || !strings.HasPrefix(got[0], "ok ") || got[1] != "isError meta=map[retryAfterMs:100]: rate limited: retry after 100 ms" ||
		f.Fired != 1 || f.FiredAt != 3 || len(p.rows) != 1 {
		t.Fatalf("saw %q, fault %+v, %d rows", got, f, len(p.rows))
	}
}
