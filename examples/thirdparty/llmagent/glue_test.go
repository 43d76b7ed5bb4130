package llmagent_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/faultline/faultline/properties"
)

// TestAgentImportsNoFaultline: go list -deps of the agent's package names
// no faultline package but itself.
func TestAgentImportsNoFaultline(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/faultline/faultline") && d != "github.com/faultline/faultline/examples/thirdparty/llmagent" {
			t.Errorf("the agent depends on %s", d)
		}
	}
	if !strings.Contains(string(out), "github.com/anthropics/anthropic-sdk-go/v2\n") || len(deps) < 50 {
		t.Errorf("go list -deps: %d packages, no anthropic-sdk-go?\n%s", len(deps), out)
	}
}

// TestBogusEnvironment: with the SDK's environment variables set to
// bogus values (a base URL off loopback, which the joined transport would
// refuse, and other keys) the check is the same: the agent sets its base
// URL, key and client itself.
func TestBogusEnvironment(t *testing.T) {
	for _, k := range []string{"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_BASE_URL", "OPENAI_API_KEY"} {
		t.Setenv(k, "https://bogus.invalid/"+k)
	}
	properties.Check(t, definition(), properties.WithKinds(kinds...), properties.WithConfig(config("")))
}

// TestUnknownBug: a config naming no planted bug is refused, with the
// valid names.
func TestUnknownBug(t *testing.T) {
	_, err := definition().Configure([]byte(`{"bug": "typo"}`))
	want := `system {"bug": "typo"}: want {"bug": one of ["unbound_subject" "reask_fresh_key" "ignore_retry_after" "every_tool_call" "refusal_as_done" "reask_on_refusal" "ignore_context_version" "fresh_budget_on_resume"], "provider": "openai" or none} (<nil>)`
	if err == nil || err.Error() != want {
		t.Errorf("err %v, want %s", err, want)
	}
}

// TestGlueLines: the glue, faultline_test.go, is at most 60 code lines
// (neither blank nor a comment), the fake refund API included, and
// docs/llm-agents.md shows it whole.
func TestGlueLines(t *testing.T) {
	glue, err := os.ReadFile("faultline_test.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(glue), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "//") {
			n++
		}
	}
	if n != 59 {
		t.Errorf("the glue has %d code lines, want 59 (at most 60)", n)
	}
	doc, err := os.ReadFile("../../../docs/llm-agents.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```go\n"+string(glue)+"```\n") {
		t.Error("docs/llm-agents.md does not show faultline_test.go whole")
	}
}
