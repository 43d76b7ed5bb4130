// Command fuzztool converts failing inputs of faultline's native fuzz
// targets into readable counterexample files, for scripts/fuzz-nightly.sh.
//
// Usage, from the repository root:
//
//	go run ./scripts/fuzztool convert -target FuzzComposition \
//	    -input fuzz/testdata/fuzz/FuzzComposition/582528ddfad69eb5 \
//	    [-profile P | -controls C,...] [-scope designed|ordinals] [-mutant M] \
//	    [-out corpus/counterexamples]
//
// convert reads the input file Go wrote ("go test fuzz v1" and one []byte
// literal), decodes it as the target does under the given setting (the same
// the fuzzing ran with), checks that it still fails, and writes one
// counterexample file (package corpus): for the composition target the
// failing schedule shrunk to a smallest one that violates the same
// invariants, its expected verdicts and timeline; for the determinism
// target the schedule; for the schedule-decode target the raw input and
// the error. It prints one line, "new PATH" when it wrote PATH, or "known
// PATH" when PATH already records the same counterexample, and exits 0.
// It exits 1 when the input no longer fails (nothing is written), and 2 for
// bad usage or an unreadable input.
//
//	go run ./scripts/fuzztool targets
//
// prints the targets convert knows, one a line.
package main

import (
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/model"
)

// input says how a target reads its []byte argument.
type input int

const (
	composition           input = iota // fuzz.Decoder.Decode, then Check
	scheduleOrComposition              // fuzz.Decoder.Schedule, then CheckDeterminism
	scheduleFile                       // fuzz.CheckRoundTrip
)

// targets are the fuzz targets of package fuzz and how each reads its
// input. A test checks that they are exactly the Fuzz functions of
// fuzz/fuzz_test.go and of .clusterfuzzlite/build.sh.
var targets = map[string]input{
	"FuzzComposition":       composition,
	"FuzzReplayDeterminism": scheduleOrComposition,
	"FuzzScheduleDecode":    scheduleFile,
}

// errNoLongerFails is returned when the input does not fail (exit 1).
var errNoLongerFails = errors.New("the input does not fail under this setting")

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: fuzztool convert -target T -input FILE [flags] | fuzztool targets")
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
	fmt.Fprintf(stderr, "fuzztool: unknown command %q (valid: convert, targets)\n", args[0])
	return 2
}

func convert(args []string, stderr io.Writer) (string, error) {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "", "the fuzz target that wrote the input")
	in := fs.String("input", "", "the failing input file")
	profile := fs.String("profile", "", "profile the target ran against (default typed)")
	controls := fs.String("controls", "", "control list the target ran against, comma-separated")
	scope := fs.String("scope", "designed", "decoder scope the target ran with: designed or ordinals")
	mutant := fs.String("mutant", "", "mutant the target ran against")
	out := fs.String("out", "corpus/counterexamples", "directory of counterexample files, relative to the repository root (the working directory)")
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	kind, ok := targets[*target]
	if !ok {
		return "", fmt.Errorf("unknown target %q (run fuzztool targets)", *target)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var opts []fuzz.Option
	if set["profile"] && set["controls"] {
		return "", errors.New("give -profile or -controls, not both")
	}
	if set["profile"] {
		opts = append(opts, fuzz.WithProfile(model.Profile(*profile)))
	}
	if set["controls"] {
		cs, err := fuzz.ParseControlList(*controls)
		if err != nil {
			return "", fmt.Errorf("-controls: %w", err)
		}
		opts = append(opts, fuzz.WithControls(cs))
	}
	sc, err := fuzz.ParseScope(*scope)
	if err != nil {
		return "", fmt.Errorf("-scope: %w", err)
	}
	opts = append(opts, fuzz.WithScope(sc))
	if set["mutant"] {
		sys, err := fuzz.Mutant(*mutant)
		if err != nil {
			return "", fmt.Errorf("-mutant: %w", err)
		}
		opts = append(opts, fuzz.WithSystem(sys))
	}
	d, err := fuzz.NewDecoder(opts...)
	if err != nil {
		return "", err
	}
	native, err := os.ReadFile(*in)
	if err != nil {
		return "", err
	}
	data, err := parseNative(native)
	if err != nil {
		return "", fmt.Errorf("%s: %w", *in, err)
	}
	found := corpus.FoundBy{Target: *target, System: d.System().Name, Input: string(native)}
	var ce *corpus.Counterexample
	var label string
	switch kind {
	case composition:
		found.Scope = d.Scope().String()
		ce, label, err = violation(d, data, found)
	case scheduleOrComposition:
		found.Scope = d.Scope().String()
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
	if known, err := findKnown(*out, ce); err != nil || known != "" {
		return "known " + known, err
	}
	name := fmt.Sprintf("%s-%08x.json", label, digest(ce))
	path := filepath.ToSlash(filepath.Join(*out, name))
	if ce.Kind == corpus.KindScheduleDecode {
		ce.Replay = "go test ./corpus -run TestCounterexamplesReplay"
	} else {
		ce.Replay = "go run ./cmd/faultline replay " + path
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return "", err
	}
	if err := corpus.WriteFile(path, corpus.Format(ce)); err != nil {
		return "", err
	}
	return "new " + path, nil
}

// violation decodes data, checks that it violates an invariant, shrinks
// it, and returns the counterexample and a file label
// ("baseline-stale_policy+revoked_capability").
func violation(d *fuzz.Decoder, data []byte, found corpus.FoundBy) (*corpus.Counterexample, string, error) {
	s := d.Decode(data)
	_, err := d.Check(s)
	var v *fuzz.Violation
	if !errors.As(err, &v) {
		if err == nil {
			return nil, "", errNoLongerFails
		}
		return nil, "", err
	}
	small, res, err := d.Shrink(s)
	if err != nil {
		return nil, "", err
	}
	var kinds, broken []string
	for _, f := range small.Faults {
		if !containsString(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	for _, i := range res.Invariants {
		if !i.Held {
			broken = append(broken, i.Name)
		}
	}
	cfg := small.Config.String()
	small.Seed = fmt.Sprintf("%s under %s: %s", found.Target, cfg, strings.Join(broken, ", "))
	res, err = d.Run(small)
	if err != nil {
		return nil, "", err
	}
	note := fmt.Sprintf("found by %s against %s (system %s, scope %s), minimised from %d faults to %d; violates %s",
		found.Target, cfg, found.System, found.Scope, len(s.Faults), len(small.Faults), strings.Join(broken, ", "))
	prefix := string(small.Config.Profile)
	if small.Config.HasControls {
		prefix = "controls"
	}
	if found.System != fuzz.ReferenceSystem().Name {
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
