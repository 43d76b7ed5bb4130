package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/internal/complete"
)

// TestVersion: "version" and "--version" print the same text, from the
// binary's build information, and exit 0; a build from a checkout shows
// "(devel)" with the revision, its time and "(modified)" for a dirty tree,
// and a user's program names the faultline it was built with.
func TestVersion(t *testing.T) {
	code, out, stderr := run(t, "version")
	require.Equal(t, 0, code, stderr)
	code2, out2, _ := run(t, "--version")
	require.Equal(t, 0, code2)
	assert.Equal(t, out, out2)
	info, ok := debug.ReadBuildInfo()
	assert.Equal(t, program().VersionText(info, ok), out)
	assert.True(t, strings.HasPrefix(out, "inventory version "), out)

	p := program()
	checkout := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/faultline/faultline", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "8449332d"}, {Key: "vcs.time", Value: "2026-12-07T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "inventory version (devel)\nmodule github.com/faultline/faultline (devel)\nrevision 8449332d 2026-12-07T12:00:00Z (modified)\ngo go1.26.8\n", p.VersionText(checkout, true))
	user := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/shop", Version: "v1.2.0"},
		Deps: []*debug.Module{{Path: "github.com/faultline/faultline", Version: "v0.9.0"}}}
	assert.Equal(t, "inventory version v1.2.0\nmodule example.com/shop v1.2.0\nfaultline v0.9.0\ngo go1.26.8\n", p.VersionText(user, true))
	assert.Equal(t, "inventory version unknown (the binary carries no build information)\n", p.VersionText(nil, false))
	// --format json (and --json, and --version --format json): one
	// object of the same fields
	vj := `{"program":"inventory","build_info":true,"module":"github.com/faultline/faultline","version":"(devel)","revision":"8449332d","time":"2026-12-07T12:00:00Z","modified":true,"go":"go1.26.8"}`
	b, err := json.Marshal(p.VersionOf(checkout, true))
	require.NoError(t, err)
	assert.Equal(t, vj, string(b))
	b, err = json.Marshal(p.VersionOf(nil, false))
	require.NoError(t, err)
	assert.Equal(t, `{"program":"inventory","build_info":false}`, string(b))
	b, err = json.Marshal(p.VersionOf(info, ok))
	require.NoError(t, err)
	for _, args := range [][]string{{"version", "--format", "json"}, {"version", "--json"}, {"--version", "--format", "json"}, {"--format=json", "--version"}, {"--version", "--json"}} {
		code, out, stderr := run(t, args...)
		assert.Equal(t, 0, code, "%v: %s", args, stderr)
		assert.Equal(t, string(b)+"\n", out, "%v", args)
	}
	code, out, _ = run(t, "--version", "--format", "text")
	assert.Equal(t, 0, code)
	assert.Equal(t, out2, out)
	code, out, stderr = run(t, "--version", "--format", "xml")
	assert.Equal(t, 2, code)
	assert.Equal(t, "inventory: --format: unknown format \"xml\" (valid: text, json)\n", stderr)
	assert.Empty(t, out)
	code, _, stderr = run(t, "version", "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown command "extra" for "inventory version" (usage: inventory version [flags])`)
}

// TestFormatJSONIsJSON: --format json prints what --json prints, byte for
// byte, for replay, explore and coverage report of a user's system; --json
// with another --format is bad input.
func TestFormatJSONIsJSON(t *testing.T) {
	oneGoroutine(t)
	dir := t.TempDir()
	cov := filepath.Join(dir, "cov.json")
	args := append(append([]string(nil), exploreArgs...), "--seed", plantedSeed, "--config", `{"variant":"planted"}`, "--checks", "90", "--out", filepath.Join(dir, "cx"), "--coverage", cov)
	code, viaJSON, stderr := run(t, append(args, "--json")...)
	require.Equal(t, 1, code, stderr)
	code, viaFormat, _ := run(t, append(args, "--format", "json")...)
	require.Equal(t, 1, code)
	assert.Equal(t, viaJSON, viaFormat)
	var ex struct {
		File string `json:"file"`
	}
	require.NoError(t, json.Unmarshal([]byte(viaJSON), &ex))
	for _, cmd := range [][]string{{"replay", ex.File}, {"coverage", "report", cov}} {
		code1, a, _ := run(t, append(cmd, "--json")...)
		code2, b, _ := run(t, append(cmd, "--format=json")...)
		assert.Equal(t, code1, code2, "%v", cmd)
		assert.Equal(t, a, b, "%v", cmd)
		assert.True(t, json.Valid([]byte(a)), "%v: %s", cmd, a)
	}
	code, out, stderr := run(t, "replay", ex.File, "--json", "--format", "text")
	assert.Equal(t, 2, code)
	assert.Equal(t, "inventory: --json is --format json: give one of them, not --json with --format text\n", stderr)
	assert.Equal(t, `{"version":1,"error":"--json is --format json: give one of them, not --json with --format text","exit":2}`+"\n", out)
}

