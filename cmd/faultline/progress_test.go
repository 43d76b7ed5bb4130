package main

import (
	"io"
	"regexp"
	"strings"
	"testing"
)

// fakeTerminal makes assay take its error stream for a terminal and
// render every progress update, for the rest of the test.
func fakeTerminal(t *testing.T) {
	old, oldThrottle := isTerminal, progressThrottle
	isTerminal = func(io.Writer) bool { return true }
	progressThrottle = -1
	t.Cleanup(func() { isTerminal, progressThrottle = old, oldThrottle })
}

// TestAssayProgressOnlyOnATerminal: on a buffer (not a terminal) the
// assay writes nothing to stderr; on a terminal it shows its progress
// there, trials done of --trials, the rate and the unsafe trials so far,
// and leaves stdout as it was; with --json nothing at all.
func TestAssayProgressOnlyOnATerminal(t *testing.T) {
	args := []string{"assay", "--profile", "baseline", "--compat", "paper188", "--trials", "300", "--seed", "188"}
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	fakeTerminal(t)
	code, stdout2, stderr := runCLI(t, args...)
	if code != 0 || stdout2 != stdout {
		t.Fatalf("exit %d; stdout changed with the progress:\n%s\nvs\n%s", code, stdout2, stdout)
	}
	// 300 trials over the workers, each reporting every 3 of its own
	for _, re := range []string{`\(\d+/300, \d+ trials/(s|min|hr)\) \[\d+s:\d+s\]`, `unsafe: [1-9]\d*`} {
		if !regexp.MustCompile(re).MatchString(stderr) {
			t.Errorf("stderr does not match %s: %q", re, stderr)
		}
	}
	if !strings.HasSuffix(stderr, "\r") {
		t.Errorf("the progress line is not cleared at the end: %q", stderr)
	}
	code, _, stderr = runCLI(t, append(args, "--json")...)
	if code != 0 || stderr != "" {
		t.Fatalf("--json: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
}
