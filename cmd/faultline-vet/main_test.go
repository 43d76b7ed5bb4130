package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testBuildNonce is the buildNonce of the tests' builds of the tool: go
// vet caches a package's output by the tool's identity (its content),
// and under one key whether the package was vetted as a target or as a
// dependency, so an installed tool's cache, in which reference/copperfin is a
// dependency of cmd/faultline and so vetted without diagnostics, would
// answer for it. The nonce gives the tests' builds an identity of their
// own, the same from one run to the next: the tests vet reference/copperfin
// and callfault as targets only, a package with findings fails its vet
// and is never cached, and the dependencies' facts (the standard
// library's among them, which the tool type-checks) are computed once
// per build of the tool's source instead of in every run.
const testBuildNonce = "cmd/faultline-vet.test"

// buildTool builds faultline-vet into a temporary directory with
// testBuildNonce.
func buildTool(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "faultline-vet")
	out, err := exec.Command("go", "build", "-ldflags=-X main.buildNonce="+testBuildNonce, "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// goVet runs go vet with the tool in the module's root and returns its
// exit code and output.
func goVet(t *testing.T, bin string, pkgs ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"vet", "-vettool=" + bin}, pkgs...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("go vet: %v", err)
	return 0, ""
}

// lineOf returns the file (relative to the module root) and line of the
// first line in dir's Go files (tests aside) that holds s.
func lineOf(t *testing.T, dir, s string) (string, int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for n := 1; sc.Scan(); n++ {
			if strings.Contains(sc.Text(), s) {
				fh.Close()
				return filepath.ToSlash(filepath.Join(dir, filepath.Base(f))), n
			}
		}
		fh.Close()
	}
	t.Fatalf("no line of %s holds %q", dir, s)
	return "", 0
}

// TestGoVetTool: the tool, built and run by go vet -vettool, reports the
// reference system's two retrykey findings (go vet's exit 1), nothing on a
// package outside it, and declares the boolean flag that turns retrykey
// off; FAULTLINE_HEAVY=1 also runs go vet -retrykey=false, which re-runs the
// tool over every dependency.
func TestGoVetTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tool and runs go vet")
	}
	if raceDetector {
		t.Skip("the tool runs in other processes, which the race detector does not see; go test ./... runs this test")
	}
	bin := buildTool(t)
	// with a package that neither imports the reference system nor is
	// imported by it, in the same go vet: it adds no finding
	code, out := goVet(t, bin, "./reference/copperfin", "./callfault")
	if code != 1 {
		t.Fatalf("go vet ./reference/copperfin ./callfault: exit %d, want go vet's 1 for findings\n%s", code, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(filepath.ToSlash(l), "reference/copperfin/") {
			t.Errorf("a line of go vet's output outside reference/copperfin: %q", l)
		}
	}
	for _, s := range []string{"key = env.NewRequestID()", `":" + strconv.Itoa(f.attempt)`} {
		file, line := lineOf(t, "reference/copperfin", s)
		want := fmt.Sprintf("%s:%d:", file, line)
		if !strings.Contains(out, want) {
			t.Errorf("go vet output lacks the finding at %s (%s):\n%s", want, s, out)
		}
	}
	if n := strings.Count(out, "varies across the attempts of the retry loop"); n != 2 {
		t.Errorf("%d retrykey findings, want 2:\n%s", n, out)
	}
	// one analyzer turned off by go vet's own flag: go vet learns the
	// tool's flags from its -flags output, and with -retrykey=false (a
	// second go vet of every dependency, under FAULTLINE_HEAVY=1) the
	// package has no finding
	raw, err := exec.Command(bin, "-flags").Output()
	if err != nil {
		t.Fatalf("%s -flags: %v", bin, err)
	}
	var flags []struct {
		Name string
		Bool bool
	}
	if err := json.Unmarshal(raw, &flags); err != nil {
		t.Fatalf("%s -flags: %v\n%s", bin, err, raw)
	}
	if !slices.Contains(flags, struct {
		Name string
		Bool bool
	}{"retrykey", true}) {
		t.Errorf("the tool's -flags lack the boolean retrykey: %s", raw)
	}
	// a bad analyzer flag value: one line, exit 2, no usage text
	bad := exec.Command(bin, "-retrykey.consequential=Patch", "x.cfg")
	var errb strings.Builder
	bad.Stderr = &errb
	if err := bad.Run(); bad.ProcessState.ExitCode() != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), `consequential call "Patch"`) {
		t.Errorf("a bad -retrykey.consequential: %v, stderr %q", err, errb.String())
	}
	if os.Getenv("FAULTLINE_HEAVY") != "1" {
		t.Log("go vet -retrykey=false is left to FAULTLINE_HEAVY=1")
		return
	}
	if code, out := goVet(t, bin, "-retrykey=false", "./reference/copperfin"); code != 0 {
		t.Errorf("go vet -retrykey=false ./reference/copperfin: exit %d, want 0\n%s", code, out)
	}
}

// TestBadAnalyzerFlagIsOneLine: a value an analyzer refuses is found
// before unitchecker parses the flags (which prints its whole usage text,
// once per package go vet runs the tool on), in either spelling; other
// flags and the arguments after them are left to unitchecker.
func TestBadAnalyzerFlagIsOneLine(t *testing.T) {
	want := `-retrykey.consequential: consequential call "Patch": want PKG.Func or (PKG.Type).Method, as (*net/http.Client).Do`
	for _, args := range [][]string{
		{"-retrykey.consequential=Patch", "x.cfg"},
		{"-json", "--retrykey.consequential", "Patch", "x.cfg"},
	} {
		if err := checkAnalyzerFlags(args); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", args, err, want)
		}
	}
	for _, args := range [][]string{
		{"-retrykey.consequential=(*net/http.Client).Do", "x.cfg"},
		{"-retrykey=false", "x.cfg"},
		{"x.cfg", "-retrykey.consequential=Patch"},
		{"-flags"},
	} {
		if err := checkAnalyzerFlags(args); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
	if err := checkAnalyzerFlags([]string{"-retrykey.consequential="}); err != nil {
		t.Fatal(err)
	}
}
