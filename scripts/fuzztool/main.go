// Command fuzztool converts failing inputs of faultline's native fuzz
// targets into readable counterexample files, for scripts/fuzz-nightly.sh.
//
// Usage, from the repository root:
//
//	go run ./scripts/fuzztool convert -target FuzzComposition \
//	    -input fuzz/testdata/fuzz/FuzzComposition/582528ddfad69eb5 \
//	    [-profile P | -controls C,...] [-scope designed|ordinals|anywhere] \
//	    [-mutant M] [-fixture F] [-format native|raw] [-out reference/corpus/counterexamples]
//
// convert reads the input file Go wrote ("go test fuzz v1" and one []byte
// literal), or with -format raw a crash file of a libFuzzer build of the
// targets (ClusterFuzzLite's crash-HASH, OSS-Fuzz's
// clusterfuzz-testcase-...), whose whole content is the []byte input.
// -target takes the Go name of the target or the fuzzer name
// .clusterfuzzlite/build.sh gives its libFuzzer build (fuzz_composition,
// fuzz_schedule_decode, fuzz_replay_determinism). A farm build runs the
// targets' default setting (the typed profile, the designed scope) unless
// its environment sets FAULTLINE_* variables; give convert the same
// setting as flags. convert decodes the input as the target does under the
// given setting (the same the fuzzing ran with), checks that it still
// fails, and writes one counterexample file (package corpus): for the
// composition and rapid
// targets the failing schedule shrunk to a smallest one that violates the
// same invariants, its expected verdicts and timeline; for the determinism
// target the schedule; for the schedule-decode target the raw input and
// the error. The rapid target's input is rapid's draws, which only rapid
// can replay, and rapid needs a *testing.T: convert runs that input as a
// seed of the target (go test ./fuzz -run '^FuzzRapid$/^NAME$', with the
// setting in FAULTLINE_* variables) and reads the failing schedule from
// its message (the farm does not build that target, so it has no raw
// inputs). A raw input is recorded in the counterexample in the native
// form Go would write for it, so that the same input found by go test
// -fuzz and by a farm is one counterexample. It prints one line, "new
// PATH" when it wrote PATH, or "known PATH" when PATH already records the
// same counterexample, and
// exits 0. It exits 1 when the input no longer fails (nothing is written),
// and 2 for bad usage or an unreadable input.
//
//	go run ./scripts/fuzztool targets
//
// prints the targets convert knows, one a line.
//
//	go run ./scripts/fuzztool mutants
//
// prints, one a line, the setting under which each mutant of the reference
// system (copperfin.Mutants) is measured by scripts/fuzz-measure.sh:
// FAULTLINE_MUTANT=NAME, and FAULTLINE_CONTROLS=... (the typed profile
// less the controls that mask it, MutantInfo.MaskedBy) when some do.
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// input says how a target reads its []byte argument.
type input int

const (
	composition           input = iota // fuzz.Decoder.Decode, then Check
	scheduleOrComposition              // fuzz.Decoder.Schedule, then CheckDeterminism
	scheduleFile                       // fuzz.CheckRoundTrip
	rapidDraws                         // rapid.MakeFuzz over fuzz.Decoder.RapidProperty
)

// targets are the fuzz targets of package fuzz and how each reads its
// input. A test checks that they are exactly the Fuzz functions of
// package fuzz, and that .clusterfuzzlite/build.sh builds each of them
// but those the farm cannot run (cfl_test.go lists them, with the reason).
var targets = map[string]input{
	"FuzzComposition":       composition,
	"FuzzReplayDeterminism": scheduleOrComposition,
	"FuzzScheduleDecode":    scheduleFile,
	"FuzzRapid":             rapidDraws,
}

// farmNames maps the fuzzer names of the farm's libFuzzer builds (the
// third word of each compile_native_go_fuzzer line of
// .clusterfuzzlite/build.sh; a test checks them) to the targets.
var farmNames = map[string]string{
	"fuzz_composition":        "FuzzComposition",
	"fuzz_schedule_decode":    "FuzzScheduleDecode",
	"fuzz_replay_determinism": "FuzzReplayDeterminism",
}

