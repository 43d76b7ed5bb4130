// Package mcp is a stub of the MCP SDK's client for the analyzers' tests.
package mcp

import "context"

type Meta map[string]any

type CallToolParams struct {
	Name string
	Meta Meta
}

type CallToolResult struct{ IsError bool }

type ClientSession struct{}

func (*ClientSession) CallTool(ctx context.Context, p *CallToolParams) (*CallToolResult, error) {
	return nil, nil
}
