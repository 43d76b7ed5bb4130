package jobqueue_test

// Measurements of the paths of jobqueue_test.go on the unmodified payout
// worker: with the blind resume planted, the single restart faults, the
// default exploration (properties.Check), the exhaustive walk and the
// fuzz target each find it, and the replay command the exploration
// prints reproduces it; with it off, none finds anything. The
// explorations that must fail run as subprocesses of this test binary
// (Check fails the *testing.T it is given), the replay as the printed
// command with the compiled test binary in place of go test.

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/faultline/faultline/examples/thirdparty/jobqueue"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// Environment of the subprocesses: JOBQUEUE_PLANTED plants the bug in
// TestPlanted and FuzzJobs, JOBQUEUE_FAILDIR is where they write, and
// JOBQUEUE_RANDOM leaves TestPlanted's walk out (rapid's draws only).
const (
	plantedEnv = "JOBQUEUE_PLANTED"
	failDirEnv = "JOBQUEUE_FAILDIR"
	randomEnv  = "JOBQUEUE_RANDOM"
)

// fuzzed is FuzzJobs's config and fail directory.
func fuzzed() []fuzz.Option {
	opts := []fuzz.Option{fuzz.WithConfig(jobqueue.Config(os.Getenv(plantedEnv) != "")), fuzz.WithKinds(kinds...), fuzz.WithScope("ordinals")}
	if dir := os.Getenv(failDirEnv); dir != "" {
		opts = append(opts, fuzz.WithFailDir(dir))
	}
	return opts
}

// TestPlanted explores the worker with the blind resume planted. It runs
// only as a subprocess (TestCheckFindsBug, scripts/jobqueue-table.sh), or
// under FAULTLINE_REPLAY: the replay command its counterexample prints.
func TestPlanted(t *testing.T) {
	if os.Getenv(plantedEnv) == "" && os.Getenv(properties.ReplayEnv) == "" {
		t.Skip("runs as a subprocess, or under FAULTLINE_REPLAY")
	}
	opts := []properties.Option{properties.WithConfig(jobqueue.Config(true)), properties.WithKinds(kinds...)}
	if dir := os.Getenv(failDirEnv); dir != "" {
		opts = append(opts, properties.WithFailDir(dir))
	}
	if os.Getenv(randomEnv) != "" {
		opts = append(opts, properties.WithMaxSchedules(0))
	}
	properties.Check(t, definition(t), opts...)
}

