// Package llmagent is production code over anthropic-sdk-go and, with
// Agent.Provider "openai", over openai-go, both left unmodified: a refund
// agent that asks the model what to do (a streamed Messages or Chat
// Completions request with one tool, refund) and carries out the tool
// call through a refund API over HTTP. It imports no faultline package; its
// test (faultline_test.go) checks it with a scripted model and a fake
// refund API in process.
//
// Bug plants one of seven bugs (none by default):
//   - "unbound_subject": it refunds the order, of the tenant and for the
//     purpose, the tool call names even when they are not its task's (no
//     binding of the call to the task);
//   - "reask_fresh_key": when the refund's reply is lost it asks the model
//     again and carries out its new tool call under that call's own id as
//     the Idempotency-Key, so both calls refund;
//   - "ignore_retry_after": it turns the SDK's retries off
//     (option.WithMaxRetries(0)) and retries an overloaded or rate-limited
//     model at once, up to five times (six attempts), ignoring the
//     answer's Retry-After;
//   - "every_tool_call": it carries out every refund call of the reply,
//     each under its own call id as the Idempotency-Key, so a reply that
//     repeats the call refunds twice;
//   - "refusal_as_done": it takes a reply without a refund call (the
//     model refused) as the refund done, and reports success;
//   - "reask_on_refusal": when the model refuses it asks again, up to
//     five times, but its loop tests the first reply (the refusal), not
//     the new one, so it asks all five times, then goes on with the last
//     reply's call: it spends six replies' tokens on one refund;
//   - "ignore_context_version": it refunds at the context version the
//     tool call names (context_version), unchecked against its task's,
//     so a call relying on an older version, or on none, refunds;
//   - "fresh_budget_on_resume": it counts its requests from zero at each
//     start, not from its Journal's count: a restart spends Attempts more.
//
// Without a bug it keeps the SDK's default retries (which obey
// Retry-After), refunds only its task's order, of its tenant, for its
// purpose, at its task's context version, once however often the reply
// repeats the call, keys the refund by its task, retrying a lost reply
// once under the same key, ends with an error when the model refuses, and
// sends a task at most Attempts requests over its restarts (its Journal).
package llmagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Bugs are the bugs Agent.Bug plants.
var Bugs = []string{"unbound_subject", "reask_fresh_key", "ignore_retry_after", "every_tool_call", "refusal_as_done", "reask_on_refusal", "ignore_context_version", "fresh_budget_on_resume"}

// Task is one refund the agent is asked to make. Version is the version
// of the order's record its context holds (the prompt names it): the
// refund's expected version, which the model's call must rely on.
type Task struct {
	ID, Actor, Order, Tenant, Purpose string
	Version                           int
}

// prompt is the task as the agent asks the model.
func (t Task) prompt() string {
	return fmt.Sprintf("Task %s: refund order %s of tenant %s (%s); its record is at version %d.", t.ID, t.Order, t.Tenant, t.Purpose, t.Version)
}

// args are the refund call's arguments.
type args struct {
	Order, Tenant, Purpose string
	Version                int `json:"context_version"`
}

// unbound says why the call's arguments are not the task's, "" when they
// are (or the bug lets them through).
func (a Agent) unbound(in args, t Task) string {
	switch {
	case (in.Order != t.Order || in.Tenant != t.Tenant || in.Purpose != t.Purpose) && a.Bug != "unbound_subject":
		return fmt.Sprintf("the model asked to refund order %s of tenant %s (%s); the task is order %s of tenant %s (%s)",
			in.Order, in.Tenant, in.Purpose, t.Order, t.Tenant, t.Purpose)
	case in.Version != t.Version && a.Bug != "ignore_context_version":
		return fmt.Sprintf("the model's call relies on version %d of order %s; the task's context is at version %d", in.Version, t.Order, t.Version)
	}
	return ""
}

// Agent makes refunds through Model (Anthropic's API) and Refunds (the
// refund API at RefundsURL).
type Agent struct {
	BaseURL, APIKey string       // the model API's base URL and key
	HTTP            *http.Client // for both APIs
	RefundsURL      string       // POST target of a refund
	Bug             string       // "" or one of Bugs
	// Provider is "" for Anthropic's Messages API (anthropic-sdk-go) or
	// "openai" for OpenAI's Chat Completions (openai-go, BaseURL + "v1/").
	Provider string
	// Journal, when set, keeps the count of requests sent per task
	// durably (it outlives the agent's process); the agent sends none
	// past Attempts (its task's one plus retry budget), the journal's
	// error or the spent budget failing the request unsent.
	Journal  Journal
	Attempts int
}

// Journal is the agent's durable store of requests sent: Spend adds n to
// task's count (n 0 reads it) and returns the new count.
type Journal interface {
	Spend(task string, n int) (int, error)
}

