// Package k8stest checks the files of deploy/ against the real Kubernetes
// API types (k8s.io/api), in a module of its own so that faultline's
// go.mod gains no Kubernetes requirement: every manifest decodes strictly
// (no unknown or misspelt field) into its type, the image's build is the
// one the test builds and runs, and the indexed Job's commands and its
// fan-in run over shard outputs made locally.
package k8stest

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// root is the repository's root, deploy/k8stest's grandparent.
var root = func() string {
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return r
}()

// decode decodes the manifest at path strictly into the type its kind
// names: a batch/v1 Job or a v1 PersistentVolumeClaim.
func decode(path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, err
	}
	var v any
	switch head.APIVersion + " " + head.Kind {
	case "batch/v1 Job":
		v = &batchv1.Job{}
	case "v1 PersistentVolumeClaim":
		v = &corev1.PersistentVolumeClaim{}
	default:
		return nil, fmt.Errorf("apiVersion %q kind %q: not a type this test knows", head.APIVersion, head.Kind)
	}
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		return nil, err
	}
	return v, nil
}

// manifests are deploy/k8s's manifests, decoded.
type manifests struct {
	job, fanIn *batchv1.Job
	claim      *corev1.PersistentVolumeClaim
}

func load(t *testing.T) manifests {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "deploy", "k8s", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifests
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
		v, err := decode(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		switch v := v.(type) {
		case *batchv1.Job:
			if v.Spec.CompletionMode != nil {
				m.job = v
			} else {
				m.fanIn = v
			}
		case *corev1.PersistentVolumeClaim:
			m.claim = v
		}
	}
	if !slices.Equal(names, []string{"fan-in.yaml", "job.yaml", "volume.yaml"}) || m.job == nil || m.fanIn == nil || m.claim == nil {
		t.Fatalf("deploy/k8s holds %v", names)
	}
	return m
}

// env is a container's environment as a map.
func env(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		out[e.Name] = e.Value
	}
	return out
}

// TestDecodingIsStrict: a misspelt field, a field of the wrong type and a
// kind the test does not know are errors.
func TestDecodingIsStrict(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"misspelt":  "apiVersion: batch/v1\nkind: Job\nspec: {completionMod: Indexed}\n",
		"type":      "apiVersion: batch/v1\nkind: Job\nspec: {completions: eight}\n",
		"duplicate": "apiVersion: v1\nkind: PersistentVolumeClaim\nspec: {accessModes: [ReadWriteMany]}\nspec: {}\n",
		"kind":      "apiVersion: apps/v1\nkind: Deployment\n",
	} {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := decode(p); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// TestManifests: the claim states ReadWriteMany; the indexed Job has a
// per-index limit of retries, SHARDS equal to its completions and
// parallelism, its own folder per index, and the image the Dockerfile's
// documented build tags; the fan-in waits for the Job's indexes, on the
// same claim and image.
func TestManifests(t *testing.T) {
	m := load(t)
	if !slices.Equal(m.claim.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}) {
		t.Errorf("the claim's access modes: %v", m.claim.Spec.AccessModes)
	}
	js := m.job.Spec
	if *js.CompletionMode != batchv1.IndexedCompletion || js.Completions == nil || js.Parallelism == nil || *js.Parallelism != *js.Completions ||
		js.BackoffLimitPerIndex == nil || *js.BackoffLimitPerIndex != 2 || js.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("the Job's spec: %+v", js)
	}
	n := strconv.Itoa(int(*js.Completions))
	pod := js.Template.Spec.Containers
	fan := m.fanIn.Spec.Template.Spec.Containers
	if len(pod) != 1 || len(fan) != 1 || env(pod[0])["SHARDS"] != n || !slices.Equal(fan[0].Command, []string{"faultline-fan-in", "/out", n}) ||
		env(fan[0])["SEED"] == "" || env(fan[0])["SEED"] != env(pod[0])["SEED"] {
		t.Fatalf("the containers: %+v\n%+v", pod, fan)
	}
	docker := read(t, filepath.Join(root, "deploy", "Dockerfile"))
	for _, c := range []corev1.Container{pod[0], fan[0]} {
		if !strings.Contains(docker, "docker build -f deploy/Dockerfile -t "+c.Image+" .\n") || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/out" {
			t.Errorf("container %s: image %q, mounts %+v", c.Name, c.Image, c.VolumeMounts)
		}
	}
	for _, j := range []*batchv1.Job{m.job, m.fanIn} {
		v := j.Spec.Template.Spec.Volumes
		if len(v) != 1 || v[0].PersistentVolumeClaim == nil || v[0].PersistentVolumeClaim.ClaimName != m.claim.Name {
			t.Errorf("%s's volumes: %+v", j.Name, v)
		}
	}
	if m.fanIn.Spec.BackoffLimit == nil || *m.fanIn.Spec.BackoffLimit != 0 || m.fanIn.Spec.ActiveDeadlineSeconds == nil {
		t.Errorf("the fan-in's spec: %+v", m.fanIn.Spec)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// build builds faultline from the checkout the way deploy/Dockerfile
// does (its environment and its go build command, the output moved) and
// returns the folder that holds it.
func build(t *testing.T) string {
	t.Helper()
	docker := read(t, filepath.Join(root, "deploy", "Dockerfile"))
	stages := strings.Count(docker, "\nFROM ")
	if !strings.HasPrefix(docker, "#") || stages != 2 || !strings.Contains(docker, "\nFROM golang:"+goVersion(t)+" AS build\n") {
		t.Fatalf("the Dockerfile: %d stages, want 2, the first FROM golang:%s", stages, goVersion(t))
	}
	// modules first, through the proxy, in their own layer; then the source
	mods, src := strings.Index(docker, "\nCOPY go.mod go.sum ./\nRUN go mod download"), strings.Index(docker, "\nCOPY . .\n")
	if mods < 0 || src < mods || !strings.Contains(docker, "\nENV CGO_ENABLED=0\n") {
		t.Fatal("the Dockerfile does not download the modules before copying the source, with cgo off")
	}
	_, rest, _ := strings.Cut(docker, "\nRUN go build ")
	line, _, _ := strings.Cut(rest, "\n")
	args := strings.Fields(line)
	if i := slices.Index(args, "-o"); i < 0 || args[i+1] != "/out/faultline" || args[len(args)-1] != "./cmd/faultline" {
		t.Fatalf("the Dockerfile's build: %q", line)
	}
	for _, copied := range []string{"COPY --from=build /out/faultline /usr/local/bin/faultline\n", "COPY deploy/fan-in.sh /usr/local/bin/faultline-fan-in\n"} {
		if !strings.Contains(docker, "\n"+copied) {
			t.Fatalf("the Dockerfile lacks %q", copied)
		}
	}
	bin := t.TempDir()
	args[slices.Index(args, "-o")+1] = filepath.Join(bin, "faultline")
	c := exec.Command("go", append([]string{"build"}, args...)...)
	c.Dir, c.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, out)
	}
	// the fan-in script under the name the image gives it
	if err := os.Symlink(filepath.Join(root, "deploy", "fan-in.sh"), filepath.Join(bin, "faultline-fan-in")); err != nil {
		t.Fatal(err)
	}
	return bin
}

