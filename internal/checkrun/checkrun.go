// Package checkrun runs one test of the running test binary as a
// subprocess and reads back what it reported: for the tests that assert
// how properties.Check fails the *testing.T it is given.
package checkrun

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Env is the variable a child test reads (Tag) to know it runs as one.
const Env = "FAULTLINE_CHECKRUN"

// Report is what the child reported.
type Report struct {
	// Failed is whether the child test failed.
	Failed bool
	// Messages are its t.Log and t.Error messages in order, each with its
	// lines joined by "\n".
	Messages []string
	// Output is the child's whole output.
	Output string
}

// start matches the first line of a message in go test -v output.
var start = regexp.MustCompile(`^    [^ ]+\.go:\d+: (.*)$`)

// Run runs the tests of the test binary matching pattern (-test.run),
// verbose, with args after, in the package directory, with env (KEY=VALUE)
// added and Env set to tag. The FAULTLINE_ variables of this process are
// not passed on.
func Run(t *testing.T, pattern, tag string, env []string, args ...string) Report {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run", pattern, "-test.v", "-test.count=1"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FAULTLINE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, env...), Env+"="+tag)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running %s: %v", pattern, err)
	}
	r := Report{Failed: err != nil, Output: string(out)}
	for _, line := range strings.Split(string(out), "\n") {
		if m := start.FindStringSubmatch(line); m != nil {
			r.Messages = append(r.Messages, m[1])
		} else if rest, ok := strings.CutPrefix(line, "        "); ok && len(r.Messages) > 0 {
			r.Messages[len(r.Messages)-1] += "\n" + rest
		}
	}
	return r
}

// Tag is the tag the parent gave the child ("" when the test does not run
// as a child).
func Tag() string { return os.Getenv(Env) }

// With returns the messages that start with prefix.
func (r Report) With(prefix string) []string {
	var out []string
	for _, m := range r.Messages {
		if strings.HasPrefix(m, prefix) {
			out = append(out, m)
		}
	}
	return out
}
