package mcpfault

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OutcomeOf classifies what a tools/call returned to its caller
// ((*mcp.ClientSession).CallTool's result and error) into the three
// outcomes of a consequential call:
//
//   - rejected: an IsError result (the tool refused: reject_before_commit,
//     rate_limit, a tool error), or a JSON-RPC error answer saying the
//     server did not run the call (a *jsonrpc.Error with code
//     CodeParseError, CodeInvalidRequest, CodeMethodNotFound or
//     CodeInvalidParams);
//   - unknown: any other error (a transport error, a timeout: *TimeoutError
//     for timeout_before_send, timeout_after_commit and tool_timeout, a
//     JSON-RPC internal error), a nil result, or a result whose content
//     does not decode: no structured content and a first text content
//     that opens a JSON object or array ('{' or '[') but is not valid JSON
//     (malformed_response);
//   - committed: any other result (partial_success_response and
//     output_drift decode, so they are committed, as in the model; whether
//     the receipt is there is the caller's next question).
//
// A text content that is not JSON at all is taken as it is (committed):
// the classifier cannot tell a truncated plain-text answer from a short
// one. Unknown never means "did not happen": resolve it by reading the
// provider's ledger back or hold.
func OutcomeOf(res *mcp.CallToolResult, err error) model.Outcome {
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			switch we.Code {
			case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams:
				return model.OutcomeRejected
			}
		}
		return model.OutcomeUnknown
	}
	if res == nil {
		return model.OutcomeUnknown
	}
	if res.IsError {
		return model.OutcomeRejected
	}
	if res.StructuredContent == nil && len(res.Content) > 0 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			s := strings.TrimSpace(t.Text)
			if (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && !json.Valid([]byte(s)) {
				return model.OutcomeUnknown
			}
		}
	}
	return model.OutcomeCommitted
}