// errNoLongerFails is returned when the input does not fail (exit 1).
var errNoLongerFails = errors.New("the input does not fail under this setting")

// referenceName is the name counterexample files give the reference
// system (corpus.FoundBy.System).
const referenceName = "copperfin"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: fuzztool convert -target T -input FILE [flags] | fuzztool targets | fuzztool mutants")
		return 2
	}
	switch args[0] {
	case "targets":
		names := make([]string, 0, len(targets))
		for n := range targets {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(stdout, strings.Join(names, "\n"))
		return 0
	case "mutants":
		for _, m := range mutantSettings() {
			fmt.Fprintln(stdout, m)
		}
		return 0
	case "convert":
		line, err := convert(args[1:], stderr)
		if err != nil {
			fmt.Fprintln(stderr, "fuzztool:", err)
			if errors.Is(err, errNoLongerFails) {
				return 1
			}
			return 2
		}
		fmt.Fprintln(stdout, line)
		return 0
	}
	fmt.Fprintf(stderr, "fuzztool: unknown command %q (valid: convert, targets, mutants)\n", args[0])
	return 2
}

func convert(args []string, stderr io.Writer) (string, error) {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "", "the fuzz target that wrote the input")
	in := fs.String("input", "", "the failing input file")
	profile := fs.String("profile", "", "profile the target ran against (default typed)")
	controls := fs.String("controls", "", "control list the target ran against, comma-separated")
	scope := fs.String("scope", "designed", "decoder scope the target ran with: designed, ordinals or anywhere")
	mutant := fs.String("mutant", "", "mutant the target ran against")
	fixture := fs.String("fixture", "", "fixture the target ran on (default copperfin)")
	format := fs.String("format", "native", `input file format: native (a "go test fuzz v1" file) or raw (a libFuzzer crash file from ClusterFuzzLite or OSS-Fuzz: the whole file is the input)`)
	out := fs.String("out", "reference/corpus/counterexamples", "directory of counterexample files, relative to the repository root (the working directory)")
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	name := *target
	if n, ok := farmNames[name]; ok {
		name = n
	}
	kind, ok := targets[name]
	if !ok {
		return "", fmt.Errorf("unknown target %q (run fuzztool targets; the farm's fuzzer names %s are accepted too)", *target, strings.Join(sortedKeys(farmNames), ", "))
	}
	raw := false
	switch *format {
	case "native":
	case "raw":
		raw = true
		if kind == rapidDraws {
			return "", fmt.Errorf("-format raw: %s is not built for the farm (.clusterfuzzlite/build.sh leaves it out), so no libFuzzer crash file comes from it; give the native input go test -fuzz wrote", name)
		}
	default:
		return "", fmt.Errorf("-format: unknown format %q (valid: native, raw)", *format)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	def := copperfin.Definition()
	opts := []fuzz.Option{fuzz.WithCatalogueSites()}
	st := copperfin.Settings{Profile: copperfin.ProfileTyped}
	// env is the same setting as FAULTLINE_* variables, for the rapid
	// target's test binary
	env := []string{"FAULTLINE_SCOPE=" + *scope}
	if set["profile"] && set["controls"] {
		return "", errors.New("give -profile or -controls, not both")
	}
	if set["profile"] {
		st.Profile = copperfin.Profile(*profile)
		if _, err := copperfin.ProfileControls(st.Profile); err != nil {
			return "", fmt.Errorf("-profile: %w", err)
		}
		env = append(env, "FAULTLINE_PROFILE="+*profile)
	}
	if set["controls"] {
		cs, err := copperfin.ParseControlList(*controls)
		if err != nil {
			return "", fmt.Errorf("-controls: %w", err)
		}
		st.Controls, st.HasControls = cs, true
		env = append(env, "FAULTLINE_CONTROLS="+*controls)
	}
	switch *scope {
	case "designed", "ordinals", "anywhere":
	default:
		return "", fmt.Errorf("-scope: unknown scope %q (valid: designed, ordinals, anywhere)", *scope)
	}
	sc := *scope
	if kind == rapidDraws {
		// the generator has its own placement; the shrinking may lower
		// ordinals
		sc = "anywhere"
	}
	opts = append(opts, fuzz.WithScope(sc))
	if set["mutant"] {
		if _, err := copperfin.ParseMutant(*mutant); err != nil || *mutant == "" {
			return "", fmt.Errorf("-mutant: %w", cmp.Or(err, errors.New("empty")))
		}
		st.Mutant = *mutant
		env = append(env, "FAULTLINE_MUTANT="+*mutant)
	}
	if set["fixture"] {
		if _, err := copperfin.FixtureNamed(*fixture); err != nil || *fixture == "" {
			return "", fmt.Errorf("-fixture: %w", cmp.Or(err, errors.New("empty")))
		}
		opts = append(opts, fuzz.WithFixture(*fixture))
		env = append(env, "FAULTLINE_FIXTURE="+*fixture)
	}
	opts = append(opts, fuzz.WithConfig(st.Config()))
	d, err := fuzz.NewDecoder(def, opts...)
	if err != nil {
		return "", err
	}
	native, err := os.ReadFile(*in)
	if err != nil {
		return "", err
	}
	var data []byte
	if raw {
		data, native = native, encodeNative(native)
	} else if data, err = parseNative(native); err != nil {
		return "", fmt.Errorf("%s: %w (for a libFuzzer crash file from ClusterFuzzLite or OSS-Fuzz, give -format raw)", *in, err)
	}
	found := corpus.FoundBy{Target: name, System: referenceName, Input: string(native)}
	fx := cmp.Or(*fixture, def.Fixtures[0].Name)
	var ce *corpus.Counterexample
	var label string
	switch kind {
	case composition:
		found.Scope = sc
		ce, label, err = violation(d, d.Decode(data), found, fx)
	case rapidDraws:
		var s *model.Schedule
		s, err = rapidSchedule(name, *in, env)
		if err == nil {
			ce, label, err = violation(d, s, found, fx)
		}
	case scheduleOrComposition:
		found.Scope = sc
		s := d.Schedule(data)
		derr := d.CheckDeterminism(s)
		if derr == nil {
			return "", errNoLongerFails
		}
		ce = &corpus.Counterexample{Version: corpus.CounterexampleVersion, Kind: corpus.KindNondeterminism, FoundBy: found,
			Note: firstLine(derr.Error()), Schedule: s}
		label = "nondeterminism"
	case scheduleFile:
		derr := roundTrip(data)
		if derr == nil {
			return "", errNoLongerFails
		}
		ce = &corpus.Counterexample{Version: corpus.CounterexampleVersion, Kind: corpus.KindScheduleDecode, FoundBy: found,
			Note: derr.Error(), Input: strconv.Quote(string(data))}
		label = "decode"
	}
	if err != nil {
		return "", err
	}
	if raw {
		ce.Note += "; read from a raw libFuzzer crash file (ClusterFuzzLite or OSS-Fuzz), recorded in found_by.input in Go's native form"
	}
	if known, err := findKnown(*out, ce); err != nil || known != "" {
		return "known " + known, err
	}
	file := fmt.Sprintf("%s-%08x.json", label, digest(ce))
	path := filepath.ToSlash(filepath.Join(*out, file))
	if ce.Kind == corpus.KindScheduleDecode {
		ce.Replay = "go test ./corpus -run TestCounterexamplesReplay"
	} else {
		ce.Replay = "go run ./cmd/faultline replay " + path
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return "", err
	}
	if err := fileio.WriteAtomic(path, corpus.Format(ce)); err != nil {
		return "", err
	}
	return "new " + path, nil
}

