package retrykeyfix

import (
	"context"

	"github.com/faultline/faultline/model"
)

func statement(ctx context.Context, env model.Env, a model.Action) {
	for attempt := 0; attempt < 3; attempt++ {
		key := env.NewRequestID() // want `mints a fresh id`
		res, _ := env.Tool.Commit(ctx, model.ToolCall{RequestKey: key, Action: a})
		if res.Outcome == model.OutcomeCommitted {
			return
		}
	}
}

func literal(ctx context.Context, env model.Env, a model.Action) {
	for range 3 {
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: env.NewRequestID(), Action: a}) // want `mints a fresh id`
	}
}

func conditional(ctx context.Context, env model.Env, a model.Action, fresh bool) {
	for range 3 {
		key := a.IdempotencyKey
		if fresh {
			key = env.NewRequestID() // want `mints a fresh id`
		}
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: key, Action: a})
	}
}

func labeled(ctx context.Context, env model.Env, a model.Action) {
outer:
	for range 3 {
		key := env.NewRequestID() // want `mints a fresh id`
		res, _ := env.Tool.Commit(ctx, model.ToolCall{RequestKey: key, Action: a})
		if res.Outcome == model.OutcomeUnknown {
			continue outer
		}
		return
	}
}
