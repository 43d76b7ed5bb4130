package unknownoutcome

import (
	"context"
	"errors"

	"github.com/faultline/faultline/model"
)

var errFailed = errors.New("failed")

// --- true positives ---

func noUnknownCase(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	res, _ := env.Tool.Commit(ctx, c)
	switch res.Outcome { // want `switch on res.Outcome has no path for model.OutcomeUnknown: an unknown outcome .* falls out of it as if settled`
	case model.OutcomeCommitted:
		return model.Claim{Verdict: model.ClaimRelease}
	case model.OutcomeRejected:
		return model.Claim{Verdict: model.ClaimDeny}
	}
	return model.Claim{Verdict: model.ClaimRelease}
}

func foldedIntoRejected(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	res, _ := env.Tool.Commit(ctx, c)
	switch res.Outcome {
	case model.OutcomeCommitted:
		return model.Claim{Verdict: model.ClaimRelease}
	case model.OutcomeRejected, model.OutcomeUnknown: // want `model.OutcomeUnknown shares its case with model.OutcomeRejected, as if it had not happened`
		return model.Claim{Verdict: model.ClaimDeny, Reason: "refund failed"}
	}
	return model.Claim{}
}

func defaultReturnsFailure(ctx context.Context, env model.Env, c model.ToolCall) (model.Claim, error) {
	res, _ := env.Tool.Commit(ctx, c)
	switch res.Outcome {
	case model.OutcomeCommitted:
		return model.Claim{Verdict: model.ClaimRelease}, nil
	default: // want `model.OutcomeUnknown falls to the default case that neither reads the provider's ledger back nor holds`
		return model.Claim{}, errFailed
	}
}

func blindRetry(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	for {
		res, _ := env.Tool.Commit(ctx, c)
		switch res.Outcome {
		case model.OutcomeCommitted:
			return model.Claim{Verdict: model.ClaimRelease}
		case model.OutcomeRejected:
			return model.Claim{Verdict: model.ClaimDeny}
		case model.OutcomeUnknown: // want `model.OutcomeUnknown has a case that neither reads the provider's ledger back nor holds: it retries blind`
			continue
		}
	}
}

func blindRetryFreshKey(ctx context.Context, env model.Env, a model.Action) model.Claim {
	for range 3 {
		res, _ := env.Tool.Commit(ctx, model.ToolCall{RequestKey: env.NewRequestID(), Action: a})
		switch res.Outcome {
		case model.OutcomeCommitted:
			return model.Claim{Verdict: model.ClaimRelease}
		case model.OutcomeRejected:
			return model.Claim{Verdict: model.ClaimDeny}
		case model.OutcomeUnknown: // want `it retries blind`
			continue
		}
	}
	return model.Claim{Verdict: model.ClaimHold}
}

func notCommittedIsFailure(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	res, _ := env.Tool.Commit(ctx, c)
	if res.Outcome != model.OutcomeCommitted { // want `in this if/else chain on res.Outcome, model.OutcomeUnknown shares its case with model.OutcomeRejected`
		return model.Claim{Verdict: model.ClaimDeny, Reason: "refund not made"}
	}
	return model.Claim{Verdict: model.ClaimRelease}
}

func elseChain(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	res, _ := env.Tool.Commit(ctx, c)
	if res.Outcome == model.OutcomeCommitted {
		return model.Claim{Verdict: model.ClaimRelease}
	} else if res.Outcome == model.OutcomeRejected {
		return model.Claim{Verdict: model.ClaimDeny}
	} else { // want `model.OutcomeUnknown falls to the default case`
		return model.Claim{Verdict: model.ClaimDeny, Reason: "timeout"}
	}
}

func taglessSwitch(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	res, _ := env.Tool.Commit(ctx, c)
	switch {
	case res.Outcome == model.OutcomeCommitted, res.Outcome == model.OutcomeUnknown: // want `shares its case with model.OutcomeCommitted, as if it had happened`
		return model.Claim{Verdict: model.ClaimRelease}
	case res.Outcome == model.OutcomeRejected:
		return model.Claim{Verdict: model.ClaimDeny}
	}
	return model.Claim{}
}

