package mcpfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answering is an MCP server whose tool "x" gives every call the same
// result (text, structured content, or an IsError result) and keeps a row
// for each result that is not an error; trace is the last call's.
type answering struct {
	text    string // the result's text content (a JSON object, or a refusal's text)
	isError bool
	rows    []model.LedgerEntry
	trace   string
	server  *mcp.Server
}

func newAnswering(text string, isError bool) *answering {
	a := &answering{text: text, isError: isError}
	a.server = mcp.NewServer(&mcp.Implementation{Name: "a", Version: "1"}, nil)
	a.server.AddTool(&mcp.Tool{Name: "x", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a.trace, _ = req.Params.Meta[mcpfault.MetaTrace].(string)
		res := &mcp.CallToolResult{IsError: a.isError, Content: []mcp.Content{&mcp.TextContent{Text: a.text}}}
		if !a.isError {
			a.rows = append(a.rows, model.LedgerEntry{Tool: "x", Key: "k", ReceiptID: fmt.Sprint(len(a.rows) + 1)})
			var obj map[string]any
			if json.Unmarshal([]byte(a.text), &obj) == nil {
				res.StructuredContent = obj
			}
		}
		return res, nil
	})
	return a
}

// oneCall calls x once and writes down what the client received.
type oneCall struct {
	a    *answering
	got  *string
	opts mcpfault.Options
}