// violation checks that s violates an invariant, shrinks it, and returns
// the counterexample and a file label
// ("baseline-stale_policy+revoked_capability"); fixture names the run's.
func violation(d *fuzz.Decoder, s *model.Schedule, found corpus.FoundBy, fixture string) (*corpus.Counterexample, string, error) {
	var f *fuzz.Failure
	if err := d.Verify(s); !errors.As(err, &f) {
		if err == nil {
			return nil, "", errNoLongerFails
		}
		return nil, "", err
	}
	small, res := f.Schedule, f.Result
	var kinds, broken []string
	for _, f := range small.Faults {
		if !containsString(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	for _, i := range res.Invariants {
		if !i.Held {
			broken = append(broken, i.Invariant)
		}
	}
	if small.Config.Fixture == "copperfin" {
		// the default fixture, written as none, so that the same run
		// found with and without the fixture named is one file
		small.Config.Fixture = ""
	}
	cfg := copperfin.Describe(small.Config)
	small.Seed = fmt.Sprintf("%s under %s: %s", found.Target, cfg, strings.Join(broken, ", "))
	res, err := d.Check(small)
	if res == nil {
		return nil, "", err
	}
	where := "scope " + found.Scope
	if found.Scope == "" {
		where = "the exploration's generator"
	}
	note := fmt.Sprintf("found by %s against %s on fixture %s (system %s, %s), minimised from %d faults to %d; violates %s",
		found.Target, cfg, fixture, found.System, where, len(s.Faults), len(small.Faults), strings.Join(broken, ", "))
	st, err := copperfin.SettingsOf(small.Config)
	if err != nil {
		return nil, "", err
	}
	prefix := string(st.Profile)
	if st.HasControls {
		prefix = "controls"
	}
	if st.Mutant != "" {
		prefix = st.Mutant + "-" + prefix
	}
	if small.Config.Fixture != "" && small.Config.Fixture != "copperfin" {
		prefix += "-" + small.Config.Fixture
	}
	if found.System != referenceName {
		prefix = found.System + "-" + prefix
	}
	label := prefix + "-" + strings.Join(kinds, "+")
	if len(kinds) == 0 {
		label = prefix + "-no-fault"
	}
	return corpus.NewViolation(res, found, note, ""), label, nil
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// roundTrip runs fuzz.CheckRoundTrip, turning a panic into an error.
func roundTrip(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("model.ParseSchedule panicked: %v", r)
		}
	}()
	return fuzz.CheckRoundTrip(data)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// digest identifies a counterexample by what it shows (kind, schedule or
// input), not by how it was found.
func digest(ce *corpus.Counterexample) uint32 {
	h := fnv.New32a()
	h.Write([]byte(ce.Kind))
	if ce.Schedule != nil {
		h.Write(model.Format(ce.Schedule))
	}
	h.Write([]byte(ce.Input))
	return h.Sum32()
}

// findKnown returns the path of a counterexample in dir that shows the
// same thing as ce (same kind and faults and config, or same input), or "".
func findKnown(dir string, ce *corpus.Counterexample) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.ToSlash(filepath.Join(dir, e.Name()))
		data, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		old, err := corpus.ParseCounterexample(data)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if old.Kind != ce.Kind || old.Input != ce.Input || old.FoundBy.System != ce.FoundBy.System {
			continue
		}
		if (old.Schedule == nil) != (ce.Schedule == nil) {
			continue
		}
		if old.Schedule == nil || sameRun(old.Schedule, ce.Schedule) {
			return path, nil
		}
	}
	return "", nil
}

