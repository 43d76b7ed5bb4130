// Package retrykeycall holds retrykey findings whose call site and tool
// the finding carries: the tool of each function's call is in
// TestRetryKeyCallSite.
package retrykeycall

import (
	"context"

	"github.com/faultline/faultline/model"
)

const toolRefund = "payments.refund"

// a literal tool
func literalTool(ctx context.Context, env model.Env, a model.Action) {
	for i := 0; i < 3; i++ {
		env.Tool.Commit(ctx, model.ToolCall{Tool: "refund", RequestKey: env.NewRequestID(), Action: a}) // want `env.NewRequestID\(\) mints a fresh id`
	}
}

// a named constant, the literal built before the call
func namedConst(ctx context.Context, env model.Env, a model.Action) {
	for i := 0; i < 3; i++ {
		call := model.ToolCall{Tool: toolRefund, RequestKey: env.NewRequestID(), Action: a} // want `env.NewRequestID\(\) mints a fresh id`
		env.Tool.Commit(ctx, call)
	}
}

// a parameter the key's guard pins
func guarded(ctx context.Context, env model.Env, tool string, a model.Action) {
	key := a.IdempotencyKey
	for try := 0; try < 3; try++ {
		if try > 0 && tool == "inventory.confirm" {
			key = env.NewRequestID() // want `env.NewRequestID\(\) mints a fresh id`
		}
		env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: key, Action: a})
	}
}

// a parameter a one-value switch case pins; a case of two values does not
func switched(ctx context.Context, env model.Env, tool string, a model.Action) {
	for {
		switch tool {
		case "b":
			env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: env.NewRequestID(), Action: a}) // want `env.NewRequestID\(\) mints a fresh id`
		case "c", "d":
			env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: env.NewRequestID(), Action: a}) // want `env.NewRequestID\(\) mints a fresh id`
		}
		if "e" == tool {
			return
		}
	}
}

// an unguarded parameter: the tool cannot be told
func unguarded(ctx context.Context, env model.Env, tool string, a model.Action) {
	for i := 0; i < 3; i++ {
		env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: env.NewRequestID(), Action: a}) // want `env.NewRequestID\(\) mints a fresh id`
	}
}

// a guarded variable the function assigns: not pinned
func reassigned(ctx context.Context, env model.Env, tool string, a model.Action) {
	for i := 0; i < 3; i++ {
		if tool == "x" {
			tool = "y"
			env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: env.NewRequestID(), Action: a}) // want `env.NewRequestID\(\) mints a fresh id`
		}
	}
}

// guards that disagree: not pinned
func disagree(ctx context.Context, env model.Env, tool string, a model.Action) {
	for i := 0; i < 3; i++ {
		if tool == "x" {
			if tool == "y" {
				env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: env.NewRequestID(), Action: a}) // want `env.NewRequestID\(\) mints a fresh id`
			}
		}
	}
}

// the key stored into a field, the call after it; no literal
func fieldStore(ctx context.Context, env model.Env, call model.ToolCall) {
	for i := 0; i < 3; i++ {
		call.RequestKey = env.NewRequestID() // want `env.NewRequestID\(\) mints a fresh id`
		env.Tool.Commit(ctx, call)
	}
}
