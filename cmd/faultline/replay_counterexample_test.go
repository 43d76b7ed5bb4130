package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestReplayAcceptsCounterexampleFiles: replay runs a counterexample's
// schedule and says whether the run matches the recorded one.
func TestReplayAcceptsCounterexampleFiles(t *testing.T) {
	oneGoroutine(t)
	s, err := model.SingleFault("timeout_after_commit", copperfin.ConfigOfProfile(copperfin.ProfileBaseline))
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(copperfin.Copperfin(), model.Options{}).Run(copperfin.Factory(0), s)
	if err != nil {
		t.Fatal(err)
	}
	ce := corpus.NewViolation(res, corpus.FoundBy{Target: "test", System: "reference"}, "", "go run ./cmd/faultline replay x.json")
	file := writeFile(t, string(corpus.Format(ce)))
	code, out, _ := runCLI(t, "replay", file)
	if code != 1 || !strings.Contains(out, "Recorded run: matches (unrecoverable, unsafe)") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "replay", file, "--profile", "typed")
	if code != 0 || !strings.Contains(out, "Recorded run: not compared (the config was overridden)") {
		t.Fatalf("typed override: exit %d\n%s", code, out)
	}
	// the same violation at another first seq (the system crosses more or
	// fewer events before it now) still matches, and the line says so
	v := ce.Expect.Violated[0]
	ce.Expect.Violated[0].FirstSeq = v.FirstSeq + 2
	code, out, _ = runCLI(t, "replay", writeFile(t, string(corpus.Format(ce))))
	want := fmt.Sprintf("Recorded run: matches (unrecoverable, unsafe); %s's first failing seq moved from %d to %d\n", v.Invariant, v.FirstSeq+2, v.FirstSeq)
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("moved seq: exit %d, want %q\n%s", code, want, out)
	}
	ce.Expect.Violated[0].FirstSeq = v.FirstSeq
	ce.Expect.RunVerdict = model.Recovered
	code, out, _ = runCLI(t, "replay", writeFile(t, string(corpus.Format(ce))))
	if code != 1 || !strings.Contains(out, "Recorded run: DIFFERS: run verdict unrecoverable, recorded recovered") {
		t.Fatalf("tampered: exit %d\n%s", code, out)
	}
	dec := &corpus.Counterexample{Version: 1, Kind: corpus.KindScheduleDecode, FoundBy: corpus.FoundBy{Target: "t", System: "reference"}, Input: `"{}"`}
	code, _, stderr := runCLI(t, "replay", writeFile(t, string(corpus.Format(dec))))
	if code != 2 || !strings.Contains(stderr, "a schedule_decode counterexample holds no schedule to replay") {
		t.Fatalf("decode counterexample: exit %d %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "replay", writeFile(t, `{"counterexample":1,"kind":"invariant_violation","found_by":{"target":"t","system":"reference"},"extra":1}`))
	if code != 2 || !strings.Contains(stderr, `unknown field "extra"`) {
		t.Fatalf("bad counterexample: exit %d %s", code, stderr)
	}

	// an exploration's record, and the schedule file beside it
	dir := t.TempDir()
	code, out, stderr = runCLI(t, "explore", "--without", "idempotency", "--seed", "1", "--out", dir)
	if code != 1 {
		t.Fatalf("explore: exit %d %s %s", code, out, stderr)
	}
	records, _ := filepath.Glob(filepath.Join(dir, "cx-*.counterexample.json"))
	if len(records) != 1 {
		t.Fatalf("records %v", records)
	}
	code, out, _ = runCLI(t, "replay", records[0])
	if code != 1 || !regexp.MustCompile(`Recorded run: matches \(effect_at_most_once first false after tool\.commit\)`).MatchString(out) {
		t.Fatalf("record: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "replay", strings.TrimSuffix(records[0], ".counterexample.json")+".json")
	if code != 1 || strings.Contains(out, "Recorded run") {
		t.Fatalf("schedule file beside the record: exit %d\n%s", code, out)
	}
	code, _, stderr = runCLI(t, "replay", writeFile(t, `{"version":1,"schedule_file":"x.json","invariant":"Luck!","schedule":{"version":1,"config":{"profile":"typed"},"faults":[]}}`))
	if code != 2 || !strings.Contains(stderr, `invariant name "Luck!": must start with a lower-case letter a-z`) {
		t.Fatalf("bad record: exit %d %s", code, stderr)
	}
}

// TestReplayNamesTheToolsCrossed: a fault aimed at a misspelt tool is not
// reached (exit 3), and replay names the tools the run called at its event
// beside the one the schedule named, in the fault report and on stderr;
// an event the run never crossed is said so.
func TestReplayNamesTheToolsCrossed(t *testing.T) {
	oneGoroutine(t)
	sched := `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit","tool":"refund_creat"}]}`
	code, out, stderr := runCLI(t, "replay", writeFile(t, sched))
	note := "(the run crossed tool.commit calling payments.refund, not refund_creat)"
	if code != 3 || !strings.Contains(out, "f1 timeout_after_commit at tool.commit(refund_creat)#1: NOT REACHED: its event never occurred "+note+"; this fault was not tested\n") ||
		stderr != "faultline: inconclusive: f1 timeout_after_commit at tool.commit(refund_creat)#1 was not reached "+note+"; the run tested less than its schedule\n" {
		t.Fatalf("exit %d\nstderr %q\n%s", code, stderr, out)
	}
}
