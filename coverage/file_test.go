package coverage_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/reference/copperfin"
)

// notReachedFile is the exact file of one typed run whose fault at the
// fifth tool.commit was never reached: the reference system's run, with
// every event it crossed.
const notReachedFile = `{
  "version": 3,
  "runs": 1,
  "not_adjudicated": 0,
  "systems": {
    "copperfin": {
      "runs": 1,
      "traced_runs": 1,
      "crossed": [
        "authority.check",
        "authority.grant",
        "branch.join",
        "branch.run",
        "checkpoint.load",
        "checkpoint.write",
        "claim",
        "context.eligibility",
        "context.policy",
        "context.subject",
        "evidence.decision",
        "evidence.lookup",
        "evidence.readback",
        "evidence.receipt",
        "ledger.readback",
        "memory.read",
        "memory.write",
        "proposal",
        "state.read",
        "tool.commit",
        "worker.start"
      ],
      "not_applicable": [],
      "concurrent_runs": 0,
      "undrawn_kinds": [
        "ambient_identity_leak",
        "sliding_grant_cache",
        "span_carry_over"
      ]
    }
  },
  "keys": {
    "tool/effect/after_commit/isolated/ledger_readback": {
      "visits": 0,
      "not_reached": 1,
      "not_fired": 0
    }
  }
}
`