// sameRun reports whether two schedules inject the same faults under the
// same config (seed labels differ freely).
func sameRun(a, b *model.Schedule) bool {
	x, y := *a, *b
	x.Seed, y.Seed = "", ""
	return string(model.Format(&x)) == string(model.Format(&y))
}

// encodeNative returns the native fuzz input file of one []byte value, as
// Go writes it ("go test fuzz v1" and []byte(%q)): parseNative's inverse.
func encodeNative(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parseNative decodes a native fuzz input file with one []byte value, in
// the format Go writes: the line "go test fuzz v1" and the line
// []byte("...") with a Go string literal.
func parseNative(b []byte) ([]byte, error) {
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		return nil, errors.New(`not a native fuzz input: the first line is not "go test fuzz v1"`)
	}
	var vals []string
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			vals = append(vals, l)
		}
	}
	if len(vals) != 1 {
		return nil, fmt.Errorf("want one value, the []byte argument, got %d", len(vals))
	}
	expr, err := parser.ParseExprFrom(token.NewFileSet(), "input", vals[0], 0)
	if err != nil {
		return nil, err
	}
	call, ok := expr.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, fmt.Errorf("want []byte(\"...\"), got %s", vals[0])
	}
	at, ok := call.Fun.(*ast.ArrayType)
	if !ok || at.Len != nil {
		return nil, fmt.Errorf("want []byte(\"...\"), got %s", vals[0])
	}
	if elt, ok := at.Elt.(*ast.Ident); !ok || (elt.Name != "byte" && elt.Name != "uint8") {
		return nil, fmt.Errorf("want []byte(\"...\"), got %s", vals[0])
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, fmt.Errorf("want a string literal in %s", vals[0])
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// rapidSchedule runs the rapid target's input as a seed of the target
// (go test ./fuzz -run '^TARGET$/^NAME$', with env), in a copy under
// fuzz/testdata/fuzz/TARGET/ when the input lies elsewhere, and returns
// the schedule of the failure's message ("schedule (canonical form):"
// and the schedule). It returns errNoLongerFails when the seed passes or
// is skipped.
func rapidSchedule(target, in string, env []string) (*model.Schedule, error) {
	dir := filepath.Join("fuzz", "testdata", "fuzz", target)
	name := filepath.Base(in)
	if abs, _ := filepath.Abs(filepath.Dir(in)); abs != mustAbs(dir) {
		data, err := os.ReadFile(in)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		f, err := os.CreateTemp(dir, "convert-")
		if err != nil {
			return nil, err
		}
		name = filepath.Base(f.Name())
		defer func() {
			// the copy, and the directories if it made them (a
			// directory that is not empty stays)
			os.Remove(f.Name())
			for d := dir; d != "fuzz"; d = filepath.Dir(d) {
				os.Remove(d)
			}
		}()
		_, werr := f.Write(data)
		if err := cmp.Or(werr, f.Close()); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command("go", "test", "./fuzz", "-count=1", "-run", "^"+target+"$/^"+regexpQuote(name)+"$", "-v")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil, errNoLongerFails
	}
	const marker = "schedule (canonical form):"
	i := bytes.Index(out, []byte(marker))
	if i < 0 {
		return nil, fmt.Errorf("%s on %s failed without a schedule in its message:\n%s", target, in, out)
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(out[i+len(marker):])).Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s on %s: reading the schedule of its message: %w", target, in, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	return model.ParseSchedule(compact.Bytes())
}

func mustAbs(p string) string {
	a, _ := filepath.Abs(p)
	return a
}

// regexpQuote quotes the characters of a fuzz input's name that go test's
// -run pattern would read as a regular expression.
func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mutantSettings returns the FAULTLINE_* setting of each mutant, in
// copperfin.Mutants order: the mutant, and the typed profile less the
// controls that mask it when some do.
func mutantSettings() []string {
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	var out []string
	for _, m := range copperfin.Mutants() {
		line := "FAULTLINE_MUTANT=" + string(m.Name)
		if len(m.MaskedBy) > 0 {
			cs := typed
			for _, c := range m.MaskedBy {
				cs = cs.Without(c)
			}
			line += ";FAULTLINE_CONTROLS=" + cs.String()
		}
		out = append(out, line)
	}
	return out
}