// budgeted is the agent's HTTP client counting every request in its
// journal before it sends it, and refusing one past the budget: the
// count in the journal from base on (base 0, or under
// fresh_budget_on_resume the count at the agent's start).
func (a Agent) budgeted(t Task) (*http.Client, error) {
	if a.Journal == nil {
		return a.HTTP, nil
	}
	base, err := a.Journal.Spend(t.ID, 0)
	if err != nil || a.Bug != "fresh_budget_on_resume" {
		base = 0
	}
	c := http.Client{}
	if a.HTTP != nil {
		c = *a.HTTP
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = roundTrip(func(r *http.Request) (*http.Response, error) {
		n, err := a.Journal.Spend(t.ID, 0)
		if err == nil && n-base >= a.Attempts {
			err = fmt.Errorf("the task's %d attempts are spent", a.Attempts)
		}
		if err == nil {
			_, err = a.Journal.Spend(t.ID, 1)
		}
		if err != nil {
			if r.Body != nil {
				r.Body.Close() // a RoundTripper closes the body, refused or not
			}
			return nil, err
		}
		return next.RoundTrip(r)
	})
	return &c, err
}

// roundTrip is an http.RoundTripper of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Refund carries out task and returns the refund's id. A model that
// calls the tool for another order, a refund the API refused and a model
// that will not answer end with an error: nothing more is done.
func (a Agent) Refund(ctx context.Context, t Task) (string, error) {
	hc, err := a.budgeted(t)
	if err != nil {
		return "", fmt.Errorf("reading the journal: %w", err)
	}
	a.HTTP = hc
	if a.Provider == "openai" {
		return a.refundOpenAI(ctx, t)
	}
	opts := []option.RequestOption{option.WithBaseURL(a.BaseURL), option.WithAPIKey(a.APIKey), option.WithHTTPClient(a.HTTP)}
	if a.Bug == "ignore_retry_after" {
		opts = append(opts, option.WithMaxRetries(0))
	}
	client := anthropic.NewClient(opts...)
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(t.prompt()))}
	for range 2 {
		reply, err := a.ask(ctx, client, msgs)
		if err != nil {
			return "", err
		}
		for i, first := 0, reply; i < 5 && a.Bug == "reask_on_refusal" && first.StopReason == "refusal"; i++ {
			if reply, err = a.ask(ctx, client, msgs); err != nil {
				return "", err
			}
		}
		var calls []anthropic.ToolUseBlock
		for _, b := range reply.Content {
			if u, ok := b.AsAny().(anthropic.ToolUseBlock); ok && u.Name == "refund" {
				calls = append(calls, u)
			}
		}
		if len(calls) == 0 && a.Bug == "refusal_as_done" {
			return "", nil
		}
		if len(calls) == 0 {
			return "", fmt.Errorf("the model called no refund (stop reason %s)", reply.StopReason)
		}
		if a.Bug != "every_tool_call" {
			calls = calls[:1] // one task, one refund, however often the reply asks
		}
		var id string
		for _, call := range calls {
			var in args
			if err := json.Unmarshal(call.Input, &in); err != nil {
				return "", fmt.Errorf("the model's tool call: %w", err)
			}
			if why := a.unbound(in, t); why != "" {
				return "", errors.New(why)
			}
			key, tries := t.ID+":refund", 2
			if a.Bug == "reask_fresh_key" || a.Bug == "every_tool_call" {
				key, tries = call.ID, 1
			}
			if id, err = a.post(ctx, t.Actor, in, key, tries); err != nil {
				break
			}
		}
		if err == nil || a.Bug != "reask_fresh_key" {
			return id, err
		}
		call := calls[0]
		msgs = append(msgs, reply.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(call.ID, err.Error(), true)))
	}
	return "", errors.New("no refund after asking twice")
}

// refundArgs are the refund tool's arguments: the order, its tenant and
// the refund's purpose (strings), and the version of the order's record
// the call relies on (an integer).
var refundArgs = map[string]any{"order": map[string]string{"type": "string"}, "tenant": map[string]string{"type": "string"}, "purpose": map[string]string{"type": "string"},
	"context_version": map[string]string{"type": "integer"}}

// required are the refund tool's required arguments.
var required = []string{"order", "tenant", "purpose", "context_version"}

// ask streams one reply; under ignore_retry_after it retries an error
// from the API itself at once, up to six attempts.
func (a Agent) ask(ctx context.Context, client anthropic.Client, msgs []anthropic.MessageParam) (anthropic.Message, error) {
	params := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 512, Messages: msgs,
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "refund", Description: anthropic.String("Refund an order."),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: refundArgs, Required: required}}}}}
	var err error
	for range 6 {
		var msg anthropic.Message
		stream := client.Messages.NewStreaming(ctx, params)
		for stream.Next() {
			if err = msg.Accumulate(stream.Current()); err != nil {
				break
			}
		}
		if err == nil {
			err = stream.Err()
		}
		stream.Close()
		if err == nil && msg.StopReason != "" {
			return msg, nil
		}
		if err == nil {
			err = errors.New("the reply stream ended before its stop reason")
		}
		if ae := (*anthropic.Error)(nil); a.Bug != "ignore_retry_after" || !errors.As(err, &ae) {
			break
		}
	}
	return anthropic.Message{}, fmt.Errorf("asking the model: %w", err)
}

// RefundRequest is the body of a refund (POST RefundsURL, keyed by its
// Idempotency-Key header): Version is the order's record version the
// refund expects.
type RefundRequest struct {
	Order, Tenant, Actor, Purpose string
	Version                       int64
}

// post refunds the order of the tool call's arguments, of its tenant, for
// its purpose, at its version (the refund's expected version) under key,
// trying again, under the same key, an answer lost or unreadable, up to
// tries attempts.
func (a Agent) post(ctx context.Context, actor string, in args, key string, tries int) (string, error) {
	body, _ := json.Marshal(RefundRequest{Order: in.Order, Tenant: in.Tenant, Actor: actor, Purpose: in.Purpose, Version: int64(in.Version)})
	var err error
	for range tries {
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, a.RefundsURL, bytes.NewReader(body))
		if err != nil {
			return "", err
		}
		req.Header.Set("Idempotency-Key", key)
		var resp *http.Response
		if resp, err = a.HTTP.Do(req); err != nil {
			continue
		}
		var out struct{ ID string }
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		switch {
		case resp.StatusCode != http.StatusOK:
			return "", fmt.Errorf("the refund API answered %s", resp.Status)
		case err == nil && out.ID != "":
			return out.ID, nil
		case err == nil:
			err = errors.New("the refund API's answer carries no id")
		}
	}
	return "", fmt.Errorf("refund of %s: %w", in.Order, err)
}
