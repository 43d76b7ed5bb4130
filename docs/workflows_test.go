package docs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is the part of a GitHub Actions workflow file the tests read.
type workflow struct {
	Name string         `yaml:"name"`
	On   map[string]any `yaml:"on"`
	Jobs map[string]job `yaml:"jobs"`
}

type job struct {
	Permissions map[string]string               `yaml:"permissions"`
	Needs       any                             `yaml:"needs"`
	If          string                          `yaml:"if"`
	Strategy    struct{ Matrix map[string]any } `yaml:"strategy"`
	Env         map[string]string               `yaml:"env"`
	Steps       []step                          `yaml:"steps"`
}

type step struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
}

func readWorkflow(t *testing.T, name string) (workflow, string) {
	t.Helper()
	text := read(t, filepath.Join("..", ".github", "workflows", name))
	var w workflow
	if err := yaml.Unmarshal([]byte(text), &w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w, text
}

// named returns the step of j with the given name or id.
func (j job) named(t *testing.T, name string) step {
	t.Helper()
	for _, s := range j.Steps {
		if s.Name == name || s.ID == name {
			return s
		}
	}
	t.Fatalf("no step %q", name)
	return step{}
}

// uses returns the steps of j that use the action (owner/repo/path@ref).
func (j job) uses(action string) []step {
	var ss []step
	for _, s := range j.Steps {
		if s.Uses == action {
			ss = append(ss, s)
		}
	}
	return ss
}

// TestWorkflowsCheckedInCI: .ci/run checks every workflow with actionlint,
// pinned and installed from the Go module proxy into its temporary GOBIN,
// with the shellcheck integration off.
func TestWorkflowsCheckedInCI(t *testing.T) {
	ci := read(t, "../.ci/run")
	for _, want := range []string{
		`GOBIN="$gobin" go install "github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version"`,
		`"$gobin/actionlint" -shellcheck=` + "\n",
		"actionlint_version=v1.7.12\n",
	} {
		if !strings.Contains(ci, want) {
			t.Errorf(".ci/run lacks %q", want)
		}
	}
	ws, err := filepath.Glob("../.github/workflows/*.yml")
	if err != nil || len(ws) != 3 {
		t.Fatalf("workflows: %v %v", ws, err)
	}
}

// TestNightlyWorkflow: the nightly workflow runs a matrix of explore jobs,
// each a shard of one run of one seed per fixture, one fuzz job per
// native fuzz target, the tests' full-size versions (FAULTLINE_HEAVY=1),
// and a fan-in that merges and gates the explore jobs'
// coverage, gathers their counterexamples and names the run's.
func TestNightlyWorkflow(t *testing.T) {
	w, text := readWorkflow(t, "nightly.yml")
	if _, ok := w.On["schedule"]; !ok {
		t.Error("nightly.yml has no schedule")
	}
	if strings.Contains(text, "SEED_BASE") || strings.Contains(text, "matrix.index") {
		t.Error("nightly.yml still has the seed matrix")
	}
	ex := w.Jobs["explore"]
	shards, _ := ex.Strategy.Matrix["shard"].([]any)
	if len(shards) < 2 || !strings.Contains(text, "\n  SHARDS: \""+strconv.Itoa(len(shards))+"\"\n") {
		t.Errorf("explore's matrix has %d shards, and SHARDS must be their number", len(shards))
	}
	for i, s := range shards {
		if s != i+1 {
			t.Errorf("shard %d of the matrix is %v", i+1, s)
		}
	}
	run := ex.named(t, "explore").Run
	for _, flag := range []string{"explore ", `--seed "$SEED"`, `--checks "$CHECKS"`, `--shard "$SHARD/$SHARDS"`, `--coverage "cov-$FIXTURE-$SHARD.json"`, `--out "cx-$FIXTURE-$SHARD"`, `--otel "cx-$FIXTURE-$SHARD"`} {
		if !strings.Contains(run, flag) {
			t.Errorf("the explore step lacks %q:\n%s", flag, run)
		}
	}
	if got := len(ex.uses("actions/upload-artifact@v4")); got != 2 {
		t.Errorf("explore uploads %d artifacts, want 2 (coverage and counterexample)", got)
	}

	fz := w.Jobs["fuzz"]
	if s := fz.named(t, "fuzz"); s.WorkingDirectory != "fuzz" || s.Run != `go test -run='^$' -fuzz="^${TARGET}\$" -fuzztime="$FUZZTIME" -timeout=0 .` {
		t.Errorf("the fuzz step: %+v", s)
	}
	if m := fz.Strategy.Matrix["target"]; m != "${{ fromJSON(needs.fuzz-targets.outputs.targets) }}" {
		t.Errorf("the fuzz matrix is %v, want the listed targets", m)
	}

	hv := w.Jobs["heavy"].named(t, "go test with the full-size campaigns")
	if hv.Env["FAULTLINE_HEAVY"] != "1" || hv.Run != "go test -count=1 -timeout 30m ./..." {
		t.Errorf("the heavy job: %+v, want go test ./... with FAULTLINE_HEAVY=1", hv)
	}

	cov := w.Jobs["coverage"]
	if cov.Needs != "explore" || cov.If != "${{ !cancelled() }}" {
		t.Errorf("coverage: needs %v if %q, want explore, run even when an explore job failed", cov.Needs, cov.If)
	}
	if d := cov.uses("actions/download-artifact@v4"); len(d) != 2 || d[0].With["pattern"] != "coverage-*" || d[1].With["pattern"] != "counterexamples-*" {
		t.Errorf("coverage downloads %+v", d)
	}
	if !strings.Contains(cov.named(t, "merge").Run, "coverage merge merged-coverage.json coverage/cov-*.json") ||
		!strings.Contains(cov.named(t, "gate").Run, "coverage merge gated-coverage.json merged-coverage.json audit-coverage.json") ||
		!strings.Contains(cov.named(t, "gate").Run, "coverage gate gated-coverage.json --min-ratio 1") {
		t.Error("coverage does not merge and gate the downloaded files")
	}
}

// TestNightlyCommandsRun runs the nightly workflow's own scripts as its
// jobs would, with 200 checks over 2 shards: the fuzz target list is every
// Fuzz function of package fuzz, the two explore shards write their
// coverage files (and no counterexample, on the typed profile), the
// fan-in merges them into the coverage file of the one unsharded run,
// byte for byte, and passes the gate; of the shards' counterexamples
// (without idempotency), the fan-in names the one of the least index.
func TestNightlyCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds faultline and explores")
	}
	if raceDetector {
		t.Skip("faultline runs in other processes, which the race detector does not see; go test ./... runs this test")
	}
	w, _ := readWorkflow(t, "nightly.yml")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	sh := func(dir, script string, env ...string) string {
		t.Helper()
		c := exec.Command("bash", "-eo", "pipefail", "-c", script)
		c.Dir = dir
		c.Env = append(os.Environ(), append([]string{"RUNNER_TEMP=" + tmp, "CHECKS=200", "SEED=1", "SHARDS=2", "FUZZTIME=1s"}, env...)...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s\n%v\n%s", script, err, out)
		}
		return string(out)
	}

	if _, err := exec.LookPath("jq"); err == nil {
		outFile := filepath.Join(tmp, "output")
		sh(root, w.Jobs["fuzz-targets"].named(t, "list").Run, "GITHUB_OUTPUT="+outFile)
		var targets []string
		line, _ := strings.CutPrefix(strings.TrimSpace(read(t, outFile)), "targets=")
		if err := json.Unmarshal([]byte(line), &targets); err != nil {
			t.Fatalf("the target list %q: %v", line, err)
		}
		var fuzzFuncs []string
		files, _ := filepath.Glob("../fuzz/*_test.go")
		for _, f := range files {
			for _, l := range strings.Split(read(t, f), "\n") {
				if name, ok := strings.CutPrefix(l, "func Fuzz"); ok {
					fuzzFuncs = append(fuzzFuncs, "Fuzz"+name[:strings.Index(name, "(")])
				}
			}
		}
		slices.Sort(targets)
		slices.Sort(fuzzFuncs)
		if !slices.Equal(targets, fuzzFuncs) || len(targets) == 0 {
			t.Errorf("the fuzz matrix %v, want every Fuzz function %v", targets, fuzzFuncs)
		}
	}

	ex := w.Jobs["explore"]
	sh(root, ex.named(t, "build faultline").Run)
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(filepath.Join(work, "coverage"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, shard := range []string{"1", "2"} {
		envFile := filepath.Join(tmp, "env"+shard)
		out := sh(work, ex.named(t, "explore").Run, "FIXTURE=copperfin", "SHARD="+shard, "GITHUB_ENV="+envFile)
		name := "copperfin-" + shard
		if got := read(t, envFile); got != "NAME="+name+"\n" {
			t.Errorf("GITHUB_ENV: %q", got)
		}
		if !strings.HasPrefix(out, "no counterexample in 100 checks (shard "+shard+"/2 of 200 checks, seed 1, profile typed, fixture copperfin)\n") {
			t.Errorf("explore %s: %s", shard, out)
		}
		// what download-artifact does with the job's coverage artifact
		if err := os.Rename(filepath.Join(work, "cov-"+name+".json"), filepath.Join(work, "coverage", "cov-"+name+".json")); err != nil {
			t.Fatal(err)
		}
	}
	cov := w.Jobs["coverage"]
	if out := sh(work, cov.named(t, "merge").Run); !strings.HasPrefix(out, "merged 2 files into merged-coverage.json: 200 runs, 22 of 28 keys the systems can reach visited (of 40 reachable: 12 not drawn)") {
		t.Errorf("merge: %s", out)
	}
	// the one run's checks: a shard runs no walk phase, whose runs the one
	// run records too
	sh(work, `"$RUNNER_TEMP/faultline" explore --profile typed --fixture copperfin --seed 1 --checks 200 --max-schedules 0 --coverage whole.json`)
	if got, want := read(t, filepath.Join(work, "merged-coverage.json")), read(t, filepath.Join(work, "whole.json")); got != want {
		t.Errorf("the merged coverage of the shards is not the one run's:\n%s\nthe run's:\n%s", got, want)
	}
	// the night's 200 runs (22 keys with the catalogue's 35 kinds and
	// do_not_retry drawn on every fixture, 23 before, 24 with 30: a sequential draw puts repeated or persistent on a last fault one
	// time in four) and the audit's 189 (105 single-fault; its 84
	// correlated runs visit the 17 keys of the correlation modifiers and
	// the keys of the five kinds outside the catalogue, span_carry_over's
	// and server_error's and network_error's after the commit among them);
	// 94 violations under 31 keys, every one the audit's (39 with 30 kinds before
	// recorded_agrees_with_ledger was checked in every run, 81 after: the
	// baseline's duplicates and fail_closed's wrong denials; the five new
	// kinds add 6, span_carry_over 1; 88 under 30 keys before server_error
	// and network_error were drawn on every fixture and run by the audit,
	// which moved the night's draws too: 436 faults reached and fired, 52
	// not reached, 40 not fired then; drawing do_not_retry on every
	// fixture moved the night's draws again: 453 reached and fired, 50
	// not reached, 38 not fired, was 457, 55 and 30)
	if out := sh(work, cov.named(t, "gate").Run); out != "merged 2 files into gated-coverage.json: 389 runs, 40 of 40 reachable keys visited\n"+
		"coverage gate: passed\n  ratio 1.0000 (40 of 40 reachable keys visited), minimum 1.0000: met\n"+
		"  invariants: 94 violations of an invariant recorded under 31 keys (a run counts once per invariant it broke; the counterexamples are in the report); the gate measures visits, not verdicts (--no-violations fails it on any)\n"+
		"  faults: 453 reached and fired; 50 scheduled but not reached, 38 reached but not fired\n" {
		t.Errorf("gate: %q", out)
	}
	if html := read(t, filepath.Join(work, "coverage.html")); !strings.HasPrefix(html, "<!DOCTYPE html>") {
		t.Errorf("coverage.html: %.80s", html)
	}

	if _, err := exec.LookPath("jq"); err == nil {
		verdict := cov.named(t, "the run's counterexamples").Run
		if out := sh(work, verdict); out != "no counterexample in the night's run\n" {
			t.Errorf("the verdict without counterexamples: %q", out)
		}
		// two shards of a run that finds one, as download-artifact gathers them
		var j struct {
			ChecksToFailure int `json:"checks_to_failure"`
		}
		if err := json.Unmarshal([]byte(sh(work, `"$RUNNER_TEMP/faultline" explore --max-schedules 0 --without idempotency --seed 1 --checks 200 --json || [ $? -eq 1 ]`)), &j); err != nil || j.ChecksToFailure < 1 {
			t.Fatalf("the unsharded run: %v %+v", err, j)
		}
		// the run's counterexample is shard 2's, at check 14 (at check 8
		// with swarm draws); shard 1 finds one too in its 100 checks, and
		// the verdict names the run's
		for _, shard := range []string{"1", "2"} {
			sh(work, `"$RUNNER_TEMP/faultline" explore --without idempotency --seed 1 --checks 200 --shard `+shard+`/2 --out counterexamples/counterexamples-copperfin-`+shard+` || [ $? -eq 1 ]`)
		}
		records, _ := filepath.Glob(filepath.Join(work, "counterexamples", "*", "*.counterexample.json"))
		out := sh(work, verdict)
		want := "fixture copperfin: the run found effect_at_most_once at check " + strconv.Itoa(j.ChecksToFailure) + ": counterexamples/counterexamples-copperfin-2/cx-effect_at_most_once-"
		if len(records) != 2 || j.ChecksToFailure != 14 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 1 {
			t.Errorf("the verdict of %d records: %q, want %q...", len(records), out, want)
		}
	}

}

// TestClusterFuzzLiteWorkflows: code-change fuzzing on pull requests and
// batch fuzzing on a schedule, each building the .clusterfuzzlite build
// for its language with ClusterFuzzLite's actions.
func TestClusterFuzzLiteWorkflows(t *testing.T) {
	project := read(t, "../.clusterfuzzlite/project.yaml")
	if project != "language: go\n" {
		t.Fatalf("project.yaml: %q", project)
	}
	for file, c := range map[string]struct{ trigger, job, mode string }{
		"cflite_pr.yml":    {"pull_request", "PR", "code-change"},
		"cflite_batch.yml": {"schedule", "BatchFuzzing", "batch"},
	} {
		w, _ := readWorkflow(t, file)
		if _, ok := w.On[c.trigger]; !ok {
			t.Errorf("%s: not triggered by %s", file, c.trigger)
		}
		j := w.Jobs[c.job]
		build, run := j.uses("google/clusterfuzzlite/actions/build_fuzzers@v1"), j.uses("google/clusterfuzzlite/actions/run_fuzzers@v1")
		if len(build) != 1 || len(run) != 1 || build[0].With["language"] != "go" || run[0].With["mode"] != c.mode ||
			run[0].With["sanitizer"] != "${{ matrix.sanitizer }}" || run[0].With["fuzz-seconds"] == "" {
			t.Errorf("%s: build %+v run %+v", file, build, run)
		}
	}
	// the corpus persists between runs: every run of the farm reads it from
	// this repository's branch cflite-corpus, and batch fuzzing and pruning
	// write it back there (contents: write, the run's own token)
	w, _ := readWorkflow(t, "cflite_batch.yml")
	pr, _ := readWorkflow(t, "cflite_pr.yml")
	runs := map[string]job{"batch": w.Jobs["BatchFuzzing"], "prune": w.Jobs["Pruning"], "code-change": pr.Jobs["PR"]}
	for mode, j := range runs {
		run := j.uses("google/clusterfuzzlite/actions/run_fuzzers@v1")
		if len(run) != 1 || run[0].With["mode"] != mode ||
			run[0].With["storage-repo"] != "https://x-access-token:${{ github.token }}@github.com/${{ github.repository }}.git" ||
			run[0].With["storage-repo-branch"] != "cflite-corpus" || run[0].With["storage-repo-branch-coverage"] != "cflite-corpus" {
			t.Errorf("%s: the run does not keep its corpus on cflite-corpus: %+v", mode, run)
		}
		if write := j.Permissions["contents"] == "write"; write != (mode != "code-change") {
			t.Errorf("%s: permissions %v", mode, j.Permissions)
		}
	}
}