// TestErrorAsJSON: asked for JSON, a command that fails before its output
// prints the error as one JSON object on stdout with its exit code (bad
// input 2, an I/O error 4), the message on stderr too; a failure after the
// output was printed adds nothing to stdout.
func TestErrorAsJSON(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.json")
	code, out, stderr := run(t, "replay", missing, "--format", "json")
	assert.Equal(t, 2, code)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj), out)
	assert.Equal(t, map[string]any{"version": 1.0, "error": strings.TrimSuffix(strings.TrimPrefix(stderr, "inventory: "), "\n"), "exit": 2.0}, obj)
	assert.Contains(t, stderr, "no such file")

	// a flag that does not parse, before or after --json
	for _, args := range [][]string{{"explore", "--checks", "x", "--json"}, {"explore", "--json", "--bogus"}, {"nope", "--format=json"}} {
		code, out, _ := run(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.True(t, strings.HasPrefix(out, `{"version":1,"error":`) && strings.HasSuffix(out, `,"exit":2}`+"\n"), "%v: %s", args, out)
	}
	// exit 4: --out under a regular file
	file := write(t, "plain", "x")
	code, out, _ = run(t, append(append([]string(nil), exploreArgs...), "--out", filepath.Join(file, "cx"), "--json")...)
	assert.Equal(t, 4, code)
	assert.Contains(t, out, `"exit":4}`)
	// without JSON asked, stdout stays empty
	code, out, _ = run(t, "replay", missing)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
}

// TestCompletions: the shell completes the closed-set values from the
// registered system and the catalogue: --fixture the system's fixtures,
// --kinds the kinds (a list: after the ones typed, leaving them out),
// --domains, --format the command's formats.
func TestCompletions(t *testing.T) {
	complete1 := func(args ...string) []string {
		t.Helper()
		code, out, stderr := run(t, append([]string{"__complete"}, args...)...)
		require.Equal(t, 0, code, stderr)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[:len(lines)-1] // the last line is the directive
	}
	assert.Equal(t, []string{"inventory"}, complete1("explore", "--fixture", ""))
	assert.Equal(t, []string{"text", "json"}, complete1("explore", "--format", ""))
	assert.Equal(t, []string{"text", "json", "markdown", "html"}, complete1("coverage", "report", "--format", ""))
	assert.Equal(t, []string{"identity", "context", "tool", "state", "evidence"}, complete1("explore", "--domains", ""))
	assert.Equal(t, []string{"tool,identity", "tool,context", "tool,state", "tool,evidence"}, complete1("explore", "--domains", "tool,"))
	kinds := complete1("explore", "--kinds", "timeout_after_commit,rate")
	assert.Equal(t, []string{"timeout_after_commit,rate_limit"}, kinds)
	all := complete1("explore", "--kinds", "")
	assert.Contains(t, all, "timeout_after_commit")
	assert.Contains(t, all, "clock_advance")
	assert.Contains(t, all, "late_notice")
	assert.Equal(t, []string{"b,a", "b,ab"}, complete.Candidates([]string{"a", "b", "ab"}, "b,a", true))
	assert.Equal(t, []string{"a,b,ab"}, complete.Candidates([]string{"a", "b", "ab"}, "a,b,", true))
	assert.Equal(t, []string{"a", "ab"}, complete.Candidates([]string{"a", "b", "ab"}, "a", false))
}

