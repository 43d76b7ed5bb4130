package snapshots_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
)

// TestCommandLineRefuses: the janitor is production code (a Clock), whose
// runs need a test's testing/synctest bubbles, so a command line of it
// (cli.Main) runs none: each command that runs a system refuses it before
// any run, exit 2, nothing on stdout, with the one error naming the test's
// doors (the Definition's ReplayCommand when it has one); the coverage
// commands, which read files, still work.
func TestCommandLineRefuses(t *testing.T) {
	dir := t.TempDir()
	sched := filepath.Join(dir, "clean.json")
	practice := filepath.Join(dir, "practice.json")
	if err := os.WriteFile(sched, []byte(`{"version":2,"seed":"clean","config":{"harness":{"fixture":"nightly"},"system":{}},"faults":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(practice, []byte(`{"seed":"p","faults":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const words = "snapshots: snapshots is production code (its Definition has a Clock): each of its runs needs a testing/synctest bubble, which only a test has, " +
		"so no command of a command line runs it: explore it with properties.Check(t, def) in a test and replay a file with the line a counterexample prints, "
	generic := words + "FAULTLINE_REPLAY=FILE go test -run '^TestX$' ./PKG\n"
	for _, args := range [][]string{
		{"replay", sched},
		{"replay", "--twice", sched},
		{"explore", "--seed", "1", "--checks", "5"},
		{"explore", "--exhaustive", "--max-faults", "1"},
		{"audit"},
		{"dossier", "--out", filepath.Join(dir, "dossier")},
		{"matrix"},
		{"schedule", "import", practice},
	} {
		var out, errb bytes.Buffer
		p := &cli.Program{Name: "snapshots", Systems: []*model.Definition{definition(t)}}
		if code := p.Run(args, &out, &errb); code != cli.ExitBadInput || out.Len() != 0 || errb.String() != generic {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out.String(), errb.String(), generic)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "dossier")); !os.IsNotExist(err) {
		t.Errorf("dossier --out: the refused command made its folder (%v)", err)
	}
	// the Definition's replay line, when it has one
	def := definition(t)
	def.ReplayCommand = "FAULTLINE_REPLAY=%s go test -run '^TestCheck$' ./examples/snapshots"
	var out, errb bytes.Buffer
	code := (&cli.Program{Name: "snapshots", Systems: []*model.Definition{def}}).Run([]string{"replay", sched}, &out, &errb)
	if want := words + "FAULTLINE_REPLAY=FILE go test -run '^TestCheck$' ./examples/snapshots\n"; code != cli.ExitBadInput || errb.String() != want {
		t.Errorf("replay with a ReplayCommand: exit %d, stderr %q; want exit 2 and %q", code, errb.String(), want)
	}
	// the Clock is the whole rule: without one the same command runs the
	// janitor's clean schedule (exit 0)
	bare := definition(t)
	bare.Clock = nil
	out.Reset()
	errb.Reset()
	if code := (&cli.Program{Name: "snapshots", Systems: []*model.Definition{bare}}).Run([]string{"replay", sched}, &out, &errb); code != cli.ExitOK {
		t.Errorf("replay without a Clock: exit %d, %s%s", code, out.String(), errb.String())
	}
	// a command that reads files takes production code's coverage
	cov := filepath.Join(dir, "cov.json")
	tr, err := coverage.NewTracker(nil, def)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.FlushTo(cov); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := (&cli.Program{Name: "snapshots", Systems: []*model.Definition{def}}).Run([]string{"coverage", "report", cov}, &out, &errb); code != cli.ExitOK || out.Len() == 0 {
		t.Errorf("coverage report: exit %d, %s%s", code, out.String(), errb.String())
	}
}
