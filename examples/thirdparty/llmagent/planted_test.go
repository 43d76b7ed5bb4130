package llmagent_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/fuzz"
)

// planted are the bugs of the retry budget's check, each with the
// faults its check shrinks to and the invariant it breaks in the refund
// API's store, or in the count of calls (reask_on_refusal is
// TestTokenBudget's); fresh_budget_on_resume takes two faults.
var planted = []struct {
	bug, invariant, fault string
}{
	{"unbound_subject", "right_subject violated: first false after seq 4 (tool.commit), reached by f1 (subject_swap)", `"event": "proposal",` + "\n" + `              "ordinal": 1,` + "\n" + `              "kind": "subject_swap"`},
	{"reask_fresh_key", "effect_at_most_once violated: first false after seq 7 (tool.commit), reached by f1 (timeout_after_commit)", `"event": "tool.commit",` + "\n" + `              "ordinal": 2,` + "\n" + `              "kind": "timeout_after_commit"`},
	{"ignore_retry_after", "retry_paced violated: first false after seq 3 (tool.commit), reached by f1 (rate_limit)", `"event": "tool.commit",` + "\n" + `              "ordinal": 1,` + "\n" + `              "kind": "rate_limit"`},
	{"every_tool_call", "effect_at_most_once violated: first false after seq 5 (tool.commit), reached by f1 (duplicate_tool_call)", `"event": "proposal",` + "\n" + `              "ordinal": 1,` + "\n" + `              "kind": "duplicate_tool_call"`},
	{"refusal_as_done", "no_invented_progress violated: first false after seq 4 (claim), reached by f1 (model_refusal)", `"event": "proposal",` + "\n" + `              "ordinal": 1,` + "\n" + `              "kind": "model_refusal"`},
	{"ignore_context_version", "current_entitlement violated: first false after seq 4 (tool.commit), reached by f1 (stale_context): state version changed before effect", `"event": "proposal",` + "\n" + `              "ordinal": 1,` + "\n" + `              "kind": "stale_context"`},
	{"fresh_budget_on_resume", "budget violated: first false after seq 10 (tool.commit), reached by f2 (worker_crash): attempt 6 exceeds one plus the retry budget of 4",
		`"ordinal": 1,` + "\n" + `              "kind": "budget_exhaustion"` + "\n" + `            },` + "\n" + `            {` + "\n" + `              "event": "tool.commit",` + "\n" + `              "ordinal": 3,` + "\n" + `              "kind": "worker_crash"`},
}

// providers are the two configurations of the agent: over
// anthropic-sdk-go ("") and over openai-go ("openai").
var providers = []string{"", "openai"}

// TestCheckFindsEachBug runs TestCheck without WithKinds (LLMAGENT_PLAIN:
// the default search over every kind, the answer faults on the model's
// stream included) on each planted agent, over each SDK, in a process of
// its own: it fails with the bug's invariant, shrunk to one fault (two,
// budget_exhaustion then worker_crash, for fresh_budget_on_resume), and
// prints a replay line; that line, run alone (no bug in the environment:
// the bug and the provider are in the stored config), fails again with
// the same violation.
func TestCheckFindsEachBug(t *testing.T) {
	if os.Getenv("LLMAGENT_BODY") != "" {
		t.Skip("the subprocess runs TestCheck only")
	}
	for _, provider := range providers {
		for _, p := range planted {
			checkFinds(t, provider, p.bug, p.invariant, p.fault)
		}
	}
}