// TestAuditAsJSON: the audit of a user's system prints one object with
// --format json, the same bytes as --json: per configuration its runs,
// the faults reached and each violating run's kind and invariants, with
// the schedule --out wrote and the command that replays it (which does).
func TestAuditAsJSON(t *testing.T) {
	oneGoroutine(t)
	dir := t.TempDir()
	code, out, stderr := run(t, "audit", "--format", "json", "--out", dir)
	require.Equal(t, 0, code, stderr)
	code, alias, _ := run(t, "audit", "--json", "--out", dir)
	require.Equal(t, 0, code)
	assert.Equal(t, out, alias)
	var j struct {
		Version        int `json:"version"`
		Configurations []struct {
			System, Configuration string
			Defended              bool
			Runs, Reached, Fired  int
			Findings              []struct {
				Kind       string   `json:"kind"`
				Invariants []string `json:"invariants"`
				Tool       string   `json:"tool"`
				File       string   `json:"file"`
				Replay     string   `json:"replay"`
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &j))
	require.Equal(t, 2, j.Version)
	require.Len(t, j.Configurations, 3)
	runs, reached, fired, found := 0, 0, 0, 0
	for _, c := range j.Configurations {
		assert.Equal(t, "inventory", c.System)
		// 35 kinds, the 12 at tool.commit once per tool (reserve, confirm)
		assert.Equal(t, 47, c.Runs, c.Configuration)
		runs, reached, fired = runs+c.Runs, reached+c.Reached, fired+c.Fired
		if c.Defended {
			assert.Empty(t, c.Findings, c.Configuration)
		}
		found += len(c.Findings)
	}
	// the screen's figures: 141 runs, 21 of their faults not reached,
	// every one reached fired
	assert.Equal(t, 141, runs)
	assert.Equal(t, 120, reached)
	assert.Equal(t, 120, fired)
	require.Positive(t, found)
	var f = j.Configurations[1].Findings[0]
	assert.Equal(t, "undefended", j.Configurations[1].Configuration)
	assert.Equal(t, filepath.Join(dir, "inventory-undefended-"+f.Kind+".json"), f.File)
	assert.Equal(t, "inventory replay "+f.File, f.Replay)
	code, rout, _ := run(t, strings.Fields(f.Replay)[1:]...)
	assert.Equal(t, 1, code, rout)
	// the planted bug (confirm's retry builds a new request key) breaks
	// only under a fault aimed at the second tool, confirm
	planted := j.Configurations[2]
	require.Len(t, planted.Findings, 1, planted.Configuration)
	p := planted.Findings[0]
	assert.Equal(t, []string{"tool_timeout", "inventory.confirm", "recorded_agrees_with_ledger", "confirmed_once"}, append([]string{p.Kind, p.Tool}, p.Invariants...))
	assert.Equal(t, filepath.Join(dir, "inventory-planted-tool_timeout-inventory.confirm.json"), p.File)
	code, rout, _ = run(t, strings.Fields(p.Replay)[1:]...)
	assert.Equal(t, 1, code, rout)
	assert.Regexp(t, `confirmed_once +VIOLATED`, rout)
}

// TestOutputsCheckedFirst: dossier --out under a regular file and audit
// --coverage on a device or a malformed file are refused before the
// dossier or the audit runs (4 and 2), naming the flag, and create nothing.
func TestOutputsCheckedFirst(t *testing.T) {
	file := write(t, "plain", "x")
	code, out, stderr := run(t, "dossier", "--out", filepath.Join(file, "d", "e"))
	assert.Equal(t, 4, code, out)
	assert.Equal(t, "inventory: --out: "+filepath.Join(file, "d", "e")+": "+file+" is not a directory\n", stderr)
	code, _, stderr = run(t, "audit", "--coverage", "/dev/null")
	assert.Equal(t, 2, code)
	assert.Equal(t, "inventory: recording coverage into /dev/null (--coverage): not a regular file (a device)\n", stderr)
	bad := write(t, "cov.json", `{"version": 2, "runs": 0}`)
	code, _, stderr = run(t, "audit", "--coverage", bad)
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(stderr, "inventory: recording coverage into "+bad+" (--coverage): "), stderr)
	t.Setenv("FAULTLINE_COVERAGE", filepath.Join(file, "cov.json"))
	code, _, stderr = run(t, "audit")
	assert.Equal(t, 4, code)
	assert.Equal(t, "inventory: recording coverage into "+filepath.Join(file, "cov.json")+" ($FAULTLINE_COVERAGE): its directory: "+file+": not a directory\n", stderr)
	dir := filepath.Join(t.TempDir(), "new", "dossier")
	code, _, _ = run(t, "dossier", "--out", dir, "--trials", "0")
	assert.Equal(t, 2, code)
	_, err := os.Stat(filepath.Dir(dir))
	assert.True(t, os.IsNotExist(err), "a refused dossier created %s", filepath.Dir(dir))
}
