package mcpfault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/mcpfault"
	"github.com/faultline/faultline/model"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOutcomeOf: OutcomeOf of what the client saw for each kind, rendered
// through the middleware against a real MCP server, is the outcome the
// model gave the crossing (the timeline's tool.commit outcome).
func TestOutcomeOf(t *testing.T) {
	want := map[string]model.Outcome{
		"":                         model.OutcomeCommitted,
		"timeout_before_send":      model.OutcomeUnknown,
		"reject_before_commit":     model.OutcomeRejected,
		"timeout_after_commit":     model.OutcomeUnknown,
		"tool_timeout":             model.OutcomeUnknown,
		"partial_success_response": model.OutcomeCommitted,
		"malformed_response":       model.OutcomeUnknown,
		"output_drift":             model.OutcomeCommitted,
		"rate_limit":               model.OutcomeRejected,
		"break_trace_lineage":      model.OutcomeCommitted,
		"false_success":            model.OutcomeRejected,
		"server_error":             model.OutcomeUnknown,
		"network_error":            model.OutcomeUnknown,
		"do_not_retry":             model.OutcomeRejected,
		"provider_outage":          model.OutcomeRejected,
		"credential_expired":       model.OutcomeRejected,
	}
	require.Len(t, want, len(mcpfault.Kinds())+1)
	for _, kind := range append([]string{""}, mcpfault.Kinds()...) {
		var got []model.Outcome
		do := func(ctx context.Context, cs *mcp.ClientSession) []string {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_snapshot", Arguments: deleteIn{Snapshot: "snap-9"},
				Meta: mcp.Meta{mcpfault.MetaKey: "k1"}})
			got = append(got, mcpfault.OutcomeOf(res, err))
			return nil
		}
		var faults []model.FaultEntry
		if kind != "" {
			faults = []model.FaultEntry{at(kind)}
		}
		h := model.NewHarness(fixture, model.Options{Builtin: []string{}})
		res, err := h.Run(func() model.System { return probe{p: newProvider(true), do: do, seen: new([]string)} },
			&model.Schedule{Version: model.ScheduleVersion, Seed: "o", Faults: faults})
		require.NoError(t, err, kind)
		require.Len(t, got, 1, kind)
		assert.Equal(t, want[kind], got[0], "kind %q", kind)
		assert.Equal(t, "worker.start/ tool.commit/"+want[kind].String()+" claim/hold", events(res), "kind %q: the model's outcome", kind)
	}
}

// TestOutcomeOfAnswers: the rules on answers no fault shapes: a JSON-RPC
// error that says the server did not run the call is a rejection, another
// (an internal error) and any transport error unknown; a text content
// that opens JSON but does not decode is unknown, plain text committed.
func TestOutcomeOfAnswers(t *testing.T) {
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	wire := func(code int64) error { return fmt.Errorf("calling: %w", &jsonrpc.Error{Code: code, Message: "m"}) }
	for i, tc := range []struct {
		res  *mcp.CallToolResult
		err  error
		want model.Outcome
	}{
		{text(`{"receipt":"r1"}`), nil, model.OutcomeCommitted},
		{text("deleted"), nil, model.OutcomeCommitted},
		{&mcp.CallToolResult{}, nil, model.OutcomeCommitted},
		{&mcp.CallToolResult{StructuredContent: map[string]any{"receipt": "r1"}, Content: []mcp.Content{&mcp.TextContent{Text: `{"rec`}}}, nil, model.OutcomeCommitted},
		{text(`{"receipt":"r`), nil, model.OutcomeUnknown},
		{text(` [1, 2`), nil, model.OutcomeUnknown},
		{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no"}}}, nil, model.OutcomeRejected},
		{nil, nil, model.OutcomeUnknown},
		{nil, context.DeadlineExceeded, model.OutcomeUnknown},
		{nil, &mcpfault.TimeoutError{Tool: "t", Reason: "r"}, model.OutcomeUnknown},
		{nil, errors.New("connection reset"), model.OutcomeUnknown},
		{nil, wire(jsonrpc.CodeInvalidParams), model.OutcomeRejected},
		{nil, wire(jsonrpc.CodeMethodNotFound), model.OutcomeRejected},
		{nil, wire(jsonrpc.CodeInvalidRequest), model.OutcomeRejected},
		{nil, wire(jsonrpc.CodeParseError), model.OutcomeRejected},
		{nil, wire(jsonrpc.CodeInternalError), model.OutcomeUnknown},
	} {
		assert.Equal(t, tc.want, mcpfault.OutcomeOf(tc.res, tc.err), "case %d", i)
	}
}

// TestOutcomeOfUnknownTool: a call of a tool the server does not have is
// answered with a JSON-RPC error, rejected.
func TestOutcomeOfUnknownTool(t *testing.T) {
	var got []string
	do := func(ctx context.Context, cs *mcp.ClientSession) []string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}, Meta: mcp.Meta{mcpfault.MetaKey: "k1"}})
		return []string{fmt.Sprintf("%v %v", mcpfault.OutcomeOf(res, err), err)}
	}
	h := model.NewHarness(fixture, model.Options{Builtin: []string{}})
	_, err := h.Run(func() model.System {
		return probe{p: newProvider(true), opts: mcpfault.Options{Commit: map[string]bool{"no_such_tool": true}}, do: do, seen: &got}
	}, &model.Schedule{Version: model.ScheduleVersion, Seed: "u"})
	require.NoError(t, err)
	assert.Equal(t, []string{`rejected calling "tools/call": unknown tool "no_such_tool"`}, got)
}
