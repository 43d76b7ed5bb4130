// Package mcpfault is a stub of faultline's MCP adapter: its classifier.
package mcpfault

import (
	"github.com/faultline/faultline/model"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func OutcomeOf(res *mcp.CallToolResult, err error) model.Outcome { return model.OutcomeUnknown }
