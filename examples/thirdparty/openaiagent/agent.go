// Package openaiagent is production code over openai-go, left unmodified
// with its default retries (two, each back-off jittered with math/rand's
// global source): an agent that submits one batch job per task. It imports
// no faultline package; its test (faultline_test.go) checks it through
// httpfault with a fake OpenAI API in process.
//
// Its planted bug (Agent.Planted) is the agent loop that, when New fails
// (openai-go's own retries spent on lost replies), submits again under a
// new Idempotency-Key instead of the one it sent, so the API makes a
// second batch job, billed twice.
package openaiagent

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Agent submits batch jobs through Client.
type Agent struct {
	Client openai.Client
	// Attempts is how many times the loop calls New (default 2).
	Attempts int
	// Planted: each attempt carries a new key (the bug); otherwise every
	// attempt carries "TASK:batch", which the API deduplicates.
	Planted bool
}

// Submit submits the batch of input file for task and returns the batch
// job's id. An error from the API itself (*openai.Error: a rejection, a
// rate limit openai-go gave up on) ends the loop; an error without the
// API's answer (a lost reply, an undecodable body) is tried again.
func (a Agent) Submit(ctx context.Context, task, file string) (string, error) {
	attempts := a.Attempts
	if attempts == 0 {
		attempts = 2
	}
	var err error
	for i := range attempts {
		key := task + ":batch"
		if a.Planted {
			key += ":" + strconv.Itoa(i+1)
		}
		var b *openai.Batch
		b, err = a.Client.Batches.New(ctx, openai.BatchNewParams{InputFileID: file,
			Endpoint: openai.BatchNewParamsEndpointV1ChatCompletions, CompletionWindow: openai.BatchNewParamsCompletionWindow24h},
			option.WithHeader("Idempotency-Key", key))
		if err == nil {
			return b.ID, nil
		}
		if ae := (*openai.Error)(nil); errors.As(err, &ae) {
			return "", fmt.Errorf("the API refused the batch: %w", err)
		}
	}
	return "", fmt.Errorf("batch of %s: no answer after %d attempts: %w", file, attempts, err)
}
