package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestAuditSummaryFitsOneScreen: by default the audit prints one screen
// (at most 40 lines, none over 120 characters) naming each profile's
// assessment and region, the worst findings with replay commands that
// reproduce them, the coverage line with the faults not reached, and
// where the rest is; --full is the whole report.
func TestAuditSummaryFitsOneScreen(t *testing.T) {
	if raceDetector {
		t.Skip("renders and checks the audit's and the dossier's results in one goroutine: the assay package's race tests cover their goroutines; go test ./... runs this test in full")
	}
	for _, args := range [][]string{{"audit"}, {"audit", "--compat", "paper188"}} {
		code, out, stderr := cachedCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) > summaryLines {
			t.Errorf("%v: %d lines, want at most %d", args, len(lines), summaryLines)
		}
		for i, l := range lines {
			if len(l) > summaryWidth {
				t.Errorf("%v: line %d has %d characters: %q", args, i+1, len(l), l)
			}
		}
		if !strings.Contains(out, "faultline audit --full prints every table") {
			t.Errorf("%v: the summary does not say where the rest is", args)
		}
	}
	_, out, _ := cachedCLI(t, "audit")
	for _, want := range []string{
		"faultline audit: reference system (Copperfin refund workflow), 35 fault kinds (the whole catalogue)\n",
		"  baseline     BLOCK OR REDESIGN            unsafe escape        unsafe  45.0%  unproved  21.9%  service  14.0%\n",
		"  typed        BLOCK OR REDESIGN            contained but dead   unsafe   0.0%  unproved   0.0%  service  69.5%\n",
		"  fail_closed  BLOCK OR REDESIGN            contained but dead   unsafe   0.0%  unproved   0.0%  service  43.5%\n",
		"    typed: useful service was below the 80% synthetic target\n",
		// baseline breaks an invariant under 18 of the 35 kinds (13 of the
		// 30 and each of the five new ones); fail_closed denies refunds the
		// provider made under six kinds: 24 rows, 8 printed, 16 more
		"Worst findings (single-fault runs that violated an invariant: baseline 18, typed 0, fail_closed 6):\n",
		"  baseline/timeout_after_commit: effect_at_most_once, recorded_agrees_with_ledger violated\n    faultline replay reference/corpus/kinds/timeout_after_commit.json --profile baseline\n",
		"  and 16 more: faultline audit --full lists every row\n",
		// 105 single-fault runs (35 kinds, 3 profiles); 84 correlated (23
		// modifiers and 5 kinds outside the catalogue, span_carry_over the
		// third, server_error and network_error after the commit the last
		// two, 3 profiles; 78 and 3 before those two): 177 faults of the 35
		// kinds' runs fired, span_carry_over's runs add 5 fired and the one
		// reached but not fired, and the transport kinds' 6 fired
		"Coverage: 40 of 40 reachable keys visited (100.0%), over 105 single-fault runs and 84 correlated.\n" +
			"Faults: 188 reached and fired, 3 scheduled but not reached, 1 reached but not fired.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q\n%s", want, out)
		}
	}
	// every printed replay command reproduces its finding: the corpus
	// schedule is the audit's single-fault schedule of the kind, and the
	// replay violates the named invariant
	re := regexp.MustCompile(`  (\w+)/(\w+): ([\w, ]+) violated\n    faultline replay (reference/corpus/kinds/\w+\.json) --profile (\w+)\n`)
	ms := re.FindAllStringSubmatch(out, -1)
	if len(ms) != 8 {
		t.Fatalf("%d findings with replay commands, want 8\n%s", len(ms), out)
	}
	for _, m := range ms {
		profile, kind, invs, file := m[1], m[2], strings.Split(m[3], ", "), m[4]
		if m[5] != profile {
			t.Errorf("%s/%s replays under --profile %s", profile, kind, m[5])
		}
		data, err := os.ReadFile("../../" + file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := model.ParseSchedule(data)
		if err != nil {
			t.Fatal(err)
		}
		want, err := model.SingleFault(kind, copperfin.ConfigOfProfile(copperfin.Profile(profile)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Faults, s.Faults); diff != "" {
			t.Errorf("%s is not the audit's schedule of %s (-audit +file):\n%s", file, kind, diff)
		}
		code, rout, _ := runCLI(t, "replay", "../../"+file, "--profile", profile)
		if code != 1 {
			t.Errorf("replay of %s/%s: exit %d, want 1", profile, kind, code)
		}
		for _, inv := range invs {
			if !regexp.MustCompile(inv + ` +VIOLATED`).MatchString(rout) {
				t.Errorf("replay of %s/%s does not violate %s", profile, kind, inv)
			}
		}
	}
	// --full is the whole report: the outcome tables, the evidence and the
	// coverage by key the summary leaves out
	_, full, _ := cachedCLI(t, "audit", "--full")
	if n := strings.Count(full, "\n"); n < 700 {
		t.Errorf("--full printed %d lines", n)
	}
	for _, want := range []string{"== profile baseline (controls: none)\n", "== Fault-transfer signatures\n", "== coverage of the runs above"} {
		if !strings.Contains(full, want) || strings.Contains(out, want) {
			t.Errorf("%q: want it in --full only", want)
		}
	}
}

// TestAuditSaysWhichVerdictGates: under the paper's modes the typed
// profile passes the assay's assessment while the release envelope shadows
// it: the audit says the envelope gates a release, and why they differ.
func TestAuditSaysWhichVerdictGates(t *testing.T) {
	if raceDetector {
		t.Skip("the audit in one goroutine; go test ./... runs it")
	}
	code, out, stderr := cachedCLI(t, "audit", "--compat", "paper188")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "  typed release verdict: shadow or hold (the release envelope gates a release; the assessment, a pooled screen without\n" +
		"    per-domain floors, passes): prove floor 80% missed: prove 212 of 400 = 53.0% [95% CI 48.1%, 57.8%] (domain evidence,\n"
	if !strings.Contains(out, want) {
		t.Fatalf("the audit lacks %q\n%s", want, out)
	}
}
