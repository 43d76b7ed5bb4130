package retrykey

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"time"

	"github.com/faultline/faultline/model"
	"github.com/google/uuid"
)

// --- true positives ---

func freshPerAttempt(ctx context.Context, env model.Env, a model.Action) {
	for attempt := 0; attempt < 3; attempt++ {
		res, _ := env.Tool.Commit(ctx, model.ToolCall{Tool: "refund", RequestKey: env.NewRequestID(), Action: a}) // want `model.ToolCall.RequestKey varies across the attempts of the retry loop at line 17: env.NewRequestID\(\) mints a fresh id`
		if res.Outcome == model.OutcomeCommitted {
			return
		}
	}
}

func sprintfAttempt(ctx context.Context, env model.Env, a model.Action) {
	for attempt := 0; attempt < 3; attempt++ {
		key := fmt.Sprintf("%s-%d", a.IdempotencyKey, attempt) // want `built from the attempt counter attempt`
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: key, Action: a})
	}
}

func counterInInfiniteLoop(ctx context.Context, env model.Env, a model.Action) {
	tries := 0
	for {
		tries++
		a.IdempotencyKey = a.Subject + ":" + strconv.Itoa(tries) // want `model.Action.IdempotencyKey varies .*built from the attempt counter tries`
		res, _ := env.Tool.Commit(ctx, model.ToolCall{RequestKey: "k", Action: a})
		if res.Outcome != model.OutcomeUnknown || tries > 3 {
			return
		}
	}
}

func retry(n int, f func(attempt int) error) error {
	var err error
	for i := 0; i < n; i++ {
		if err = f(i); err == nil {
			return nil
		}
	}
	return err
}

func uuidInRetryCallback(ctx context.Context, env model.Env, a model.Action) {
	_ = retry(3, func(int) error {
		_, err := env.Tool.Commit(ctx, model.ToolCall{RequestKey: uuid.NewString(), Action: a}) // want `retry callback at line 55: uuid.NewString mints a random or time-based id`
		return err
	})
}

func callbackParameter(ctx context.Context, env model.Env, a model.Action) {
	_ = retry(3, func(attempt int) error {
		_, err := env.Tool.Commit(ctx, model.ToolCall{RequestKey: a.IdempotencyKey + "#" + strconv.Itoa(attempt), Action: a}) // want `built from the attempt counter attempt`
		return err
	})
}

func timeBasedThroughVariable(ctx context.Context, env model.Env, a model.Action) {
	for range 3 {
		stamp := time.Now().UnixNano() // want `time.Now reads the wall clock`
		call := model.ToolCall{Action: a}
		call.RequestKey = strconv.FormatInt(stamp, 10)
		env.Tool.Commit(ctx, call)
	}
}

func hoistable(ctx context.Context, env model.Env, a model.Action) {
	for i := 0; i < 3; i++ {
		k := rand.Int63() // want `rand.Int63 draws from the global random source`
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: strconv.FormatInt(k, 10), Action: a})
	}
}

// send forwards a call: a call passed a model.ToolCall is consequential.
func send(ctx context.Context, env model.Env, c model.ToolCall) error {
	_, err := env.Tool.Commit(ctx, c)
	return err
}

func throughHelper(ctx context.Context, env model.Env, a model.Action) {
	for range 3 {
		id := env.NewRequestID() // want `env.NewRequestID\(\) mints a fresh id`
		if send(ctx, env, model.ToolCall{RequestKey: id, Action: a}) == nil {
			return
		}
	}
}

func reasonlessIgnore(ctx context.Context, env model.Env, a model.Action) {
	for range 3 {
		//faultline:ignore
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: env.NewRequestID(), Action: a}) // want `the //faultline:ignore on line 101 gives no reason, so it does not silence this finding`
	}
}

type flow struct {
	env model.Env
	a   model.Action
}

func (f *flow) requestKey(stable bool) string {
	if stable {
		return f.a.IdempotencyKey
	}
	return f.env.NewRequestID()
}