// run runs s on the worker with the bug planted or not, in a synctest
// bubble of t.
func run(t *testing.T, s *model.Schedule, bug bool) *model.Result {
	t.Helper()
	s.Version, s.Seed, s.Config = model.ScheduleVersion, "pair", jobqueue.Config(bug)
	var res *model.Result
	var err error
	synctest.Test(t, func(*testing.T) { res, err = definition(t).Run(s, model.Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// restarts are the restart faults that find the blind resume, each where
// it finds it: a crash right after job-1's payout, a restart after its
// receipt is written, and the same with the ledger row before it served
// to the restarted worker.
var restarts = []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "worker_crash"},
	{Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "worker_restart"},
	{Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "stale_checkpoint"}}

// TestRestartPairs: under each restart the blind worker, a fresh process
// that mints a new key, pays job-1 twice (effect_at_most_once at the
// second tool.commit, reached by f1, two rows in the provider), and the
// worker that reads its ledger resumes under the stored key and pays
// once. The crashed process's goqite Delete never ran: the job was
// delivered again after its 1 s visibility timeout.
func TestRestartPairs(t *testing.T) {
	for _, f := range restarts {
		bad := run(t, &model.Schedule{Faults: []model.FaultEntry{f}}, true)
		inv, _ := bad.Invariant(model.InvEffectAtMostOnce)
		var commits []model.Millis
		var keys []string
		for _, e := range bad.Timeline.Events() {
			if e.Event == model.EvToolCommit {
				commits, keys = append(commits, e.At), append(keys, e.Detail)
			}
		}
		if inv.Held || inv.Event != model.EvToolCommit || inv.FaultID != "f1" || inv.Detail != "second ledger effect for task job-1" ||
			bad.Faults[0].Fired != 1 || !slices.Equal(commits, []model.Millis{0, 1000, 1000}) {
			t.Errorf("%s, bug: %+v, fault %+v, commits at %v: %q", f.Kind, inv, bad.Faults[0], commits, keys)
		}
		good := run(t, &model.Schedule{Faults: []model.FaultEntry{f}}, false)
		if err := good.Err(); err != nil || good.Faults[0].Fired != 1 || len(good.Claims) != 2 {
			t.Errorf("%s, no bug: %v, fault %+v", f.Kind, err, good.Faults[0])
		}
	}
}

// self runs this test binary with args and the environment without
// FAULTLINE_ and JOBQUEUE_ variables plus env, and returns its combined
// output and exit code.
func self(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FAULTLINE_") && !strings.HasPrefix(kv, "JOBQUEUE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s %q: %v", os.Args[0], args, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// replayed runs a printed replay command, "FAULTLINE_REPLAY=FILE go test
// -run 'PATTERN' ./jobqueue", with this binary for go test, and returns
// its output; it must exit 1.
func replayed(t *testing.T, command string) string {
	t.Helper()
	m := regexp.MustCompile(`^FAULTLINE_REPLAY=(\S+) go test -run '(\^Test\w+\$)' \./jobqueue$`).FindStringSubmatch(command)
	if m == nil {
		t.Fatalf("replay command %q", command)
	}
	out, code := self(t, []string{properties.ReplayEnv + "=" + m[1]}, "-test.run="+m[2])
	if code != 1 || !strings.Contains(out, "properties: counterexample replayed from FAULTLINE_REPLAY="+m[1]) {
		t.Fatalf("%s: exit %d\n%s", command, code, out)
	}
	return out
}

// line returns the first line of out that starts (after spaces) with
// prefix, without the prefix.
func line(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), prefix); ok {
			return s
		}
	}
	return ""
}

// cx is the counterexample the default check reports: one restart after
// job-1's receipt is written (job-1 shows as its reference, as in every
// output of a run).
const cx = "effect_at_most_once violated: first false after seq 8 (tool.commit), reached by f1 (worker_restart): second ledger effect for task ref-2fc26916"

// TestCheckFindsBug: the default check of the planted bug (rapid's seed
// 1) fails at the walk's 9th schedule with a one-fault counterexample,
// and the replay command it prints reproduces it.
func TestCheckFindsBug(t *testing.T) {
	if testing.Short() {
		t.Skip("an exploration and its replay in subprocesses")
	}
	out, code := self(t, []string{plantedEnv + "=1", failDirEnv + "=" + t.TempDir()}, "-test.run=^TestPlanted$", "-rapid.seed=1", "-rapid.nofailfile")
	want := "properties: counterexample at schedule 9 of the walk over the schedules of at most 2 faults (an invariant violated, exit 1): " + cx
	if code != 1 || !strings.Contains(out, "minimal schedule (1 fault):") || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want %q:\n%s", code, want, out)
	}
	command := line(out, "replay: ")
	if got := replayed(t, command); !strings.Contains(got, cx) {
		t.Errorf("the replay lacks %q:\n%s", cx, got)
	}
}