func TestWriteExactBytes(t *testing.T) {
	d := record(t, at(t, "timeout_after_commit", 5, copperfin.ProfileTyped)).Data()
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != notReachedFile {
		t.Fatalf("file:\n%s", b.String())
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	d := record(t, append(auditSchedules(t), at(t, "drop_effect_receipt", 3, copperfin.ProfileTyped))...).Data()
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := coverage.Read(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, back); diff != "" {
		t.Fatalf("round trip (-wrote +read):\n%s", diff)
	}
	var b2 bytes.Buffer
	if err := back.Write(&b2); err != nil {
		t.Fatal(err)
	}
	if b.String() != b2.String() {
		t.Fatal("writing what was read gives different bytes")
	}
	for _, want := range []string{`"counterexamples": [`, `"invariant": "effect_at_most_once"`, `"first_seq": 19`, `"event": "tool.commit"`, `"profile": "baseline"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("file lacks %s", want)
		}
	}
}

func TestReadIsStrict(t *testing.T) {
	good := notReachedFile
	visited := string(mustWrite(t, record(t, single(t, "timeout_after_commit", copperfin.ProfileBaseline)).Data()))
	entry := `"visits": 0,
      "not_reached": 1,
      "not_fired": 0`
	cases := []struct{ name, in, want string }{
		{"empty", ``, "malformed JSON"},
		{"malformed", `{"version": 1,`, "malformed JSON"},
		{"no version", strings.Replace(good, `"version": 3,`, ``, 1), `missing "version" (want 3)`},
		{"version 4", strings.Replace(strings.Replace(good, `"version": 3`, `"version": 4`, 1), `"runs": 1,`, `"runs": 1, "shards": 4,`, 1), "unsupported version 4 (want 3, 2 or 1)"},
		{"v3 field in version 2", strings.Replace(good, `"version": 3`, `"version": 2`, 1), `"concurrent_runs", "enacts", "not_applicable_keys" and "undrawn_kinds" are fields of version 3, not of version 2`},
		{"concurrent_runs above runs", strings.Replace(good, `"concurrent_runs": 0`, `"concurrent_runs": 2`, 1), `"concurrent_runs" is 2, outside 0..runs (1)`},
		{"unknown enacted kind", strings.Replace(good, `"concurrent_runs": 0`, `"concurrent_runs": 0, "enacts": ["no_such_kind"]`, 1), `enacts: "no_such_kind" is not a fault kind`},
		{"pattern without a reason", strings.Replace(good, `"concurrent_runs": 0`, `"concurrent_runs": 0, "not_applicable_keys": {"tool/*/*/*/*": " "}`, 1), `not-applicable key pattern "tool/*/*/*/*": no reason given`},
		{"unknown undrawn kind", strings.Replace(good, `"sliding_grant_cache",`, `"stale_policy",`, 1), `undrawn kinds: "stale_policy" is not a kind outside the catalogue`},
		{"repeated undrawn kind", strings.Replace(good, `"sliding_grant_cache",`, `"span_carry_over",`, 1), `undrawn kinds: kind "span_carry_over" listed twice`},
		{"bad pattern", strings.Replace(good, `"concurrent_runs": 0`, `"concurrent_runs": 0, "not_applicable_keys": {"tool/*/*": "x"}`, 1), `not-applicable key pattern "tool/*/*": "tool/*/*": want 5 values`},
		{"unknown field", strings.Replace(good, `"runs": 1,`, `"runs": 1, "shards": 4,`, 1), `unknown field "shards"`},
		{"unknown entry field", strings.Replace(good, `"visits": 0,`, `"visits": 0, "hits": 3,`, 1), `keys["tool/effect/after_commit/isolated/ledger_readback"]: unknown field "hits"`},
		{"missing runs", strings.Replace(good, `"runs": 1,`, ``, 1), `missing "runs"`},
		{"missing keys", `{"version": 2, "runs": 0, "not_adjudicated": 0, "systems": {}}`, `missing "keys"`},
		{"missing systems", `{"version": 2, "runs": 0, "not_adjudicated": 0, "keys": {}}`, `missing "systems"`},
		{"systems in version 1", `{"version": 1, "runs": 0, "not_adjudicated": 0, "systems": {}, "keys": {}}`, `"systems" is a field of version 2, not of version 1`},
		{"negative runs", strings.Replace(good, `"runs": 1,`, `"runs": -1,`, 1), `"runs" is -1, below 0`},
		{"not adjudicated above runs", strings.Replace(good, `"not_adjudicated": 0`, `"not_adjudicated": 2`, 1), `"not_adjudicated" is 2, outside 0..runs (1)`},
		{"bad key", strings.Replace(good, "ledger_readback", "ledger", 1), `unknown oracle "ledger"`},
		{"missing not_fired", strings.Replace(good, `,
      "not_fired": 0`, ``, 1), `missing "not_fired"`},
		{"negative", strings.Replace(good, `"not_reached": 1`, `"not_reached": -1`, 1), `"not_reached" is -1, below 0`},
		{"all zero", strings.Replace(good, `"not_reached": 1`, `"not_reached": 0`, 1), "every count is 0"},
		{"visits without schedule", strings.Replace(good, entry, `"visits": 2, "not_reached": 0, "not_fired": 0`, 1), `2 visits but no "schedule"`},
		{"trailing data", good + "{}", "trailing data"},
		{"invalid invariant name", strings.Replace(visited, `"invariant": "effect_at_most_once"`, `"invariant": "Be nice"`, 1), `counterexamples[0]: invariant name "Be nice": must start with a lower-case letter a-z`},
		{"invariant name with a dash", strings.Replace(visited, `"invariant": "effect_at_most_once"`, `"invariant": "be-nice"`, 1), `counterexamples[0]: invariant name "be-nice": byte 2 ('-') is not a lower-case letter, digit or underscore`},
		{"long invariant name", strings.Replace(visited, `"invariant": "effect_at_most_once"`, `"invariant": "`+strings.Repeat("a", 65)+`"`, 1), `65 bytes, longer than 64`},
		{"system of no record", strings.Replace(visited, `"system": "copperfin"`, `"system": "billing"`, 1), `"system" "billing" is not one of the file's "systems"`},
		{"system without runs", strings.Replace(good, `"runs": 1,
      "traced_runs": 1,`, `"runs": 0,
      "traced_runs": 0,`, 1), `systems["copperfin"]: "runs" is 0, below 1`},
		{"systems over runs", strings.Replace(good, `"runs": 1,
      "traced_runs": 1,`, `"runs": 2,
      "traced_runs": 1,`, 1), `the systems' runs add up to 2, more than "runs" (1)`},
		{"traced over runs", strings.Replace(good, `"traced_runs": 1,`, `"traced_runs": 2,`, 1), `"traced_runs" is 2, outside 0..runs (1)`},
		{"crossed untraced", strings.Replace(good, `"traced_runs": 1,`, `"traced_runs": 0,`, 1), `crossed events but no traced run`},
		{"missing traced", strings.Replace(good, `"traced_runs": 1,`, ``, 1), `missing "traced_runs"`},
		{"bad system name", strings.Replace(good, `"copperfin": {`, `"Copperfin": {`, 1), `systems["Copperfin"]: system name "Copperfin": must start with a lower-case letter`},
		{"bad crossed event", strings.Replace(good, `"claim",`, `"claim.",`, 1), `crossed: event "claim.": empty`},
		{"repeated crossed event", strings.Replace(good, `"claim",`, `"claim", "claim",`, 1), `crossed: event "claim" listed twice`},
		{"missing crossed", strings.Replace(good, `"crossed": [`, `"crossings": [`, 1), `unknown field "crossings"`},
		{"unknown boundary", strings.Replace(good, `"not_applicable": []`, `"not_applicable": ["vault"]`, 1), `not applicable: unknown boundary "vault"`},
		{"repeated boundary", strings.Replace(good, `"not_applicable": []`, `"not_applicable": ["memory", "memory"]`, 1), `not applicable: boundary "memory" listed twice`},
		{"bad replay", strings.Replace(good, `"not_applicable": []`, `"not_applicable": [], "replay": "go test ./billing"`, 1), `replay template "go test ./billing": holds 0 %s, want exactly one`},
		{"count 0", strings.Replace(visited, `"count": 1`, `"count": 0`, 1), `counterexamples[0]: "count" is 0, below 1`},
		{"schedule of another key", strings.Replace(visited, `"tool/effect/after_commit/isolated/ledger_readback"`, `"tool/effect/after_commit/isolated/receipt"`, 1), "its schedule has no fault of this key"},
		{"bad schedule", strings.Replace(visited, `"kind": "timeout_after_commit"`, `"kind": "gremlin"`, 1), `unknown fault kind "gremlin"`},
	}
	for _, c := range cases {
		_, err := coverage.Read(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// a schedule under a key with no visit
	in := strings.Replace(visited, `"visits": 1,`, `"visits": 0,
      "not_reached": 1,`, 1)
	in = strings.Replace(in, `"not_reached": 0,`, ``, 1)
	if _, err := coverage.Read(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), `a "schedule" but no visit`) {
		t.Errorf("schedule without visit: %v", err)
	}
}

func mustWrite(t *testing.T, d *coverage.Data) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cov.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := record(t, at(t, "timeout_after_commit", 5, copperfin.ProfileTyped)).Data()
	if err := coverage.WriteFile(p, d); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != notReachedFile {
		t.Fatalf("file:\n%s", b)
	}
	// beside the file, only the lock every writer takes
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 || ents[0].Name() != "cov.json" || ents[1].Name() != "cov.json.lock" {
		t.Fatalf("left behind: %v", ents)
	}
	if err := coverage.WriteFile(filepath.Join(dir, "missing", "cov.json"), d); err == nil {
		t.Fatal("writing into a missing folder succeeded")
	}
}

// TestMergeIntoFileFromManyWriters: 12 writers (each with its own lock
// file handle, as separate processes have) merge into one file; no update
// is lost.
func TestMergeIntoFileFromManyWriters(t *testing.T) {
	if raceDetector {
		t.Skip("repeats the concurrent merges into one file that TestMergesBesideRecordersLoseNothing runs under the detector (eight of its twelve writers merge the same data); go test ./... runs this test")
	}
	p := filepath.Join(t.TempDir(), "cov.json")
	d := record(t, auditSchedules(t)...).Data()
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := coverage.MergeIntoFile(p, d); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := coverage.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// 12 times the 189 audit runs (183 before server_error's and
	// network_error's runs joined the audit's, 168 before the catalogue's
	// five new kinds under each of the three profiles): every count of d,
	// times 12
	if got.Runs != 12*189 || len(got.Keys) != 40 {
		t.Fatalf("runs %d, want 2268; keys %d, want 40", got.Runs, len(got.Keys))
	}
	want := d.Clone()
	want.Runs *= 12
	want.Systems[copperfin.Name].Runs *= 12
	want.Systems[copperfin.Name].Traced *= 12
	want.Systems[copperfin.Name].Concurrent *= 12
	for _, e := range want.Keys {
		e.Visits *= 12
		e.NotReached *= 12
		e.NotFired *= 12
		for i := range e.Counterexamples {
			e.Counterexamples[i].Count *= 12
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("merged file (-want +got):\n%s", diff)
	}
	// a corrupt file is reported and left unchanged
	os.WriteFile(p, []byte(`{"version": 1, "runs": "many"}`), 0o644)
	if err := coverage.MergeIntoFile(p, d); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("merging into a corrupt file: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != `{"version": 1, "runs": "many"}` {
		t.Fatalf("corrupt file changed: %s", b)
	}
}

// TestFlushToResets: flushing twice never counts a run twice.
func TestFlushToResets(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	tr := record(t, at(t, "timeout_after_commit", 5, copperfin.ProfileTyped))
	if err := tr.FlushTo(p); err != nil {
		t.Fatal(err)
	}
	if err := tr.FlushTo(p); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != notReachedFile {
		t.Fatalf("file after two flushes:\n%s", b)
	}
}

type fakeM struct{ code int }

func (m fakeM) Run() int { return m.code }

func TestMain_(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	tr := record(t, at(t, "timeout_after_commit", 5, copperfin.ProfileTyped))
	if code := coverage.Main(fakeM{3}, p, tr); code != 3 {
		t.Fatalf("code %d, want the tests' 3", code)
	}
	if b, _ := os.ReadFile(p); string(b) != notReachedFile {
		t.Fatalf("file:\n%s", b)
	}
	errb := captureStderr(t)
	if code := coverage.Main(fakeM{0}, filepath.Join(p, "not-a-dir", "x.json"), tr); code != 1 || !strings.Contains(errb.String(), "not a directory") {
		t.Fatalf("failed flush: code %d, want 1; stderr %q", code, errb.String())
	}
	if code := coverage.Main(fakeM{0}, "", tr); code != 0 {
		t.Fatalf("no path: code %d", code)
	}
}

// TestReadSubjectReadAlias: a file written when the subject read was
// named context.order reads back with the event's name now, in its sorted
// place, and is written with that name.
func TestReadSubjectReadAlias(t *testing.T) {
	old := strings.Replace(strings.Replace(notReachedFile, `        "context.subject",
`, "", 1), `        "context.policy",
`, `        "context.order",
        "context.policy",
`, 1)
	if !strings.Contains(old, "context.order") || strings.Contains(old, "context.subject") {
		t.Fatalf("the old file:\n%s", old)
	}
	d, err := coverage.Read(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != notReachedFile {
		t.Fatalf("written back:\n%s", b.String())
	}
}

// captureStderr points os.Stderr at a temporary file until the test ends.
func captureStderr(t *testing.T) *stderrFile {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = f
	t.Cleanup(func() { os.Stderr = old; f.Close() })
	return &stderrFile{f}
}

// stderrFile is the file os.Stderr writes to: String reads what was written,
// Reset empties it.
type stderrFile struct{ f *os.File }

func (s *stderrFile) String() string {
	b, _ := os.ReadFile(s.f.Name())
	return string(b)
}

func (s *stderrFile) Reset() {
	s.f.Truncate(0)
	s.f.Seek(0, 0)
}

// TestFileOfTheReferenceNameReadsAndMerges: a file written when the
// reference system was recorded as "reference" still reads, and merges
// with one that records it under its Definition's name, "copperfin".
func TestFileOfTheReferenceNameReadsAndMerges(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	if err := os.WriteFile(p, []byte(strings.Replace(notReachedFile, `"copperfin": {`, `"reference": {`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := coverage.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	if err := coverage.MergeIntoFile(p, record(t, at(t, "timeout_after_commit", 5, copperfin.ProfileTyped)).Data()); err != nil {
		t.Fatal(err)
	}
	d, err := coverage.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if d.Runs != 2 || d.Systems["reference"].Runs != 1 || d.Systems["copperfin"].Runs != 1 || d.Keys[mustKey(t, "tool/effect/after_commit/isolated/ledger_readback")].NotReached != 2 {
		t.Fatalf("merged: %+v", d)
	}
}

// TestVersion2FileReads: a version-2 file, which kept no concurrent runs,
// enacted kinds nor key patterns, reads with every modifier drawable and
// every kind enactable, so its report counts as it always did; it is
// written back in version 3.
func TestVersion2FileReads(t *testing.T) {
	v2 := strings.Replace(strings.Replace(notReachedFile, `"version": 3`, `"version": 2`, 1), `"not_applicable": [],
      "concurrent_runs": 0,
      "undrawn_kinds": [
        "ambient_identity_leak",
        "sliding_grant_cache",
        "span_carry_over"
      ]`, `"not_applicable": []`, 1)
	d, err := coverage.Read(strings.NewReader(v2))
	if err != nil {
		t.Fatal(err)
	}
	if s := coverage.NewReport(coverage.Default(), d, coverage.ReportOptions{}).Summary; s.NotDrawn != 0 || s.NotEnacted != 0 || s.Applicable != 40 {
		t.Fatalf("summary %+v", s)
	}
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "{\n  \"version\": 3,") || strings.Contains(b.String(), "concurrent_runs") {
		t.Fatalf("written back:\n%s", b.String())
	}
	// written back as version 3, its runs' concurrency stays unknown: the
	// report counts as before
	back, err := coverage.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if s := coverage.NewReport(coverage.Default(), back, coverage.ReportOptions{}).Summary; s.NotDrawn != 0 || s.Applicable != 40 {
		t.Fatalf("read back: %+v", s)
	}
}