// goVersion is the go directive of faultline's go.mod, major.minor.
func goVersion(t *testing.T) string {
	t.Helper()
	for _, l := range strings.Split(read(t, filepath.Join(root, "go.mod")), "\n") {
		if v, ok := strings.CutPrefix(l, "go "); ok {
			parts := strings.Split(v, ".")
			return parts[0] + "." + parts[1]
		}
	}
	t.Fatal("go.mod has no go directive")
	return ""
}

// TestImageBuildIsStatic: the image's binary, built as the Dockerfile
// builds it, is static (no interpreter, no shared library): it runs in
// any image.
func TestImageBuildIsStatic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds faultline")
	}
	f, err := elf.Open(filepath.Join(build(t), "faultline"))
	if err != nil {
		t.Skipf("not an ELF binary here: %v", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has a program interpreter: it is linked dynamically")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) != 0 {
		t.Errorf("the binary needs %v", libs)
	}
}

// TestJobRunsLocally runs the indexed Job's pod command once per index,
// /out a temporary folder and 120 checks instead of 8,000,000, then the
// fan-in over their folders: the merged coverage is the one run's byte for
// byte and passes the gate (120 checks of seed 20261201 visit every
// reachable key the audit does not), and no counterexample is named. Then
// two shards of a run that finds one (without idempotency), as the Job
// writes them: the fan-in names the counterexample of the least
// checks_to_failure, the check at which the unsharded run found it.
func TestJobRunsLocally(t *testing.T) {
	if testing.Short() {
		t.Skip("builds faultline and explores")
	}
	for _, tool := range []string{"sh", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here: %v", tool, err)
		}
	}
	m := load(t)
	bin := build(t)
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	sh := func(want int, script string, env ...string) string {
		t.Helper()
		c := exec.Command("sh", "-c", script)
		c.Dir, c.Env = tmp, append(append(os.Environ(), path), env...)
		var b bytes.Buffer
		c.Stdout, c.Stderr = &b, &b
		err := c.Run()
		if code := c.ProcessState.ExitCode(); code != want {
			t.Fatalf("%s\nexit %d (%v), want %d\n%s", script, code, err, want, b.String())
		}
		return b.String()
	}
	pod := m.job.Spec.Template.Spec.Containers[0]
	if len(pod.Command) != 3 || pod.Command[0] != "sh" || pod.Command[1] != "-c" {
		t.Fatalf("the pod's command: %q", pod.Command)
	}
	script := strings.ReplaceAll(pod.Command[2], "/out", out)
	var podEnv []string
	for k, v := range env(pod) {
		if k == "CHECKS" {
			v = "120"
		}
		podEnv = append(podEnv, k+"="+v)
	}
	n := int(*m.job.Spec.Completions)
	for i := range n {
		got := sh(0, script, append(podEnv, "JOB_COMPLETION_INDEX="+strconv.Itoa(i))...)
		if want := fmt.Sprintf("no counterexample in 15 checks (shard %d/8 of 120 checks, seed 20261201, ", i+1); !strings.HasPrefix(got, want) {
			t.Fatalf("pod %d: %q, want %q...", i, got, want)
		}
	}
	// a retried index starts afresh: its folder holds the last attempt's
	// output only (the merged coverage below counts 120 runs, not 135)
	fanIn := m.fanIn.Spec.Template.Spec.Containers[0]
	fan, seed := fanIn.Command, "SEED="+env(fanIn)["SEED"]
	// a folder of another night does not count: the fan-in waits for it
	// (stopped here after a second)
	if got := read(t, filepath.Join(out, "3", "done")); got != "20261201\n" {
		t.Fatalf("index 3's done: %q", got)
	}
	if err := os.WriteFile(filepath.Join(out, "3", "done"), []byte("20261130\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh(124, "timeout 1 "+fan[0]+" "+out+" "+fan[2], seed)
	if _, err := os.Stat(filepath.Join(out, "merged.json")); err == nil {
		t.Fatal("the fan-in ran over a folder of another night")
	}
	sh(0, script, append(podEnv, "JOB_COMPLETION_INDEX=3")...)
	got := sh(0, fan[0]+" "+out+" "+fan[2], seed)
	want := "merged 8 files into " + out + "/merged.json: 120 runs, "
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "\ncoverage gate: passed\n") || !strings.HasSuffix(got, "\nno counterexample in the run\n") {
		t.Fatalf("the fan-in: %q, want %q..., the gate passed, no counterexample", got, want)
	}
	// the one run's checks: a shard runs no walk phase, whose runs the one
	// run records too
	sh(0, "faultline explore --profile typed --seed 20261201 --checks 120 --max-schedules 0 --coverage "+out+"/whole.json")
	if a, b := read(t, filepath.Join(out, "merged.json")), read(t, filepath.Join(out, "whole.json")); a != b {
		t.Errorf("the Job's merged coverage is not the one run's:\n%s\nthe run's:\n%s", a, b)
	}

	// two shards that both find the same minimal schedule (one file name,
	// at seed 7, at check 12 without swarm draws; seed 8 did at check 34
	// before server_error, network_error and do_not_retry were drawn on
	// every fixture), each in its own folder
	var whole struct {
		ChecksToFailure int `json:"checks_to_failure"`
	}
	run := "faultline explore --max-schedules 0 --without idempotency --seed 7 --checks 200"
	if err := json.Unmarshal([]byte(sh(1, run+" --json")), &whole); err != nil || whole.ChecksToFailure != 12 {
		t.Fatalf("the unsharded run: %v %+v, want checks_to_failure 12", err, whole)
	}
	two := filepath.Join(tmp, "two")
	for i := range 2 {
		dir := filepath.Join(two, strconv.Itoa(i))
		sh(1, fmt.Sprintf("mkdir -p %[1]s && %[2]s --shard %[3]d/2 --coverage %[1]s/coverage.json --out %[1]s/cx --otel %[1]s/cx", dir, run, i+1))
		sh(0, "echo 1 >"+dir+"/done")
	}
	records, _ := filepath.Glob(filepath.Join(two, "*", "cx", "*.counterexample.json"))
	got = sh(1, fan[0]+" "+two+" 2", "SEED=1")
	last := got[strings.LastIndex(strings.TrimSuffix(got, "\n"), "\n")+1:]
	want = "the run found effect_at_most_once at check 12: " + two + "/1/cx/cx-effect_at_most_once-"
	if len(records) != 2 || filepath.Base(records[0]) != filepath.Base(records[1]) || !strings.HasPrefix(last, want) || !strings.HasSuffix(last, ".counterexample.json\n") {
		t.Errorf("the fan-in over %d records: %q, want %q...", len(records), last, want)
	}
	// bad arguments
	usage := "usage: SEED=S faultline-fan-in OUT N (N >= 1 indexes, S the Job's seed); exit 2\n"
	if got := sh(2, fan[0]+" "+two, "SEED=1"); got != usage {
		t.Errorf("the fan-in without N: %q", got)
	}
	if got := sh(2, fan[0]+" "+two+" 2", "SEED="); got != usage {
		t.Errorf("the fan-in without SEED: %q", got)
	}
}