// TestExhaustiveFindsBug: the exhaustive walk (properties.Explore, in one
// bubble of the test) finds the blind resume at its 9th schedule, one
// restart after job-1's receipt is written; over the correct worker its
// first 100 schedules (every one of at most two faults, and 73 of three)
// find nothing.
func TestExhaustiveFindsBug(t *testing.T) {
	if testing.Short() {
		t.Skip("two exhaustive walks")
	}
	for _, bug := range []bool{true, false} {
		var rep *properties.Report
		var err error
		synctest.Test(t, func(*testing.T) {
			rep, err = properties.Explore(definition(t), properties.WithExhaustive(), properties.WithKinds(kinds...),
				properties.WithConfig(jobqueue.Config(bug)), properties.WithMaxSchedules(100))
		})
		if err != nil {
			t.Fatal(err)
		}
		x := rep.Exhaustive
		if !bug {
			if rep.Found || x.Schedules != 100 || !slices.Equal(x.PerSize, []int{1, 26, 73, 0}) || x.Fired == 0 {
				t.Errorf("correct worker: found %v, %+v", rep.Found, x)
			}
			continue
		}
		c := rep.Counterexample
		if !rep.Found || x.Index != 9 || c.FaultKind != "worker_restart" || len(c.Schedule.Faults) != 1 ||
			c.Schedule.Faults[0].Event != model.EvCheckpointWrite || c.Schedule.Faults[0].Ordinal != 2 || !strings.HasPrefix(c.String(), cx) {
			t.Fatalf("blind resume: %+v\n%v", x, c)
		}
	}
}

// TestFuzzFindsBug: the fuzz target's 16 seed inputs (the kinds at the
// ordinals of the worker's clean run), with the bug planted, fail
// exactly at the six restarts that follow a payout: worker_restart and
// stale_checkpoint after each job's receipt, worker_crash after each
// payout; each failure is shrunk to its one fault and written. With the
// bug off they pass (go test runs FuzzJobs's seeds).
func TestFuzzFindsBug(t *testing.T) {
	if testing.Short() {
		t.Skip("the fuzz seeds in a subprocess")
	}
	out, code := self(t, []string{plantedEnv + "=1", failDirEnv + "=" + t.TempDir()}, "-test.run=^FuzzJobs$")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	var found []string
	// each failure prints its input's schedule, then the shrunk one
	input := regexp.MustCompile(`"event": "([a-z.]+)",\s*"ordinal": (\d),\s*"kind": "(\w+)"`)
	for _, part := range strings.Split(out, "input's schedule (canonical form):")[1:] {
		part, _, _ = strings.Cut(part, "shrunk to ")
		for _, m := range input.FindAllStringSubmatch(part, -1) {
			found = append(found, m[3]+"@"+m[1]+"#"+m[2])
		}
	}
	want := []string{"worker_restart@checkpoint.write#2", "worker_restart@checkpoint.write#4", "stale_checkpoint@checkpoint.write#2",
		"stale_checkpoint@checkpoint.write#4", "worker_crash@tool.commit#1", "worker_crash@tool.commit#2"}
	if !slices.Equal(found, want) || strings.Count(out, "--- FAIL: FuzzJobs/seed#") != len(want) {
		t.Errorf("the failing seed inputs were %q, want %q:\n%s", found, want, out)
	}
	if command := line(out, "replay the shrunk schedule: "); !strings.Contains(replayed(t, command), "second ledger effect for task ref-2fc26916") {
		t.Errorf("the replay of %q", command)
	}
}

// TestPayoutsImportsNoFaultline: the worker under test imports no package
// of faultline (go list -deps lists the standard library, goqite and the
// package itself).
func TestPayoutsImportsNoFaultline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "./payouts").Output()
	if err != nil {
		t.Fatalf("go list -deps ./payouts: %v", err)
	}
	var ours []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/faultline/faultline") {
			ours = append(ours, p)
		}
	}
	if want := []string{"github.com/faultline/faultline/examples/thirdparty/jobqueue/payouts"}; !slices.Equal(ours, want) || !strings.Contains(string(out), "\nmaragu.dev/goqite\n") {
		t.Fatalf("the worker depends on %q (want only itself), goqite listed: %v", ours, strings.Contains(string(out), "\nmaragu.dev/goqite\n"))
	}
}
