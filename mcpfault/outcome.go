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
// ((*mcp.ClientSession).CallTool's result and error): rejected for an
// IsError result, a result whose content carries an error ({"ok": false}
// or a non-null "error": a success envelope carrying an error), or a
// JSON-RPC error saying the server ran nothing (parse error, invalid
// request, method not found, invalid params); unknown for any other error,
// a nil result, or a result whose only content is text that opens JSON
// and does not decode (malformed_response); committed otherwise (plain
// text included). Unknown never means "did not happen": read back, or hold.
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
	if res.IsError || errorInBody(res) {
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