// checkFinds runs the planted agent's check over provider in a process of
// its own and its printed replay line alone.
func checkFinds(t *testing.T, provider, bug, invariant, fault string) {
	t.Helper()
	name, dir, shrunk := provider+"/"+bug, t.TempDir(), "minimal schedule (1 fault)"
	if bug == "fresh_budget_on_resume" {
		shrunk = "minimal schedule (2 faults)"
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCheck$", "-test.v")
	cmd.Env = subEnv("LLMAGENT_BUG="+bug, "LLMAGENT_PROVIDER="+provider, "LLMAGENT_BODY=1", "LLMAGENT_FAIL_DIR="+dir, "LLMAGENT_PLAIN=1")
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err == nil || !strings.Contains(out, shrunk) || !strings.Contains(out, invariant) || !strings.Contains(out, fault) {
		t.Fatalf("%s: want %q, %s (%v):\n%s", name, invariant, shrunk, err, out)
	}
	if strings.Contains(out, "nondeterministic replay") || strings.Contains(out, "a harness or option error") {
		t.Fatalf("%s: a harness error:\n%s", name, out)
	}
	m := regexp.MustCompile(`replay: FAULTLINE_REPLAY=(\S+) go test -run '\^TestCheck\$' \./llmagent`).FindStringSubmatch(out)
	if m == nil || filepath.Dir(m[1]) != dir {
		t.Fatalf("%s: no replay line into %s:\n%s", name, dir, out)
	}
	replay := exec.Command(os.Args[0], "-test.run", "^TestCheck$", "-test.v")
	replay.Env = subEnv("FAULTLINE_REPLAY="+m[1], "LLMAGENT_PROVIDER=")
	b, err = replay.CombinedOutput()
	if err == nil || !strings.Contains(string(b), invariant) {
		t.Fatalf("%s: the replay line did not fail with %q (%v):\n%s", name, invariant, err, b)
	}
}

// sites are the decoder's sites in scope "ordinals" (each kind at every
// crossing of its event in the clean run, in catalogue order: the model's
// reply is tool.commit#1 and proposal#1, the refund tool.commit#2); seed
// i is a single fault at sites[i].
var sites = []string{"subject_swap@proposal#1", "timeout_after_commit@tool.commit#1", "timeout_after_commit@tool.commit#2",
	"malformed_response@tool.commit#1", "malformed_response@tool.commit#2", "rate_limit@tool.commit#1", "rate_limit@tool.commit#2",
	"duplicate_tool_call@proposal#1", "model_refusal@proposal#1", "stale_context@proposal#1", "omitted_context@proposal#1"}

// TestFuzzFindsEachBug runs FuzzAgent's seeds (one-byte inputs, each a
// single fault at one of the decoder's sites, through fuzz.Campaign) on
// each planted agent, over each SDK, in a process of its own: exactly the
// seeds at the bug's sites fail, with its invariant, naming TestCheck's
// replay line; with the bugs off none fails and the campaign reached
// faults. reask_on_refusal's campaign runs on budgeted() (the token
// budget of 74), which its one seed breaks at the third reply.
func TestFuzzFindsEachBug(t *testing.T) {
	if os.Getenv("LLMAGENT_BODY") != "" {
		t.Skip("the subprocess runs FuzzAgent only")
	}
	want := map[string][]string{"": nil, "unbound_subject": {"subject_swap@proposal#1"},
		"reask_fresh_key":    {"timeout_after_commit@tool.commit#2", "malformed_response@tool.commit#2", "rate_limit@tool.commit#2"},
		"ignore_retry_after": {"rate_limit@tool.commit#1"}, "every_tool_call": {"duplicate_tool_call@proposal#1"},
		"refusal_as_done": {"model_refusal@proposal#1"}, "reask_on_refusal": {"model_refusal@proposal#1"},
		"ignore_context_version": {"stale_context@proposal#1", "omitted_context@proposal#1"}}
	invariant := map[string]string{"unbound_subject": "right_subject violated", "reask_fresh_key": "effect_at_most_once violated",
		"ignore_retry_after": "retry_paced violated", "every_tool_call": "effect_at_most_once violated", "refusal_as_done": "no_invented_progress violated",
		"reask_on_refusal": "budget violated: 111 model tokens exceed the token budget of 74", "ignore_context_version": "current_entitlement violated: state version changed before effect"}
	for _, run := range runsOver(providers, []string{"", "unbound_subject", "reask_fresh_key", "ignore_retry_after", "every_tool_call", "refusal_as_done", "reask_on_refusal", "ignore_context_version"}) {
		provider, bug := run[0], run[1]
		budget := ""
		if bug == "reask_on_refusal" {
			budget = "1"
		}
		cmd := exec.Command(os.Args[0], "-test.run", "^FuzzAgent$", "-test.v")
		cmd.Env = subEnv("LLMAGENT_BUG="+bug, "LLMAGENT_PROVIDER="+provider, "LLMAGENT_BODY=1", "LLMAGENT_FAIL_DIR="+t.TempDir(), "LLMAGENT_TOKEN_BUDGET="+budget)
		b, err := cmd.CombinedOutput()
		out := string(b)
		var found []string
		for _, m := range regexp.MustCompile(`--- FAIL: FuzzAgent/seed#(\d+)`).FindAllStringSubmatch(out, -1) {
			i, _ := strconv.Atoi(m[1])
			found = append(found, sites[i])
		}
		if !slices.Equal(found, want[bug]) || (err != nil) != (bug != "") {
			t.Errorf("%q over %q: the campaign's seeds found %q, want %q (%v):\n%s", bug, provider, found, want[bug], err, out)
		}
		if bug != "" && (!strings.Contains(out, "go test -run '^TestCheck$' ./llmagent") || !strings.Contains(out, invariant[bug])) {
			t.Errorf("%q over %q: no replay line, or not %q:\n%s", bug, provider, invariant[bug], out)
		}
	}
}

// subEnv is the environment of a subprocess of the package's tests: this
// process's, with GOGC=400 (a short-lived check collects less often:
// fresh_budget_on_resume's walk of 1,228 schedules spends about a fifth
// less CPU, its memory staying under 60 MB) and kv.
func subEnv(kv ...string) []string {
	return append(append(os.Environ(), "GOGC=400"), kv...)
}

// runsOver is every (provider, bug) pair, providers first.
func runsOver(providers, bugs []string) (out [][2]string) {
	for _, p := range providers {
		for _, b := range bugs {
			out = append(out, [2]string{p, b})
		}
	}
	return out
}

// FuzzAgent is the campaign (go test -fuzz FuzzAgent ./llmagent): any
// bytes decode into faults on the agent's run; LLMAGENT_BUG plants a bug
// and LLMAGENT_TOKEN_BUDGET runs budgeted() (TestFuzzFindsEachBug's
// subprocess). Its seeds are the one-byte inputs.
func FuzzAgent(f *testing.F) {
	bug := os.Getenv("LLMAGENT_BUG")
	if bug != "" && os.Getenv("LLMAGENT_BODY") == "" {
		f.Skip("a planted agent's campaign runs in TestFuzzFindsEachBug's subprocess")
	}
	for i := range len(sites) {
		f.Add([]byte{byte(i)})
	}
	opts := []fuzz.Option{fuzz.WithConfig(config(bug)), fuzz.WithKinds(kinds...), fuzz.WithScope("ordinals"), fuzz.WithReplayTest("TestCheck")}
	if dir := os.Getenv("LLMAGENT_FAIL_DIR"); dir != "" {
		opts = append(opts, fuzz.WithFailDir(dir))
	}
	def := definition()
	if os.Getenv("LLMAGENT_TOKEN_BUDGET") != "" {
		def = budgeted()
	}
	fuzz.Campaign(f, def, opts...)
}
