package archiver_test

// The archiver tested as a user tests their own system: a Check test, a
// native fuzz target of a few lines, and the replay of the target's
// failure through the command it prints. ARCHIVER_BUG=1 plants the bug;
// ARCHIVER_FAIL_DIR keeps the failures out of the package's testdata.

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

func config() model.Config {
	if os.Getenv("ARCHIVER_BUG") == "1" {
		return model.Config{System: archiver.Planted}
	}
	return model.Config{System: json.RawMessage(`{}`)}
}

// TestArchiverCheck explores the archiver under config() (100 checks from
// seed 1); a fuzz failure's replay command runs it with FAULTLINE_REPLAY.
func TestArchiverCheck(t *testing.T) {
	for name, v := range map[string]string{"rapid.checks": "100", "rapid.seed": "1", "rapid.nofailfile": "true"} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { flag.Set(name, old) })
	}
	def := archiver.Definition()
	opts := []properties.Option{properties.WithConfig(config())}
	if dir := os.Getenv("ARCHIVER_FAIL_DIR"); dir != "" {
		opts = append(opts, properties.WithFailDir(dir))
	}
	properties.Check(t, def, opts...)
}

// FuzzArchiver is the archiver's native fuzz target.
func FuzzArchiver(f *testing.F) {
	opts := []fuzz.Option{fuzz.WithConfig(config()), fuzz.WithReplayTest("TestArchiverCheck")}
	if dir := os.Getenv("ARCHIVER_FAIL_DIR"); dir != "" {
		opts = append(opts, fuzz.WithFailDir(dir))
	}
	for b := range 20 {
		f.Add([]byte{byte(b)})
	}
	f.Fuzz(fuzz.For(archiver.Definition(), opts...))
}

// run runs this test binary on the tests matching pattern with env added,
// and returns whether it passed and its output.
func run(t *testing.T, pattern string, env ...string) (bool, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+pattern, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), append(env, "ARCHIVER_NESTED=1")...)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return err == nil, string(out)
}

// TestFuzzTargetFindsAndReplays: go test -run=FuzzArchiver passes on the
// fixed archiver and fails on the planted bug with archived_once, the
// shrunk schedule written to the fail folder and a replay command that,
// run as printed, fails TestArchiverCheck with the same invariant (under
// the file's own config), and the test's own run without the bug reports
// the stored file fixed.
func TestFuzzTargetFindsAndReplays(t *testing.T) {
	if os.Getenv("ARCHIVER_NESTED") != "" {
		t.Skip("nested run")
	}
	dir := t.TempDir()
	if ok, out := run(t, "^FuzzArchiver$", "ARCHIVER_FAIL_DIR="+dir); !ok || !strings.Contains(out, "--- PASS: FuzzArchiver") {
		t.Fatalf("fixed archiver: passed %t\n%s", ok, out)
	}
	ok, out := run(t, "^FuzzArchiver$", "ARCHIVER_FAIL_DIR="+dir, "ARCHIVER_BUG=1")
	if ok || !strings.Contains(out, "--- FAIL: FuzzArchiver") || !strings.Contains(out, "archived_once violated: 2 copies of the document archived") {
		t.Fatalf("planted bug: passed %t\n%s", ok, out)
	}
	// the failure points at the target's line in this file, not at
	// reflect's value.go, and prints one replay route: the fail folder's
	if !regexp.MustCompile(`(?m)^ +target\.go:\d+: archiver_test\.go:58: `).MatchString(out) || strings.Contains(out, "value.go") ||
		strings.Contains(out, "echo ") || strings.Count(out, "FAULTLINE_REPLAY=") != strings.Count(out, "replay the shrunk schedule: FAULTLINE_REPLAY=") {
		t.Errorf("the failure's position or replay route:\n%s", out)
	}
	m := regexp.MustCompile(`replay the shrunk schedule: FAULTLINE_REPLAY=(\S+) go test -run '\^TestArchiverCheck\$' \./internal/archiver\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no replay command in:\n%s", out)
	}
	file := m[1]
	if filepath.Dir(file) != dir {
		t.Fatalf("file %s outside the fail folder %s", file, dir)
	}
	s, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := model.ParseSchedule(s); err != nil || len(sc.Faults) != 1 {
		t.Fatalf("the written schedule: %v\n%s", err, s)
	}
	ok, out = run(t, "^TestArchiverCheck$", "FAULTLINE_REPLAY="+file, "ARCHIVER_BUG=1")
	if ok || !strings.Contains(out, "counterexample replayed from FAULTLINE_REPLAY="+file) || !strings.Contains(out, "archived_once violated") {
		t.Fatalf("replay with the bug: passed %t\n%s", ok, out)
	}
	// the bug is the config's: an explicit replay reproduces the run that
	// failed under its own config whatever the test's is now, while the
	// test's own run under the fixed config finds the stored file fixed
	ok, out = run(t, "^TestArchiverCheck$", "FAULTLINE_REPLAY="+file)
	if ok || !strings.Contains(out, "replayed under its own config (bug fresh_keys), not the test's (fixed)") || !strings.Contains(out, "archived_once violated") {
		t.Fatalf("explicit replay under the fixed test config: passed %t\n%s", ok, out)
	}
	ok, out = run(t, "^TestArchiverCheck$", "ARCHIVER_FAIL_DIR="+dir)
	if !ok || !strings.Contains(out, "holds now: fixed") {
		t.Fatalf("the test's own run without the bug: passed %t\n%s", ok, out)
	}
}
