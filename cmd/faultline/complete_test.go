package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/reference/copperfin"
)

// TestReferenceCompletions: the reference system's closed-set flags
// complete their values from the system (profiles, controls, mutants)
// and the catalogue (assay's --mode and --fault), on every command that
// has them; --format completes the command's formats.
func TestReferenceCompletions(t *testing.T) {
	values := func(args ...string) []string {
		t.Helper()
		code, out, stderr := runCLI(t, append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[:len(lines)-1]
	}
	profiles := []string{"baseline", "typed", "fail_closed", "typed_fleet"}
	for _, cmd := range []string{"assay", "explore"} {
		if got := values(cmd, "--profile", ""); !slices.Equal(got, profiles) {
			t.Errorf("%s --profile: %v", cmd, got)
		}
	}
	if got := values("replay", "x.json", "--profile", "fail"); !slices.Equal(got, []string{"fail_closed"}) {
		t.Errorf("replay --profile fail: %v", got)
	}
	if got := values("dossier", "--profile", "typed,"); !slices.Equal(got, []string{"typed,baseline", "typed,fail_closed"}) {
		t.Errorf("dossier --profile typed,: %v", got)
	}
	controls := values("explore", "--controls", "")
	if len(controls) != 13 || controls[0] != string(copperfin.BindIdentity) {
		t.Errorf("--controls: %v", controls)
	}
	if got := values("replay", "x.json", "--without", "idempotency,effect_"); !slices.Equal(got, []string{"idempotency,effect_readback"}) {
		t.Errorf("--without: %v", got)
	}
	mutants := values("explore", "--mutant", "")
	if len(mutants) != len(copperfin.Mutants()) || mutants[0] != string(copperfin.Mutants()[0].Name) {
		t.Errorf("--mutant: %v", mutants)
	}
	if got := values("assay", "--fault", ""); !slices.Equal(got, []string{"all", "identity", "context", "tool", "state", "evidence"}) {
		t.Errorf("--fault: %v", got)
	}
	if got := values("assay", "--mode", "timeout_"); !slices.Equal(got, []string{"timeout_after_commit", "timeout_before_send"}) {
		t.Errorf("--mode timeout_: %v", got)
	}
	// the fleet kinds complete like the other kinds outside the catalogue
	if got := values("explore", "--kinds", "do_not"); !slices.Equal(got, []string{"do_not_retry"}) {
		t.Errorf("--kinds do_not: %v", got)
	}
	if got := values("explore", "--kinds", "provider_"); !slices.Equal(got, []string{"provider_outage"}) {
		t.Errorf("--kinds provider_: %v", got)
	}
	for _, cmd := range []string{"assay", "audit"} {
		if got := values(cmd, "--compat", ""); !slices.Equal(got, []string{"paper188"}) {
			t.Errorf("%s --compat: %v", cmd, got)
		}
	}
	if got := values("audit", "--format", ""); !slices.Equal(got, []string{"text", "json", "markdown"}) {
		t.Errorf("audit --format: %v", got)
	}
	if got := values("vet", "--format", ""); !slices.Equal(got, []string{"text", "json"}) {
		t.Errorf("vet --format: %v", got)
	}
}
