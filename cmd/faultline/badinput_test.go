package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badCase is one bad command line: the message part stderr must hold.
type badCase struct {
	args []string
	want string
}

// jsonCommands write --format json, so an error asked for JSON is one
// object on stdout.
var jsonCommands = map[string]bool{"explore": true, "replay": true, "assay": true, "audit": true, "vet": true, "report": true, "gate": true, "version": true}

// TestBadInputBattery runs more than 300 bad command lines through the
// program: empty, zero, negative, huge and malformed flag values, empty
// list elements, flags that do not go together, malformed and misplaced
// files, missing and extra arguments. Each exits 2 with a message naming
// the problem and prints nothing on stdout, and refuses before any work
// (none runs a system or writes a file: the outputs they name are left
// alone). Each case of a command that writes JSON runs again with
// --format json and must print exactly {"version":1,"error":...,"exit":2}
// on stdout, the message stderr printed.
func TestBadInputBattery(t *testing.T) {
	if raceDetector {
		t.Skip("every case ends in one goroutine before any run; go test ./... runs the battery")
	}
	cases := badInputCases(t)
	if len(cases) < 300 {
		t.Fatalf("%d cases, want at least 300", len(cases))
	}
	ran := 0
	for _, c := range cases {
		code, out, stderr := runCLI(t, c.args...)
		ran++
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, want 2 naming %q\nstderr %q\nstdout %q", c.args, code, c.want, stderr, out)
			continue
		}
		if asksJSON(c.args) {
			checkErrorJSON(t, c.args, code, out, stderr)
		} else if out != "" {
			t.Errorf("%q: stdout %q, want nothing", c.args, out)
		}
		if !jsonCommands[jsonCommand(c.args)] || namesFormat(c.args) || strings.Contains(c.want, "needs an argument") {
			continue
		}
		args := append(append([]string(nil), c.args...), "--format", "json")
		code, out, stderr = runCLI(t, args...)
		ran++
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%q: stderr %q does not name %q", args, stderr, c.want)
		}
		checkErrorJSON(t, args, code, out, stderr)
	}
	t.Logf("%d cases, %d command lines", len(cases), ran)
}

