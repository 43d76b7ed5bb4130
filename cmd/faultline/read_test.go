package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestInputFilesAreBounded: a device is refused, not read whole, by every
// command that reads a schedule, counterexample, coverage or dossier file,
// and a schedule over 8 MiB is refused with the limit named.
func TestInputFilesAreBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte(`{"version":1,"seed":"`+strings.Repeat("x", fileio.ScheduleLimit)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"replay", big}, big + ": larger than the limit of 8 MiB for this kind of file"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, []struct {
			args []string
			want string
		}{
			{[]string{"replay", "/dev/zero"}, "/dev/zero: is a device, not a regular file"},
			{[]string{"coverage", "report", "/dev/zero"}, "/dev/zero: is a device, not a regular file"},
			{[]string{"coverage", "gate", "/dev/zero", "--min-ratio", "0"}, "/dev/zero: is a device, not a regular file"},
			{[]string{"dossier", "diff", "/dev/zero", "/dev/zero"}, "/dev/zero: is a device, not a regular file"},
		}...)
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	_, _, err := loadSchedule(big)
	if !errors.Is(err, fileio.ErrBadInput) {
		t.Errorf("loadSchedule of an oversized file: %v does not match fileio.ErrBadInput", err)
	}
}

// TestReplayNamesTheFile: every problem of a schedule file is reported
// with the file's name, including a mutant or fixture its config names.
func TestReplayNamesTheFile(t *testing.T) {
	good := `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`
	for _, c := range []struct{ in, want string }{
		{strings.Replace(good, `"profile":"typed"`, `"profile":"typed","mutant":"gremlin"`, 1), `: schedule: config: unknown mutant "gremlin" (valid: `},
		{strings.Replace(good, `"profile":"typed"`, `"profile":"typed","fixture":"acme"`, 1), `: schedule: config: unknown fixture "acme" (valid: copperfin, copperfin-batch, copperfin-tenants, copperfin-fleet, copperfin-fleet-N for N from 1 to 1000, copperfin-policy-replica)`},
		{"[" + good + "]", ": schedule: the top level must be a JSON object, not an array"},
		{"\xEF\xBB\xBF" + good, ": schedule: the file starts with a UTF-8 byte-order mark; save it without one"},
		{"", ": schedule: empty input: the file is empty"},
		{"null", ": schedule: the top level must be a JSON object, not null"},
		{strings.Replace(good, `"faults"`, `"Faults"`, 1), `: schedule: field "Faults" does not match "faults": keys are case-sensitive`},
		{strings.Replace(good, `"faults":[`, `"faults":[],"faults":[`, 1), `: schedule: key "faults" appears twice`},
	} {
		p := writeFile(t, c.in)
		code, _, stderr := runCLI(t, "replay", p)
		if code != 2 || !strings.Contains(stderr, p+c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.in, code, stderr, p+c.want)
		}
	}
}

// loadSchedule reads a schedule or counterexample file as replay does.
func loadSchedule(path string) (*model.Schedule, *corpus.Counterexample, error) {
	s, ce, _, err := program().Load(path, "")
	return s, ce, err
}

// TestReplayOfACorrelatedSchedule: the schedules the audit visits the
// correlation keys with replay from the command line, the shared one on
// the two-tenant fixture: the baseline breaks, typed holds.
func TestReplayOfACorrelatedSchedule(t *testing.T) {
	for _, c := range []model.Correlation{model.Correlation("shared"), model.Correlation("synchronized")} {
		for _, p := range []struct {
			profile copperfin.Profile
			code    int
		}{{copperfin.ProfileBaseline, 1}, {copperfin.ProfileTyped, 0}} {
			s, err := copperfin.CorrelatedSchedule("timeout_after_commit", c, copperfin.ConfigOfProfile(p.profile))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(path, model.Format(s), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, _, stderr := runCLI(t, "replay", path); code != p.code {
				t.Errorf("%s under %s: exit %d, want %d: %s", c, p.profile, code, p.code, stderr)
			}
		}
	}
}

// TestReplayOfTheRetryStorm: reference/corpus/retry-storm.json, the paper's hundred
// synchronised agents, holds under its own typed_fleet (exit 0) and breaks
// no_retry_storm without either fleet control (exit 1).
func TestReplayOfTheRetryStorm(t *testing.T) {
	oneGoroutine(t)
	path := filepath.Join("..", "..", "reference", "corpus", "retry-storm.json")
	for _, c := range []struct {
		args []string
		code int
	}{
		{nil, 0},
		{[]string{"--without", "jittered_backoff"}, 1},
		{[]string{"--without", "shared_retry_budget"}, 1},
	} {
		code, out, stderr := runCLI(t, append([]string{"replay", path}, c.args...)...)
		if code != c.code {
			t.Errorf("replay %v: exit %d, want %d: %s", c.args, code, c.code, stderr)
		}
		if c.code == 1 && !strings.Contains(out, "Failed invariants: no_retry_storm after seq") {
			t.Errorf("replay %v: no_retry_storm not named:\n%.2000s", c.args, out)
		}
	}
}