func reasonlessIgnore(ctx context.Context, env model.Env, c model.ToolCall) bool {
	res, _ := env.Tool.Commit(ctx, c)
	//faultline:ignore
	if res.Outcome != model.OutcomeRejected { // want `gives no reason, so it does not silence this finding`
		return true
	}
	return res.Outcome == model.OutcomeCommitted || res.Outcome == model.OutcomeRejected && pick(res)
}

func pick(model.ToolResult) bool { return true }

// --- look-alikes: not findings ---

func readbackResolves(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	res, _ := env.Tool.Commit(ctx, c)
	switch res.Outcome {
	case model.OutcomeCommitted:
		return model.Claim{Verdict: model.ClaimRelease}
	case model.OutcomeRejected:
		return model.Claim{Verdict: model.ClaimDeny}
	case model.OutcomeUnknown:
		entries, _ := env.Ledger.Readback(ctx, model.ReadbackQuery{ActionRef: c.Action.IdempotencyKey})
		if len(entries) > 0 {
			return model.Claim{Verdict: model.ClaimRelease}
		}
		return model.Claim{Verdict: model.ClaimDeny}
	}
	return model.Claim{}
}

func idempotentRetry(ctx context.Context, env model.Env, a model.Action) model.Claim {
	for range 3 {
		res, _ := env.Tool.Commit(ctx, model.ToolCall{RequestKey: a.IdempotencyKey, Action: a})
		switch res.Outcome {
		case model.OutcomeCommitted:
			return model.Claim{Verdict: model.ClaimRelease}
		case model.OutcomeRejected:
			return model.Claim{Verdict: model.ClaimDeny}
		case model.OutcomeUnknown:
			continue // the same key: the provider recognises the retry
		}
	}
	return model.Claim{Verdict: model.ClaimHold}
}

type flow struct {
	env model.Env
	ctx context.Context
	key string
}

func (f *flow) readback() bool {
	e, _ := f.env.Ledger.Readback(f.ctx, model.ReadbackQuery{ActionRef: f.key})
	return len(e) > 0
}

func (f *flow) settle() bool { return f.readback() }

func (f *flow) readbackThroughHelpers(c model.ToolCall) model.Claim {
	res, _ := f.env.Tool.Commit(f.ctx, c)
	switch res.Outcome {
	case model.OutcomeRejected:
		return model.Claim{Verdict: model.ClaimDeny}
	case model.OutcomeUnknown:
		if f.settle() {
			return model.Claim{Verdict: model.ClaimRelease}
		}
	}
	return model.Claim{Verdict: model.ClaimRelease}
}

func holdsForReconciliation(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	res, _ := env.Tool.Commit(ctx, c)
	if res.Outcome == model.OutcomeCommitted {
		return model.Claim{Verdict: model.ClaimRelease}
	} else if res.Outcome == model.OutcomeUnknown {
		return model.Claim{Verdict: model.ClaimHold, Reason: "reconciliation required"}
	}
	return model.Claim{Verdict: model.ClaimDeny}
}

func loneCommittedCheck(ctx context.Context, env model.Env, c model.ToolCall) bool {
	res, _ := env.Tool.Commit(ctx, c)
	replied := false
	if res.Outcome == model.OutcomeCommitted {
		replied = true
	}
	return replied
}

func retryUntilKnown(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	var res model.ToolResult
	for range 3 {
		res, _ = env.Tool.Commit(ctx, c)
		if res.Outcome != model.OutcomeUnknown {
			break
		}
	}
	if res.Outcome != model.OutcomeCommitted || pick(res) { // a condition on more than the outcome: out of scope
		return model.Claim{Verdict: model.ClaimHold}
	}
	return model.Claim{Verdict: model.ClaimRelease}
}

func evidenceAckIsNotAToolResult(ctx context.Context, ack model.EvidenceAck) bool {
	switch ack.Outcome {
	case model.OutcomeCommitted:
		return true
	}
	return false
}

func ignoredWithReason(ctx context.Context, env model.Env, c model.ToolCall) model.Claim {
	res, _ := env.Tool.Commit(ctx, c)
	//faultline:ignore a read-only lookup tool: no effect can be lost with the reply
	switch res.Outcome {
	case model.OutcomeCommitted:
		return model.Claim{Verdict: model.ClaimRelease}
	}
	return model.Claim{Verdict: model.ClaimDeny}
}