func (s oneCall) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	mw, err := mcpfault.New(env.Calls, s.opts)
	if err != nil {
		return model.Claim{}, err
	}
	cs, done, err := connect(ctx, s.a.server, "c", mw.Middleware())
	if err != nil {
		return model.Claim{}, err
	}
	defer done()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "x", Arguments: map[string]any{}, Meta: mcp.Meta{mcpfault.MetaKey: "k", mcpfault.MetaTrace: "tr-1"}})
	var te *mcpfault.TimeoutError
	switch {
	case errors.As(err, &te):
		*s.got = "timeout"
	case err != nil:
		*s.got = "error " + err.Error()
	default:
		text := ""
		if len(res.Content) > 0 {
			text = res.Content[0].(*mcp.TextContent).Text
		}
		*s.got = fmt.Sprintf("iserror %v %s", res.IsError, text)
		if res.Meta[mcpfault.MetaRetryAfter] != nil {
			*s.got += fmt.Sprint(" retry after ", res.Meta[mcpfault.MetaRetryAfter])
		}
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (s oneCall) ProviderLedger(context.Context) ([]model.LedgerEntry, error) { return s.a.rows, nil }

// TestFiredExactly: for every kind at tool.commit (and the provider's
// refusals outside the catalogue), the fault is recorded
// fired exactly when the client received the disturbed answer: over a
// result with a receipt every kind fires and the client gets its
// rendering; over a result without a receipt and over an IsError result
// the kinds that act on a committed answer stay unfired and the client
// gets the server's own result.
func TestFiredExactly(t *testing.T) {
	const ok, bare, refused = `{"bytes":300,"receipt":"r1"}`, `{"bytes":300}`, `no such snapshot`
	const timeout = "timeout"
	isErr := func(s string) string { return "iserror true " + s }
	res := func(s string) string { return "iserror false " + s }
	for _, tc := range []struct {
		kind                        string
		receipt, noReceipt, refused string
	}{
		{"sandbox_denial", isErr("sandbox policy denied the tool start"), isErr("sandbox policy denied the tool start"), isErr("sandbox policy denied the tool start")},
		{"timeout_before_send", timeout, timeout, timeout},
		{"budget_exhaustion", timeout, timeout, timeout},
		{"tool_timeout", timeout, timeout, timeout},
		{"reject_before_commit", isErr("provider rejected the request before commit"), isErr("provider rejected the request before commit"), isErr("provider rejected the request before commit")},
		{"rate_limit", isErr("rate limited: retry after 100 ms retry after 100"), isErr("rate limited: retry after 100 ms retry after 100"), isErr("rate limited: retry after 100 ms retry after 100")},
		// outside the catalogue: the provider's refusals
		{"do_not_retry", isErr("rejected permanently: do not retry"), isErr("rejected permanently: do not retry"), isErr("rejected permanently: do not retry")},
		{"provider_outage", isErr("provider unavailable (503): outage"), isErr("provider unavailable (503): outage"), isErr("provider unavailable (503): outage")},
		{"credential_expired", isErr("unauthorized (401): credential expired"), isErr("unauthorized (401): credential expired"), isErr("unauthorized (401): credential expired")},
		{"timeout_after_commit", timeout, timeout, isErr(refused)},
		{"partial_success_response", res(`{"bytes":300}`), res(bare), isErr(refused)},
		{"malformed_response", res(`{"bytes":300,"`), res(bare), isErr(refused)},
		{"output_drift", res(`{"bytes":"300","receipt_ref":"r1"}`), res(bare), isErr(refused)},
		{"break_trace_lineage", res(ok) + " trace orphan-req-1", res(bare) + " trace orphan-req-1", isErr(refused) + " trace orphan-req-1"},
	} {
		for _, p := range []struct {
			text    string
			isError bool
			want    string
		}{{ok, false, tc.receipt}, {bare, false, tc.noReceipt}, {refused, true, tc.refused}} {
			a := newAnswering(p.text, p.isError)
			var got string
			r, err := model.NewHarness(fixture, model.Options{Builtin: []string{}}).Run(func() model.System { return oneCall{a: a, got: &got} },
				&model.Schedule{Version: model.ScheduleVersion, Seed: "f", Faults: []model.FaultEntry{at(tc.kind)}})
			if err != nil {
				t.Fatalf("%s over %s: %v", tc.kind, p.text, err)
			}
			if tc.kind == "break_trace_lineage" { // a disturbed request: the server got another trace
				got += " trace " + a.trace
			}
			disturbed := got != fmt.Sprintf("iserror %v %s", p.isError, p.text)
			if got != p.want || (r.Faults[0].Fired == 1) != disturbed || !r.Faults[0].Reached {
				t.Errorf("%s over %s: client got %q (want %q), fault %+v", tc.kind, p.text, got, p.want, r.Faults[0])
			}
		}
	}
}

// TestAnswerFaultNeverPassesSilently: an answer fault recorded fired
// whose rewrite leaves the receipt Options.Receipt reads (from a field
// other than ReceiptField) ends the run with an error naming the cause.
func TestAnswerFaultNeverPassesSilently(t *testing.T) {
	for _, kind := range []string{"partial_success_response", "output_drift"} {
		a := newAnswering(`{"id":"r1"}`, false)
		var got string
		sys := oneCall{a: a, got: &got, opts: mcpfault.Options{Receipt: func(r *mcp.CallToolResult) string {
			s, _ := r.StructuredContent.(map[string]any)["id"].(string)
			return s
		}}}
		_, err := model.NewHarness(fixture, model.Options{Builtin: []string{}}).Run(func() model.System { return sys },
			&model.Schedule{Version: model.ScheduleVersion, Seed: "f", Faults: []model.FaultEntry{at(kind)}})
		want := `mcpfault: tool "x": ` + kind + ` fired and the result still carries its receipt "r1" as Options.Receipt reads it (the middleware rewrites the field "receipt": set Options.ReceiptField)`
		if err == nil || err.Error() != want || got != "error "+want {
			t.Errorf("%s: run error %v, client got %q", kind, err, got)
		}
	}
}

// twoCalls calls delete_snapshot without a key for each of snaps in turn.
type twoCalls struct {
	p     *provider
	snaps []string
}

func (s twoCalls) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	mw, err := mcpfault.New(env.Calls, mcpfault.Options{})
	if err != nil {
		return model.Claim{}, err
	}
	cs, done, err := connect(ctx, s.p.server, "c", mw.Middleware())
	if err != nil {
		return model.Claim{}, err
	}
	defer done()
	for _, snap := range s.snaps {
		cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_snapshot", Arguments: deleteIn{Snapshot: snap}}) //nolint:errcheck // the first is lost
	}
	return model.Claim{Verdict: model.ClaimHold}, nil
}

func (s twoCalls) ProviderLedger(ctx context.Context) ([]model.LedgerEntry, error) {
	return system{p: s.p}.ProviderLedger(ctx)
}

// TestKeylessHeldCallKeepsItsArguments: a keyless call a tool_timeout
// holds is delivered late with its own arguments, not those of the next
// keyless call.
func TestKeylessHeldCallKeepsItsArguments(t *testing.T) {
	p := newProvider(false)
	res, err := model.NewHarness(fixture, model.Options{Builtin: []string{}}).Run(func() model.System { return twoCalls{p: p, snaps: []string{"snap-1", "snap-2"}} },
		&model.Schedule{Version: model.ScheduleVersion, Seed: "h", Faults: []model.FaultEntry{at("tool_timeout")}})
	if err != nil || res.Faults[0].Fired != 1 || len(p.rows) != 2 || p.rows[0].Subject != "snap-1" || p.rows[1].Subject != "snap-2" {
		t.Fatalf("run error %v, fault %+v, rows %+v", err, res.Faults[0], p.rows)
	}
}
