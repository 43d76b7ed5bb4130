package llmagent_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// kinds are the kinds the example explores: the model's reply swapped,
// lost, cut mid-stream and overloaded (Anthropic's 529 with
// Retry-After), and the same at the refund; the reply repeating its tool
// call, the model refusing, and its call relying on the context version
// before the record's, or on none.
var kinds = []string{"subject_swap", "timeout_after_commit", "malformed_response", "rate_limit", "duplicate_tool_call", "model_refusal", "stale_context", "omitted_context"}

// config is the config of bug ("" for none): a retry budget of four (five
// calls per task, the model's included: the correct agent makes at most
// three model attempts, the SDK's, and two refund attempts, whatever
// fails).
func config(bug string) model.Config { return configOf(os.Getenv("LLMAGENT_PROVIDER"), bug) }

// configOf is the config of bug over provider ("" for Anthropic's API,
// "openai" for OpenAI's).
func configOf(provider, bug string) model.Config {
	sys, _ := json.Marshal(map[string]string{"bug": bug, "provider": provider})
	budget := 4
	return model.Config{System: sys, RetryBudget: &budget}
}

// TestCheck is the check a team writes, each run in a synctest bubble:
// the default search over the kinds. LLMAGENT_BUG plants a bug (the
// subprocess of TestCheckFindsEachBug); its replay line replays a stored
// schedule, whose config carries the bug. LLMAGENT_PLAIN=1 drops
// WithKinds: the default search over every kind (TestCheckFindsEachBug's),
// which over the correct agent, on either SDK, finds nothing in its walk
// of 2,888 schedules and 100 checks (about 1 CPU-s an SDK, so go test
// keeps the kinds).
func TestCheck(t *testing.T) {
	bug := os.Getenv("LLMAGENT_BUG")
	if bug != "" && os.Getenv("LLMAGENT_BODY") == "" {
		t.Skip("a planted agent's check runs in TestCheckFindsEachBug's subprocess")
	}
	opts := []properties.Option{properties.WithConfig(config(bug))}
	if os.Getenv("LLMAGENT_PLAIN") == "" {
		opts = append(opts, properties.WithKinds(kinds...))
	}
	if dir := os.Getenv("LLMAGENT_FAIL_DIR"); dir != "" {
		opts = append(opts, properties.WithFailDir(dir))
	}
	def := definition()
	if os.Getenv("LLMAGENT_TOKEN_BUDGET") != "" {
		def = budgeted() // TestTokenBudget's subprocess
	}
	properties.Check(t, def, opts...)
}

// TestCheckOpenAI is the same check over openai-go (the SDK's default
// retries, which obey Retry-After and jitter their back-off): with no bug
// it finds nothing.
func TestCheckOpenAI(t *testing.T) {
	if os.Getenv("LLMAGENT_BODY") != "" {
		t.Skip("a planted agent's check runs in TestCheckFindsEachBug's subprocess")
	}
	properties.Check(t, definition(), properties.WithKinds(kinds...), properties.WithConfig(configOf("openai", "")))
}
