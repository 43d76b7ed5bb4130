package stripeagent_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/corpus"
)

// TestCheckFindsThePlantedBug runs TestCheck on the planted agent in a
// process of its own (a fresh math/rand seed, as a developer's run has):
// it fails with the second refund, shrunk to one persistent lost reply
// (stripe-go retries it twice, the second time after a jittered back-off,
// then the agent calls Create again under a fresh automatic key), stores
// the counterexample and prints the replay line, never a harness error.
// The confirming rerun crosses the same events at times up to 500 ms apart
// (stripe-go jitters its second back-off by up to 250 ms, and each of the
// agent's two Create calls backs off twice); the report and the file say
// by how much.
func TestCheckFindsThePlantedBug(t *testing.T) {
	if os.Getenv("STRIPEAGENT_BODY") != "" {
		t.Skip("the subprocess runs TestCheck only")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCheck$", "-test.v")
	cmd.Env = append(os.Environ(), "STRIPEAGENT_PLANTED=1", "STRIPEAGENT_BODY=1", "STRIPEAGENT_FAIL_DIR="+dir)
	b, err := cmd.CombinedOutput()
	out := string(b)
	for _, want := range []string{
		// the task refund-ch_1 by its reference, as every output of a run shows it
		"effect_at_most_once violated: first false after seq 5 (tool.commit), reached by f1 (timeout_after_commit): second ledger effect for task ref-17faaf2d",
		`"kind": "timeout_after_commit",` + "\n" + `              "correlation": "persistent"`,
		"replay: ",
	} {
		if err == nil || !strings.Contains(out, want) {
			t.Fatalf("want %q in the failing check's output (%v):\n%s", want, err, out)
		}
	}
	if strings.Contains(out, "nondeterministic replay") || strings.Contains(out, "a harness or option error") {
		t.Fatalf("a harness error:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "cx-effect_at_most_once-*.counterexample.json"))
	if len(files) != 1 {
		t.Fatalf("counterexample files %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	cx, err := corpus.ParseCounterexample(data)
	if err != nil {
		t.Fatal(err)
	}
	note := regexp.MustCompile(`logical times vary between runs \(global randomness, e\.g\. a jittered back-off\): up to (\d+) ms`)
	m := note.FindStringSubmatch(out)
	if m == nil {
		// the two back-offs drew jitters within one ms of each other
		if cx.Jitter != "" {
			t.Fatalf("the file says %q, the report nothing:\n%s", cx.Jitter, out)
		}
		return
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 || n > 500 || cx.Jitter != m[0] {
		t.Fatalf("jitter %s ms, file %q", m[1], cx.Jitter)
	}
}
