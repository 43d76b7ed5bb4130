package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

func tool(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func native(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(p, []byte("go test fuzz v1\n[]byte("+strconv.Quote(string(data))+")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConvertComposition: a failing composition input becomes a shrunk
// violation counterexample that replays to its recorded run; converting it
// again reports the file as known; under typed the input does not fail.
func TestConvertComposition(t *testing.T) {
	d, err := refDecoder("", fuzz.WithScope("ordinals"))
	if err != nil {
		t.Fatal(err)
	}
	// a fault never reached (the run has one proposal) and the
	// duplicate-refund fault: only the second stays
	two := &model.Schedule{Faults: []model.FaultEntry{
		{Event: model.EvProposal, Ordinal: 3, Kind: "subject_swap"},
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"},
	}}
	data, err := d.Encode(two)
	if err != nil {
		t.Fatal(err)
	}
	in := native(t, data)
	out := filepath.Join(t.TempDir(), "ce")
	code, stdout, stderr := tool(t, "convert", "-target", "FuzzComposition", "-input", in, "-profile", "baseline", "-controls", "idempotency", "-out", out, "-scope", "ordinals")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "give -profile or -controls, not both") {
		t.Fatalf("both: exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	code, stdout, stderr = tool(t, "convert", "-target", "FuzzComposition", "-input", in, "-controls", "", "-out", out, "-scope", "ordinals")
	if code != 0 || !strings.HasPrefix(stdout, "new "+filepath.ToSlash(out)+"/controls-") {
		t.Fatalf("exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	path := strings.TrimSpace(strings.TrimPrefix(stdout, "new "))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ce, err := corpus.ParseCounterexample(raw)
	if err != nil {
		t.Fatal(err)
	}
	if ce.Kind != corpus.KindViolation || ce.Replay != "go run ./cmd/faultline replay "+path || ce.FoundBy.Target != "FuzzComposition" ||
		ce.FoundBy.Scope != "ordinals" || !strings.Contains(ce.FoundBy.Input, strconv.Quote(string(data))) {
		t.Errorf("counterexample header %+v", ce)
	}
	if len(ce.Schedule.Faults) != 1 || ce.Schedule.Faults[0].Kind != "timeout_after_commit" || !settingsOf(t, ce.Schedule.Config).HasControls {
		t.Errorf("not shrunk to the timeout: %+v", ce.Schedule)
	}
	if len(ce.Expect.Violated) == 0 || ce.Expect.Violated[0].Invariant != model.InvEffectAtMostOnce || ce.Expect.RunVerdict != model.Unrecoverable {
		t.Errorf("expect %+v", ce.Expect)
	}
	res, err := replay(d, ce.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if err := ce.Check(res); err != nil {
		t.Errorf("replay differs: %v", err)
	}
	code, stdout, _ = tool(t, "convert", "-target", "FuzzComposition", "-input", in, "-profile", "baseline", "-out", out, "-scope", "ordinals")
	if code != 0 || !strings.HasPrefix(stdout, "new ") {
		t.Fatalf("baseline is another setting than the empty control list, so a new file: exit %d %q", code, stdout)
	}
	code, stdout, _ = tool(t, "convert", "-target", "FuzzComposition", "-input", in, "-controls", " ", "-out", out, "-scope", "ordinals")
	if code != 0 || stdout != "known "+path+"\n" {
		t.Fatalf("second conversion: exit %d %q, want known %s", code, stdout, path)
	}
	code, _, stderr = tool(t, "convert", "-target", "FuzzComposition", "-input", in, "-out", out, "-scope", "ordinals")
	if code != 1 || !strings.Contains(stderr, "does not fail under this setting") {
		t.Fatalf("typed: exit %d %s", code, stderr)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Errorf("%d files written, want 2", len(entries))
	}
}

// TestConvertRawCrashFile: a crash file of the farm's libFuzzer build (the
// raw bytes, named as ClusterFuzzLite names it), given by the farm's
// fuzzer name and the setting the farm ran, becomes the same shrunk
// violation counterexample as the native input, with its replay command
// and the input in Go's native form; the same input as a native file is
// then known; without -format raw the file is refused with the hint.
func TestConvertRawCrashFile(t *testing.T) {
	d, err := refDecoderOf(copperfin.ConfigOfControls(0), fuzz.WithScope("ordinals"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := d.Encode(&model.Schedule{Faults: []model.FaultEntry{
		{Event: model.EvProposal, Ordinal: 3, Kind: "subject_swap"},
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(data, []byte("go test fuzz v1")) || len(data) == 0 {
		t.Fatalf("encoded input %q", data)
	}
	crash := filepath.Join(t.TempDir(), "crash-0b7e3c2f9a1d4e6b8c5f0a2d4e6b8c5f0a2d4e6b")
	if err := os.WriteFile(crash, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ce")
	code, _, stderr := tool(t, "convert", "-target", "fuzz_composition", "-input", crash, "-controls", "", "-scope", "ordinals", "-out", out)
	if code != 2 || !strings.Contains(stderr, `not a native fuzz input`) || !strings.Contains(stderr, "give -format raw") {
		t.Fatalf("raw file as native: exit %d %s", code, stderr)
	}
	code, stdout, stderr := tool(t, "convert", "-target", "fuzz_composition", "-format", "raw", "-input", crash, "-controls", "", "-scope", "ordinals", "-out", out)
	if code != 0 || !strings.HasPrefix(stdout, "new "+filepath.ToSlash(out)+"/controls-timeout_after_commit-") {
		t.Fatalf("exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	path := strings.TrimSpace(strings.TrimPrefix(stdout, "new "))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ce, err := corpus.ParseCounterexample(raw)
	if err != nil {
		t.Fatal(err)
	}
	in := native(t, data)
	nativeText, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	if ce.Kind != corpus.KindViolation || ce.Replay != "go run ./cmd/faultline replay "+path || ce.FoundBy.Target != "FuzzComposition" ||
		ce.FoundBy.Scope != "ordinals" || ce.FoundBy.Input != string(nativeText) || !strings.Contains(ce.Note, "raw libFuzzer crash file") {
		t.Errorf("counterexample header %+v note %q", ce.FoundBy, ce.Note)
	}
	if len(ce.Schedule.Faults) != 1 || ce.Schedule.Faults[0].Kind != "timeout_after_commit" || !settingsOf(t, ce.Schedule.Config).HasControls ||
		len(ce.Expect.Violated) != 2 || ce.Expect.Violated[0].Invariant != model.InvEffectAtMostOnce ||
		ce.Expect.Violated[1].Invariant != model.InvRecordedAgreesWithLedger || ce.Expect.RunVerdict != model.Unrecoverable {
		t.Errorf("not shrunk to the timeout: %+v %+v", ce.Schedule, ce.Expect)
	}
	res, err := replay(d, ce.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if err := ce.Check(res); err != nil {
		t.Errorf("replay differs: %v", err)
	}
	code, stdout, _ = tool(t, "convert", "-target", "FuzzComposition", "-input", in, "-controls", "", "-scope", "ordinals", "-out", out)
	if code != 0 || stdout != "known "+path+"\n" {
		t.Fatalf("the same input as a native file: exit %d %q, want known %s", code, stdout, path)
	}
	for _, target := range []string{"fuzz_schedule_decode", "fuzz_replay_determinism"} {
		code, _, stderr = tool(t, "convert", "-target", target, "-format", "raw", "-input", crash, "-out", out)
		if code != 1 || !strings.Contains(stderr, "does not fail under this setting") {
			t.Errorf("%s: exit %d %s", target, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 1 {
		t.Errorf("%d files written, want 1", len(entries))
	}
}

// TestConvertMutantAndRapid: against a mutant the composition target's
// input and the rapid target's input each become a counterexample whose
// schedule names the mutant (and the fixture), shrunk, replaying to its
// recorded run; the file name starts with the mutant.
func TestConvertMutantAndRapid(t *testing.T) {
	d, err := refDecoder("key_per_attempt", fuzz.WithFixture("copperfin-batch"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := d.Encode(&model.Schedule{Faults: []model.FaultEntry{
		{Event: model.EvProposal, Ordinal: 1, Kind: "subject_swap"},
		{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ce")
	code, stdout, stderr := tool(t, "convert", "-target", "FuzzComposition", "-input", native(t, data), "-mutant", "key_per_attempt",
		"-fixture", "copperfin-batch", "-out", out)
	if code != 0 || !strings.HasPrefix(stdout, "new "+filepath.ToSlash(out)+"/key_per_attempt-typed-copperfin-batch-tool_timeout-") {
		t.Fatalf("exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(strings.TrimSpace(strings.TrimPrefix(stdout, "new ")))
	if err != nil {
		t.Fatal(err)
	}
	ce, err := corpus.ParseCounterexample(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := func() model.Config {
		c := copperfin.Settings{Profile: copperfin.ProfileTyped, Mutant: "key_per_attempt"}.Config()
		c.Fixture = "copperfin-batch"
		return c
	}()
	if !reflect.DeepEqual(ce.Schedule.Config, want) || len(ce.Schedule.Faults) != 1 || ce.Expect.Violated[0].Invariant != model.InvEffectAtMostOnce {
		t.Fatalf("counterexample %+v %+v", ce.Schedule, ce.Expect)
	}
	res, err := replay(d, ce.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if err := ce.Check(res); err != nil {
		t.Errorf("replay differs: %v", err)
	}

	if testing.Short() {
		t.Skip("the rapid target's conversion runs go test")
	}
	t.Chdir("../..")
	// these draws give a revoked capability at its default placement
	// (authority.grant#1), which a system that checks expiry only at
	// approval lets through to the effect
	in := native(t, bytes.Repeat([]byte{4, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}, 16))
	code, stdout, stderr = tool(t, "convert", "-target", "FuzzRapid", "-input", in, "-mutant", "expiry_at_approval", "-out", out)
	if code != 0 || !strings.HasPrefix(stdout, "new "+filepath.ToSlash(out)+"/expiry_at_approval-typed-revoked_capability-") {
		t.Fatalf("rapid: exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	raw, err = os.ReadFile(strings.TrimSpace(strings.TrimPrefix(stdout, "new ")))
	if err != nil {
		t.Fatal(err)
	}
	if ce, err = corpus.ParseCounterexample(raw); err != nil {
		t.Fatal(err)
	}
	if ce.FoundBy.Target != "FuzzRapid" || ce.FoundBy.Scope != "" || len(ce.Schedule.Faults) != 1 || copperfin.MutantOf(ce.Schedule.Config) != "expiry_at_approval" ||
		ce.Expect.Violated[0].Invariant != model.InvCurrentEntitlement || ce.Expect.Violated[0].Event != model.EvToolCommit {
		t.Fatalf("rapid counterexample %+v %+v %+v", ce.FoundBy, ce.Schedule, ce.Expect)
	}
	if _, err := os.Stat(filepath.Join("fuzz", "testdata")); !os.IsNotExist(err) {
		t.Errorf("the input's copy was left in fuzz/testdata: %v", err)
	}
	code, _, stderr = tool(t, "convert", "-target", "FuzzRapid", "-input", in, "-out", out)
	if code != 1 || !strings.Contains(stderr, "does not fail under this setting") {
		t.Fatalf("rapid under typed: exit %d %s", code, stderr)
	}
}

func TestConvertRejectsBadUse(t *testing.T) {
	good := native(t, []byte("x"))
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("go test fuzz v1\nstring(\"x\")\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"convert", "-target", "FuzzNothing", "-input", good}, 2, `unknown target "FuzzNothing"`},
		{[]string{"convert", "-target", "FuzzComposition", "-input", good, "-mutant", "m"}, 2, `-mutant: unknown mutant "m" (valid: rejection_as_success,`},
		{[]string{"convert", "-target", "FuzzComposition", "-input", good, "-mutant", ""}, 2, `-mutant: empty`},
		{[]string{"convert", "-target", "FuzzComposition", "-input", good, "-fixture", "warehouse"}, 2, `-fixture: unknown fixture "warehouse"`},
		{[]string{"convert", "-target", "FuzzComposition", "-input", good, "-scope", "wide"}, 2, `-scope: unknown scope "wide" (valid: designed, ordinals, anywhere)`},
		{[]string{"convert", "-target", "FuzzComposition", "-input", bad}, 2, `want []byte("..."), got string("x")`},
		{[]string{"convert", "-target", "FuzzScheduleDecode", "-input", good}, 1, "does not fail"},
		{[]string{"convert", "-target", "FuzzReplayDeterminism", "-input", good}, 1, "does not fail"},
		{[]string{"convert", "-target", "FuzzComposition", "-input", good, "-format", "afl"}, 2, `-format: unknown format "afl" (valid: native, raw)`},
		{[]string{"convert", "-target", "FuzzRapid", "-input", good, "-format", "raw"}, 2, `-format raw: FuzzRapid is not built for the farm`},
		{[]string{"convert", "-target", "fuzz_rapid", "-input", good}, 2, `unknown target "fuzz_rapid" (run fuzztool targets; the farm's fuzzer names fuzz_composition, fuzz_replay_determinism, fuzz_schedule_decode are accepted too)`},
		{[]string{"frob"}, 2, `unknown command "frob" (valid: convert, targets, mutants)`},
	}
	for _, c := range cases {
		code, _, stderr := tool(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %d %q", c.args, code, stderr, c.code, c.want)
		}
	}
	code, stdout, _ := tool(t, "targets")
	if code != 0 || stdout != "FuzzComposition\nFuzzRapid\nFuzzReplayDeterminism\nFuzzScheduleDecode\n" {
		t.Errorf("targets: %d %q", code, stdout)
	}
}

func TestParseNative(t *testing.T) {
	for in, want := range map[string]string{
		"go test fuzz v1\n[]byte(\"\\x00A\")\n": "\x00A",
		"go test fuzz v1\r\n[]byte(\"\")\r\n":   "",
		"go test fuzz v1\n[]uint8(`raw`)":       "raw",
	} {
		got, err := parseNative([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, raw := range []string{"", "\x00\xff\n", "go test fuzz v1\n", "`\"\\", "\u00e9\xc3"} {
		got, err := parseNative(encodeNative([]byte(raw)))
		if err != nil || string(got) != raw {
			t.Errorf("%q: encoded and parsed back as %q %v", raw, got, err)
		}
	}
	for in, want := range map[string]string{
		"go test fuzz v2\n[]byte(\"\")":                   "first line",
		"go test fuzz v1\n":                               "want one value",
		"go test fuzz v1\n[]byte(\"a\")\n[]byte(\"b\")\n": "got 2",
		"go test fuzz v1\n[4]byte(\"a\")":                 "want []byte",
		"go test fuzz v1\n[]byte(x)":                      "want a string literal",
	} {
		if _, err := parseNative([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// TestShellScriptsParse: bash reads the nightly and fuzzing scripts and the farm's
// build script without a syntax error.
func TestShellScriptsParse(t *testing.T) {
	for _, s := range []string{"../fuzz-nightly.sh", "../explore-nightly.sh", "../fuzz-measure.sh", "../../.clusterfuzzlite/build.sh"} {
		if out, err := exec.Command("bash", "-n", s).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", s, err, out)
		}
		if fi, err := os.Stat(s); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable (%v)", s, err)
		}
	}
}

// refDecoder is the decoder fuzztool builds for the reference system
// under the typed profile and mutant.
func refDecoder(mutant string, opts ...fuzz.Option) (*fuzz.Decoder, error) {
	return refDecoderOf(copperfin.Settings{Profile: copperfin.ProfileTyped, Mutant: mutant}.Config(), opts...)
}

// refDecoderOf is the decoder of the reference system under cfg.
func refDecoderOf(cfg model.Config, opts ...fuzz.Option) (*fuzz.Decoder, error) {
	return fuzz.NewDecoder(copperfin.Definition(), append([]fuzz.Option{fuzz.WithConfig(cfg), fuzz.WithCatalogueSites()}, opts...)...)
}

// replay runs s on d: its result, a violation included.
func replay(d *fuzz.Decoder, s *model.Schedule) (*model.Result, error) {
	res, err := d.Check(s)
	if v := (*fuzz.Violation)(nil); errors.As(err, &v) {
		return res, nil
	}
	return res, err
}

func settingsOf(t *testing.T, cfg model.Config) copperfin.Settings {
	t.Helper()
	s, err := copperfin.SettingsOf(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