// checkErrorJSON fails t unless a command line asked for JSON exited 2
// printing on stdout one line, the error object of the message stderr
// printed.
func checkErrorJSON(t *testing.T, args []string, code int, out, stderr string) {
	t.Helper()
	var obj struct {
		Version int    `json:"version"`
		Error   string `json:"error"`
		Exit    int    `json:"exit"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&obj); err != nil || code != 2 || obj.Version != 1 || obj.Exit != 2 ||
		"faultline: "+obj.Error+"\n" != stderr || strings.Count(out, "\n") != 1 || dec.More() {
		t.Errorf("%q: exit %d, stdout %q (%v), want stderr's %q as one JSON object", args, code, out, err, stderr)
	}
}

// asksJSON reports whether args ask for JSON: --json, or a last --format
// of json (the last value wins, as pflag's).
func asksJSON(args []string) bool {
	format := ""
	for i, a := range args {
		switch {
		case a == "--json":
			return true
		case strings.HasPrefix(a, "--format="):
			format = strings.TrimPrefix(a, "--format=")
		case a == "--format" && i+1 < len(args):
			format = args[i+1]
		}
	}
	return format == "json"
}

// namesFormat reports whether args give --format or --json.
func namesFormat(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "--format") || strings.HasPrefix(a, "--json") {
			return true
		}
	}
	return false
}

// jsonCommand is the command a case runs ("report" for coverage report).
func jsonCommand(args []string) string {
	if len(args) > 1 && args[0] == "coverage" {
		return args[1]
	}
	return args[0]
}

func badInputCases(t *testing.T) []badCase {
	dir := t.TempDir()
	put := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"version":1,"seed":"s","config":{"profile":"typed"},"faults":[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]}`
	goodFile := put("good.json", good)
	malformedCov := put("cov-malformed.json", `{"version": 2, "runs": 0}`)
	emptyFile := put("empty.json", "")
	keysMalformed := put("keys.txt", "tool/commit\n")
	missing := filepath.Join(dir, "nope.json")
	plainFile := put("plain", "x")
	outDir := filepath.Join(dir, "out-never-written")

	var cs []badCase
	add := func(want string, args ...string) { cs = append(cs, badCase{args, want}) }

	// flags every command of the reference system shares: the control
	// selection (assay, explore, replay) and the machine-output flag
	for _, cmd := range [][]string{{"assay"}, {"explore"}, {"replay", goodFile}} {
		with := func(want string, args ...string) { add(want, append(append([]string(nil), cmd...), args...)...) }
		with("--profile is empty", "--profile", "")
		with(`unknown profile "paranoid"`, "--profile", "paranoid")
		with(`unknown profile "TYPED"`, "--profile", "TYPED")
		with(`unknown profile " typed"`, "--profile", " typed")
		with(`unknown profile "typed,baseline"`, "--profile", "typed,baseline")
		with(`--controls "a,,b" holds an empty element`, "--controls", "a,,b")
		with(`--controls "," holds an empty element`, "--controls", ",")
		with(`--controls " " holds an empty element`, "--controls", " ")
		with(`--controls "idempotency," holds an empty element`, "--controls", "idempotency,")
		with(`--controls ",idempotency" holds an empty element`, "--controls", ",idempotency")
		with(`unknown control "magic"`, "--controls", "magic")
		with(`control "idempotency" listed twice`, "--controls", "idempotency,idempotency")
		with("not both", "--profile", "typed", "--controls", "idempotency")
		with("--format is empty", "--format", "")
		with(`--format: unknown format "xml" (valid: text, json)`, "--format", "xml")
		with(`--format: unknown format "JSON"`, "--format", "JSON")
		with(`--format: unknown format "markdown" (valid: text, json)`, "--format", "markdown")
		with(`--format: unknown format "text,json"`, "--format", "text,json")
		with("--json is --format json: give one of them, not --json with --format text", "--json", "--format", "text")
		with(`invalid argument "maybe" for --json: not true or false`, "--json=maybe")
		with("unknown flag: --bogus", "--bogus")
		with("unknown flag: --bogus", "--format", "json", "--format", "text", "--bogus")
		with("unknown flag: --bogus", "--format=text", "--format", "json", "--bogus")
		with("unknown shorthand flag: 'x' in -x", "-x")
		with("flag needs an argument: --profile", "--profile")
		if cmd[0] != "assay" {
			with("--without is empty", "--without", "")
			with(`--without "," holds an empty element`, "--without", ",")
			with(`--without "a,,b" holds an empty element`, "--without", "a,,b")
			with(`unknown control "magic"`, "--without", "magic")
			with(`unknown mutant "gremlin"`, "--mutant", "gremlin")
			with("--config is empty", "--config", "")
			with(`--config: "[]" is not a JSON object`, "--config", "[]")
			with(`--config: "{" is malformed JSON at byte 1: unexpected end of JSON input`, "--config", "{")
			with(`--config: "{\"variant\":\"fixed\"" is malformed JSON at byte 18: unexpected end of JSON input`, "--config", `{"variant":"fixed"`)
			with(`--config: "{variant:1}" is malformed JSON at byte 2: invalid character 'v' looking for beginning of object key string`, "--config", "{variant:1}")
			with(`--config: "null" is not a JSON object`, "--config", "null")
			with(`--config: "1" is not a JSON object`, "--config", "1")
			with(`--config: "\"typed\"" is not a JSON object`, "--config", `"typed"`)
		}
	}

	// explore
	ex := func(want string, args ...string) { add(want, append([]string{"explore"}, args...)...) }
	for _, v := range []string{"0", "-1", "100000001", "2147483648"} {
		ex("--checks must be between 1 and 100000000, got "+v, "--checks", v)
	}
	for _, v := range []string{"x", "1.5", "1e3", " 5"} {
		ex(`invalid argument "`+v+`" for --checks: not a whole number`, "--checks", v)
	}
	ex(`invalid argument "99999999999999999999" for --checks: out of range`, "--checks", "99999999999999999999")
	ex(`invalid argument "" for --checks: not a whole number`, "--checks", "")
	for _, v := range []string{"0", "-3", "17", "1000"} {
		ex("--max-faults must be between 1 and 16, got "+v, "--max-faults", v)
	}
	ex(`invalid argument "x" for --max-faults`, "--max-faults", "x")
	for _, v := range []string{"0", "-1", "1001"} {
		ex("--concurrent must be between 1 and 1000, got "+v, "--concurrent", v)
	}
	ex(`invalid argument "two" for --concurrent`, "--concurrent", "two")
	ex("--concurrent 2: fixture copperfin has 1 task(s)", "--concurrent", "2")
	ex("--concurrent 4: fixture copperfin-batch has 3 task(s)", "--concurrent", "4", "--fixture", "copperfin-batch")
	ex("--seed 0 is rapid's random seed", "--seed", "0")
	ex(`invalid argument "-1" for --seed: not a whole number of 0 or more`, "--seed", "-1")
	ex(`invalid argument "x" for --seed`, "--seed", "x")
	ex(`invalid argument "" for --seed`, "--seed", "")
	ex(`invalid argument "18446744073709551616" for --seed: out of range`, "--seed", "18446744073709551616")
	ex("--shard is empty", "--shard", "", "--seed", "1")
	for _, v := range []string{"0/2", "3/2", "-1/2"} {
		ex(`--shard: "`+v+`"`, "--shard", v, "--seed", "1")
	}
	for _, v := range []string{"a/b", "1", "1/2/3", " 1/2", "1/", "/2", "1/2 "} {
		ex(`--shard: "`+v+`" is not I/N`, "--shard", v, "--seed", "1")
	}
	ex(`--shard: "1/0"`, "--shard", "1/0", "--seed", "1")
	ex(`--shard: "1/10001"`, "--shard", "1/10001", "--seed", "1")
	ex("--shard needs --seed", "--shard", "1/2")
	ex("--shard 1/2: 2 shards of --checks 1 leave shard 1 without checks", "--shard", "1/2", "--seed", "1", "--checks", "1")
	ex("--guided does not apply to --shard", "--shard", "1/2", "--seed", "1", "--guided")
	ex("--kinds is empty", "--kinds", "")
	ex(`--kinds "," holds an empty element`, "--kinds", ",")
	ex(`--kinds "subject_swap,,rate_limit" holds an empty element`, "--kinds", "subject_swap,,rate_limit")
	ex(`--kinds "subject_swap," holds an empty element`, "--kinds", "subject_swap,")
	ex(`--kinds: unknown fault kind "gremlin"`, "--kinds", "gremlin")
	ex(`--kinds: unknown fault kind "Subject_Swap"`, "--kinds", "Subject_Swap")
	ex(`--kinds: unknown fault kind " subject_swap"`, "--kinds", " subject_swap")
	ex("--kinds: subject_swap is of domain identity, which --domains tool leaves out", "--kinds", "subject_swap", "--domains", "tool")
	ex(`WithKinds names the world event "clock_advance", which WithoutWorldEvents leaves out`, "--kinds", "clock_advance", "--no-world")
	ex("--domains is empty", "--domains", "")
	ex(`--domains "," holds an empty element`, "--domains", ",")
	ex(`--domains "tool,,state" holds an empty element`, "--domains", "tool,,state")
	ex(`--domains: unknown fault domain "network"`, "--domains", "network")
	ex(`--domains: unknown fault domain "Tool"`, "--domains", "Tool")
	ex("--fixture is empty", "--fixture", "")
	for _, v := range []string{"nope", "copperfin-fleet-0", "copperfin-fleet-1001", "copperfin-fleet--1", "copperfin-fleet-010", "COPPERFIN"} {
		ex(`--fixture: unknown fixture "`+v+`"`, "--fixture", v)
	}
	for _, v := range []string{"-1", "100000001"} {
		ex("--max-schedules must be between 0 and 100000000, got "+v, "--max-schedules", v)
	}
	ex(`invalid argument "lots" for --max-schedules`, "--max-schedules", "lots")
	ex("--max-schedules must be between 1 and 100000000, got 0", "--max-schedules", "0", "--exhaustive")
	ex("--max-switches needs --concurrent", "--exhaustive", "--max-faults", "1", "--max-switches", "2")
	ex("--max-switches needs --exhaustive", "--concurrent", "3", "--fixture", "copperfin-batch", "--max-switches", "2")
	ex("--max-switches must be between 0 and 4, got 5", "--concurrent", "3", "--fixture", "copperfin-batch", "--exhaustive", "--max-faults", "1", "--max-switches", "5")
	ex("--max-switches must be between 0 and 4, got -1", "--concurrent", "3", "--fixture", "copperfin-batch", "--exhaustive", "--max-faults", "1", "--max-switches", "-1")
	ex("--workers needs --exhaustive", "--workers", "2")
	ex("--workers must be between 1 and 256, got 0", "--exhaustive", "--workers", "0")
	ex("--workers must be between 1 and 256, got 257", "--exhaustive", "--workers", "257")
	ex("--own-events needs --exhaustive", "--own-events")
	ex("--guided does not apply to --exhaustive", "--exhaustive", "--guided")
	ex("--swarm does not apply to --exhaustive", "--exhaustive", "--swarm")
	ex("--coverage-in needs --guided", "--coverage-in", goodFile)
	ex("--coverage-in: stat "+missing+": no such file", "--guided", "--coverage-in", missing)
	ex("--coverage-in: ", "--guided", "--coverage-in", malformedCov)
	ex("--coverage-in is empty", "--guided", "--coverage-in", "")
	ex("--out is empty", "--out", "")
	ex("--otel is empty", "--otel", "")
	ex("--coverage is empty", "--coverage", "")
	ex("--out: "+plainFile+" is not a directory (a regular file)", "--out", plainFile, "--seed", "1")
	ex("--otel: "+plainFile+" is not a directory (a regular file)", "--otel", plainFile, "--seed", "1")
	ex("--out: /dev/null is not a directory (a device)", "--out", "/dev/null", "--seed", "1")
	ex("recording coverage into /dev/null (--coverage): not a regular file (a device)", "--coverage", "/dev/null", "--seed", "1")
	ex("recording coverage into "+dir+" (--coverage): not a regular file (a directory)", "--coverage", dir, "--seed", "1")
	ex("recording coverage into "+malformedCov+" (--coverage)", "--coverage", malformedCov, "--seed", "1")
	ex("recording coverage into "+emptyFile+" (--coverage)", "--coverage", emptyFile, "--seed", "1")
	ex(`unknown command "extra" for "faultline explore" (usage: faultline explore [flags])`, "extra")
	ex("--list-mutants lists the mutants and runs nothing: give it alone", "--list-mutants", "--checks", "3")
	ex("--list-mutants lists the mutants and runs nothing", "--list-mutants", "--profile", "baseline")
	ex(`invalid argument "sometimes" for --no-world`, "--no-world=sometimes")
	ex(`invalid argument "2" for --exhaustive`, "--exhaustive=2")

	// replay: arguments and files
	rp := func(want string, args ...string) { add(want, append([]string{"replay"}, args...)...) }
	rp("accepts 1 arg(s), received 0 (usage: faultline replay FILE [flags])")
	rp("accepts 1 arg(s), received 2", goodFile, goodFile)
	rp("no such file", missing)
	rp("is a directory", dir)
	rp("/dev/null", "/dev/null")
	rp("--otel is empty", goodFile, "--otel", "")
	rp("--otel: "+dir+" is not a regular file (a directory)", goodFile, "--otel", dir)
	rp("--otel: /dev/null is not a regular file (a device)", goodFile, "--otel", "/dev/null")
	rp("unknown flag: --system", goodFile, "--system", "copperfin")
	rp(`invalid argument "yes" for --twice`, goodFile, "--twice=yes")
	for _, f := range []struct{ name, content, want string }{
		{"empty", "", "empty"},
		{"truncated", `{"version":1,`, "truncated JSON"},
		{"null", "null", ""},
		{"array", "[]", ""},
		{"number", "1", ""},
		{"string", `"schedule"`, ""},
		{"trailing", good + "x", ""},
		{"two objects", good + good, ""},
		{"unknown kind", strings.Replace(good, "timeout_after_commit", "gremlin", 1), `unknown fault kind "gremlin"`},
		{"empty kind", strings.Replace(good, "timeout_after_commit", "", 1), "kind"},
		{"unknown event", strings.Replace(good, "tool.commit", "tool.comit", 1), `unknown event "tool.comit"`},
		{"empty event", strings.Replace(good, `"tool.commit"`, `""`, 1), "event"},
		{"unknown field", strings.Replace(good, `"seed"`, `"sed"`, 1), `unknown field "sed"`},
		{"unknown fault field", strings.Replace(good, `"ordinal":1`, `"ordinal":1,"severity":3`, 1), `unknown field "severity"`},
		{"unknown config field", strings.Replace(good, `"profile":"typed"`, `"profile":"typed","turbo":true`, 1), "turbo"},
		{"ordinal 0", strings.Replace(good, `"ordinal":1`, `"ordinal":0`, 1), "ordinal 0 must be 1 or more"},
		{"ordinal -1", strings.Replace(good, `"ordinal":1`, `"ordinal":-1`, 1), "ordinal"},
		{"ordinal huge", strings.Replace(good, `"ordinal":1`, `"ordinal":99999999999999999999`, 1), "ordinal"},
		{"ordinal 1.5", strings.Replace(good, `"ordinal":1`, `"ordinal":1.5`, 1), "ordinal"},
		{"ordinal string", strings.Replace(good, `"ordinal":1`, `"ordinal":"1"`, 1), "ordinal"},
		{"missing config", strings.Replace(good, `"config":{"profile":"typed"},`, "", 1), `missing "config"`},
		{"config null", strings.Replace(good, `{"profile":"typed"}`, `null`, 1), "config"},
		{"unknown profile", strings.Replace(good, `"typed"`, `"paranoid"`, 1), `unknown profile "paranoid"`},
		{"unknown control", strings.Replace(good, `"profile":"typed"`, `"controls":["magic"]`, 1), `unknown control "magic"`},
		{"unknown fixture", strings.Replace(good, `"profile":"typed"`, `"profile":"typed","fixture":"nowhere"`, 1), "nowhere"},
		{"unknown mutant", strings.Replace(good, `"profile":"typed"`, `"profile":"typed","mutant":"gremlin"`, 1), "gremlin"},
		{"version 2", strings.Replace(good, `"version":1`, `"version":2`, 1), "version"},
		{"version 0", strings.Replace(good, `"version":1`, `"version":0`, 1), "version"},
		{"version string", strings.Replace(good, `"version":1`, `"version":"1"`, 1), "version"},
		{"faults not a list", strings.Replace(good, `[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]`, `{}`, 1), "faults"},
		{"fault not an object", strings.Replace(good, `[{"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"}]`, `[1]`, 1), ""},
		{"tool on an event without one", strings.Replace(good, `"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"`, `"event":"proposal","ordinal":1,"kind":"subject_swap","tool":"search"`, 1), `event "proposal" has no tool`},
		{"kind at a foreign event", strings.Replace(good, `"event":"tool.commit","ordinal":1,"kind":"timeout_after_commit"`, `"event":"proposal","ordinal":1,"kind":"timeout_after_commit"`, 1), "timeout_after_commit"},
		{"negative deadline", strings.Replace(good, `"profile":"typed"`, `"profile":"typed","deadline_ms":-5`, 1), "deadline"},
		{"negative retry budget", strings.Replace(good, `"profile":"typed"`, `"profile":"typed","retry_budget":-1`, 1), "retry"},
		{"unknown join", strings.Replace(good, `"profile":"typed"`, `"profile":"typed","join":"sometimes"`, 1), "sometimes"},
		{"duplicate key", strings.Replace(good, `"seed":"s"`, `"seed":"s","seed":"t"`, 1), "seed"},
	} {
		rp(f.want, put("sched-"+strings.ReplaceAll(f.name, " ", "-")+".json", f.content))
	}

	// assay
	as := func(want string, args ...string) { add(want, append([]string{"assay"}, args...)...) }
	for _, v := range []string{"0", "-1", "100000001", "9223372036854775807"} {
		as("--trials must be between 1 and 100000000, got "+v, "--trials", v)
	}
	as(`invalid argument "many" for --trials: not a whole number`, "--trials", "many")
	as(`invalid argument "" for --trials`, "--trials", "")
	as(`invalid argument "9223372036854775808" for --trials: out of range`, "--trials", "9223372036854775808")
	as(`invalid argument "x" for --seed`, "--seed", "x")
	as(`invalid argument "1.5" for --seed`, "--seed", "1.5")
	as("--fault is empty", "--fault", "")
	as(`unknown fault domain "network"`, "--fault", "network")
	as(`unknown fault domain "tool,state"`, "--fault", "tool,state")
	as(`unknown fault domain "ALL"`, "--fault", "ALL")
	as("--mode is empty", "--mode", "")
	as(`--mode "," holds an empty element`, "--mode", ",")
	as(`--mode "subject_swap,,rate_limit" holds an empty element`, "--mode", "subject_swap,,rate_limit")
	as(`unknown fault kind "gremlin"`, "--mode", "gremlin", "--trials", "1")
	as(`fault kind "late_notice" is not in the catalogue the assay draws from`, "--mode", "late_notice", "--trials", "1")
	as(`fault kind "clock_advance" is not in the catalogue the assay draws from`, "--mode", "clock_advance", "--trials", "1")
	as(`fault kind "subject_swap" is in domain identity, which is not selected`, "--fault", "tool", "--mode", "subject_swap", "--trials", "1")
	as("--compat is empty", "--compat", "")
	as(`unknown compatibility target "paper1"`, "--compat", "paper1")
	as(`unknown compatibility target "PAPER188"`, "--compat", "PAPER188")
	as("--coverage is empty", "--coverage", "")
	as("recording coverage into /dev/null (--coverage): not a regular file (a device)", "--coverage", "/dev/null")
	as("recording coverage into "+dir+" (--coverage): not a regular file (a directory)", "--coverage", dir)
	as("recording coverage into "+malformedCov+" (--coverage)", "--coverage", malformedCov)
	as(`unknown command "extra" for "faultline assay" (usage: faultline assay [flags])`, "extra")
	as("unknown flag: --without", "--without", "idempotency")
	as("unknown flag: --mutant", "--mutant", "x")

	// audit
	au := func(want string, args ...string) { add(want, append([]string{"audit"}, args...)...) }
	au(`--format: unknown format "xml" (valid: text, json, markdown)`, "--format", "xml")
	au(`--format: unknown format "html" (valid: text, json, markdown)`, "--format", "html")
	au("--format is empty", "--format", "")
	au("--json is --format json: give one of them, not --json with --format markdown", "--json", "--format", "markdown")
	au("--full applies to --format text: json is always the whole report", "--full", "--format", "json")
	au("--full applies to --format text: markdown is always the whole report", "--full", "--format", "markdown")
	au("--full applies to --format text: json is always the whole report", "--full", "--json")
	au("--compat is empty", "--compat", "")
	au(`unknown compatibility target "paper"`, "--compat", "paper")
	au("--notices: the paper's ten modes (--compat) have no notices", "--notices", "--compat", "paper188")
	au("--coverage is empty", "--coverage", "")
	au("recording coverage into /dev/null (--coverage): not a regular file (a device)", "--coverage", "/dev/null")
	au("recording coverage into "+dir+" (--coverage): not a regular file (a directory)", "--coverage", dir)
	au("recording coverage into "+malformedCov+" (--coverage)", "--coverage", malformedCov)
	au("recording coverage into "+emptyFile+" (--coverage)", "--coverage", emptyFile)
	au(`unknown command "extra" for "faultline audit"`, "extra")
	au("unknown flag: --profile", "--profile", "typed")
	au(`invalid argument "x" for --full`, "--full=x")

	// dossier and dossier diff
	do := func(want string, args ...string) { add(want, append([]string{"dossier"}, args...)...) }
	do("--out DIR is required")
	do("--out is empty", "--out", "")
	do("--out: "+plainFile+" is not a directory (a regular file)", "--out", plainFile)
	do("--out: /dev/null is not a directory (a device)", "--out", "/dev/null")
	do("--profile is empty", "--out", outDir, "--profile", "")
	do(`--profile "," holds an empty element`, "--out", outDir, "--profile", ",")
	do(`--profile "typed,,baseline" holds an empty element`, "--out", outDir, "--profile", "typed,,baseline")
	do(`unknown profile "paranoid"`, "--out", outDir, "--profile", "paranoid")
	do(`--profile: "typed" given twice`, "--out", outDir, "--profile", "typed,typed")
	do("--compat is empty", "--out", outDir, "--compat", "")
	do(`unknown compatibility target "paper"`, "--out", outDir, "--compat", "paper")
	do(`unknown command "extra" for "faultline dossier"`, "extra")
	do("accepts 2 arg(s), received 0", "diff")
	do("accepts 2 arg(s), received 1", "diff", goodFile)
	do("accepts 2 arg(s), received 3", "diff", goodFile, goodFile, goodFile)
	do("no such file", "diff", missing, missing)
	do("", "diff", emptyFile, emptyFile)
	do("", "diff", goodFile, goodFile)

	// coverage report, merge, gate
	cv := func(want string, args ...string) { add(want, append([]string{"coverage"}, args...)...) }
	cv(`unknown command "nope" for "faultline coverage" (valid: gate, merge, report)`, "nope")
	cv("accepts 1 arg(s), received 0 (usage: faultline coverage report FILE [flags])", "report")
	cv("accepts 1 arg(s), received 2", "report", malformedCov, malformedCov)
	cv("no such file", "report", missing)
	cv("", "report", malformedCov)
	cv("", "report", emptyFile)
	cv("is a directory", "report", dir)
	cv("/dev/zero: is a device, not a regular file", "report", "/dev/zero")
	cv(`--format: unknown format "pdf" (valid: text, json, markdown, html)`, "report", missing, "--format", "pdf")
	cv("--format is empty", "report", missing, "--format", "")
	cv("--json is --format json: give one of them, not --json with --format html", "report", missing, "--json", "--format", "html")
	cv("--schedules is empty", "report", missing, "--schedules", "")
	cv("requires at least 2 arg(s), only received 0", "merge")
	cv("requires at least 2 arg(s), only received 1", "merge", filepath.Join(dir, "merged.json"))
	cv("no such file", "merge", filepath.Join(dir, "merged.json"), missing)
	cv("", "merge", filepath.Join(dir, "merged.json"), malformedCov)
	cv("", "merge", filepath.Join(dir, "merged.json"), emptyFile)
	cv("locking /dev/null: not a regular file (a device)", "merge", "/dev/null", malformedCov)
	cv("give --min-ratio R, --require KEYS_FILE, or both", "gate", malformedCov)
	cv("accepts 1 arg(s), received 0", "gate", "--min-ratio", "1")
	for _, v := range []string{"x", "-0.1", "1.1", "NaN", "Inf", "-Inf", "1e400", "0x1p-2", "50%"} {
		cv(`--min-ratio: "`+v+`" is not a number in [0,1]`, "gate", malformedCov, "--min-ratio", v)
	}
	cv("--min-ratio is empty", "gate", malformedCov, "--min-ratio", "")
	cv("--require is empty", "gate", malformedCov, "--require", "")
	cv("no such file", "gate", malformedCov, "--require", missing)
	cv("/dev/zero: is a device, not a regular file", "gate", malformedCov, "--require", "/dev/zero")
	cv("", "gate", malformedCov, "--require", keysMalformed)
	cv("no such file", "gate", missing, "--min-ratio", "0.5")
	cv("", "gate", malformedCov, "--min-ratio", "0.5")

	// vet, version, help, lab and the root
	add("vet needs at least one package pattern (try ./...)", "vet")
	add(`--format: unknown format "sarif" (valid: text, json)`, "vet", "--format", "sarif", "./...")
	add(`invalid argument "maybe" for --json`, "vet", "--json=maybe", "./...")
	add("--json is --format json: give one of them, not --json with --format text", "vet", "--json", "--format", "text", "./...")
	add(`invalid argument "perhaps" for --no-tests`, "vet", "--no-tests=perhaps", "./...")
	add("vet: every analyzer is left out (--ANALYZER=false): leave one on", "vet", "--retrykey=false", "--unknownoutcome=false", "--wallclock=false", "./...")
	add(`invalid argument "off" for --retrykey`, "vet", "--retrykey=off", "./...")
	add(`unknown command "extra" for "faultline version" (usage: faultline version [flags])`, "version", "extra")
	add("unknown flag: --short", "version", "--short")
	add(`--format: unknown format "xml" (valid: text, json)`, "version", "--format", "xml")
	add(`--format: unknown format "xml" (valid: text, json)`, "--version", "--format", "xml")
	add("--json is --format json: give one of them, not --json with --format text", "--version", "--json", "--format", "text")
	add(`help: unknown command "nope"`, "help", "nope")
	add(`help: unknown command "coverage nope"`, "help", "coverage", "nope")
	add(`unknown command "frobnicate" for "faultline"`, "frobnicate")
	add("unknown flag: --bogus", "--bogus")
	add(`unknown command "nope" for "faultline completion"`, "completion", "nope")
	add("faultline completion needs a shell: one of bash, fish, powershell, zsh", "completion")
	add(`unknown command "extra" for "faultline completion bash"`, "completion", "bash", "extra")
	add("unknown flag: --shell", "completion", "--shell", "bash")
	add("--addr is empty", "lab", "--addr", "")
	add(`--addr "nonsense": address nonsense: missing port in address`, "lab", "--addr", "nonsense")
	add(`--addr "0.0.0.0:1" is not a loopback address`, "lab", "--addr", "0.0.0.0:1")
	add(`--addr "192.168.1.1:8188" is not a loopback address`, "lab", "--addr", "192.168.1.1:8188")
	add(`unknown command "extra" for "faultline lab"`, "lab", "extra")
	return cs
}