func (f *flow) keyThroughHelper(ctx context.Context) {
	for range 3 {
		f.env.Tool.Commit(ctx, model.ToolCall{RequestKey: f.requestKey(false), Action: f.a}) // want `f.requestKey\(\) calls f.env.NewRequestID \(line \d+\), which mints a fresh id`
	}
}

// --- look-alikes: not findings ---

func keyFromAction(ctx context.Context, env model.Env, a model.Action) {
	for attempt := 0; attempt < 3; attempt++ {
		key := a.IdempotencyKey
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: key, Action: a})
		time.Sleep(time.Duration(attempt) * time.Millisecond) // the counter shapes the backoff, not the key
	}
}

func keyBeforeLoop(ctx context.Context, env model.Env, a model.Action) {
	key := env.NewRequestID()
	for attempt := 0; attempt < 3; attempt++ {
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: key, Action: a})
	}
}

func invariantInsideLoop(ctx context.Context, env model.Env, t model.Task, a model.Action) {
	for {
		key := t.ID + ":refund:" + strconv.Itoa(t.RetryBudget)
		res, _ := env.Tool.Commit(ctx, model.ToolCall{RequestKey: key, Action: a})
		if res.Outcome == model.OutcomeCommitted {
			return
		}
	}
}

func eachOrderItsOwnAction(ctx context.Context, env model.Env, orders []model.Action) {
	for i, o := range orders {
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: fmt.Sprintf("%s:%d", o.Subject, i), Action: o})
	}
}

func indexedByCounter(ctx context.Context, env model.Env, orders []model.Action) {
	for i := 0; i < len(orders); i++ {
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: orders[i].IdempotencyKey, Action: orders[i]})
	}
}

func eachElementByIndex(ctx context.Context, env model.Env, orders []model.Action) {
	for i := 0; i < len(orders); i++ {
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: "batch-" + strconv.Itoa(i), Action: orders[i]})
	}
}

func freshTraceNotKey(ctx context.Context, env model.Env, a model.Action) {
	for range 3 {
		a.TraceID = env.NewRequestID()
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: a.IdempotencyKey, Action: a})
	}
}

func noConsequentialCall(env model.Env) []model.ToolCall {
	var calls []model.ToolCall
	for i := 0; i < 3; i++ {
		calls = append(calls, model.ToolCall{RequestKey: env.NewRequestID()}) // built, not sent
	}
	return calls
}

func ignoredWithReason(ctx context.Context, env model.Env, a model.Action) {
	for range 3 {
		//faultline:ignore the provider deduplicates by the action's subject, not the request key
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: env.NewRequestID(), Action: a})
	}
}

func otherFieldVaries(ctx context.Context, env model.Env, a model.Action) {
	a.IdempotencyKey = a.Subject + ":refund"
	for attempt := 0; attempt < 3; attempt++ {
		a.TraceID = a.Subject + strconv.Itoa(attempt)
		env.Tool.Commit(ctx, model.ToolCall{RequestKey: a.IdempotencyKey, Action: a})
	}
}

// randKey builds the key from the Env's random source: replayable, but a
// fresh key on every attempt all the same.
func randKey(ctx context.Context, env model.Env, a model.Action) {
	for attempt := 0; attempt < 3; attempt++ {
		v, _ := env.Rand() // want `model.ToolCall.RequestKey varies .*env.Rand\(\) draws a fresh value on each attempt`
		key := a.IdempotencyKey + "-" + strconv.FormatUint(v, 16)
		res, _ := env.Tool.Commit(ctx, model.ToolCall{RequestKey: key, Action: a})
		if res.Outcome == model.OutcomeCommitted {
			return
		}
	}
}

// randJitter draws from the Env's source for the pause between attempts,
// not for the key: not a finding.
func randJitter(ctx context.Context, env model.Env, a model.Action) {
	for attempt := 0; attempt < 3; attempt++ {
		res, _ := env.Tool.Commit(ctx, model.ToolCall{RequestKey: a.IdempotencyKey, Action: a})
		if res.Outcome == model.OutcomeCommitted {
			return
		}
		v, _ := env.Rand()
		_ = env.Sleep(ctx, 100+model.Millis(v%100))
	}
}
