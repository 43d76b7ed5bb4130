package llmagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3"
	oaioption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// refundOpenAI is Refund over openai-go's Chat Completions (streamed, one
// function tool, refund), with the same bugs; a lost refund's reply goes
// back to the model as a tool message beginning "error".
func (a Agent) refundOpenAI(ctx context.Context, t Task) (string, error) {
	opts := []oaioption.RequestOption{oaioption.WithBaseURL(a.BaseURL + "v1/"), oaioption.WithAPIKey(a.APIKey), oaioption.WithHTTPClient(a.HTTP)}
	if a.Bug == "ignore_retry_after" {
		opts = append(opts, oaioption.WithMaxRetries(0))
	}
	client := openai.NewClient(opts...)
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(t.prompt())}
	for range 2 {
		reply, err := a.chat(ctx, client, msgs)
		if err != nil {
			return "", err
		}
		for i, first := 0, reply; i < 5 && a.Bug == "reask_on_refusal" && first.Refusal != ""; i++ {
			if reply, err = a.chat(ctx, client, msgs); err != nil {
				return "", err
			}
		}
		var calls []openai.ChatCompletionMessageToolCallUnion
		for _, c := range reply.ToolCalls {
			if c.Function.Name == "refund" {
				calls = append(calls, c)
			}
		}
		if len(calls) == 0 && a.Bug == "refusal_as_done" {
			return "", nil
		}
		if len(calls) == 0 {
			return "", fmt.Errorf("the model called no refund (refusal %q)", reply.Refusal)
		}
		if a.Bug != "every_tool_call" {
			calls = calls[:1]
		}
		var id string
		for _, call := range calls {
			var in args
			if err := json.Unmarshal([]byte(call.Function.Arguments), &in); err != nil {
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
		msgs = append(msgs, reply.ToParam(), openai.ToolMessage("error: "+err.Error(), calls[0].ID))
	}
	return "", errors.New("no refund after asking twice")
}

// chat streams one completion, asking for the stream's usage (as the
// API bills it); under ignore_retry_after it retries an error from the
// API itself at once, up to six attempts. A stream that ends without a
// finish reason is an error.
func (a Agent) chat(ctx context.Context, client openai.Client, msgs []openai.ChatCompletionMessageParamUnion) (openai.ChatCompletionMessage, error) {
	params := openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: msgs, StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}, Tools: []openai.ChatCompletionToolUnionParam{
		openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "refund", Description: openai.String("Refund an order."),
			Parameters: shared.FunctionParameters{"type": "object", "properties": refundArgs, "required": required}})}}
	var err error
	for range 6 {
		var acc openai.ChatCompletionAccumulator
		stream := client.Chat.Completions.NewStreaming(ctx, params)
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		err = stream.Err()
		stream.Close()
		if err == nil && len(acc.Choices) == 1 && acc.Choices[0].FinishReason != "" {
			return acc.Choices[0].Message, nil
		}
		if err == nil {
			err = errors.New("the reply stream ended before its finish reason")
		}
		if oe := (*openai.Error)(nil); a.Bug != "ignore_retry_after" || !errors.As(err, &oe) {
			break
		}
	}
	return openai.ChatCompletionMessage{}, fmt.Errorf("asking the model: %w", err)
}
