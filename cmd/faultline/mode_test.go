package main

import (
	"strings"
	"testing"
)

func TestAssayModeBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"assay", "--mode", "gremlin"}, `unknown fault kind "gremlin"`},
		{[]string{"assay", "--fault", "identity", "--mode", "timeout_after_commit"}, `fault kind "timeout_after_commit" is in domain tool, which is not selected`},
		{[]string{"assay", "--mode", "stale_policy,stale_policy"}, `fault kind "stale_policy" listed twice`},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}

// TestAssayModeRunsOneDomain: --mode alone runs the round robin over the
// mode's domain only.
func TestAssayModeRunsOneDomain(t *testing.T) {
	code, out, stderr := runCLI(t, "assay", "--profile", "baseline", "--mode", "timeout_after_commit", "--trials", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "\ntool           10 ") || strings.Contains(out, "\nidentity ") {
		t.Errorf("output:\n%s", out)
	}
}
