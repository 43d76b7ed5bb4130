package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/internal/strictjson"
	"github.com/faultline/faultline/model"
)

// CounterexampleVersion is the version of the counterexample file format
// this package writes (the value of its "counterexample" field). It reads
// version 1 too, and an exploration's record of before (ReadCounterexample).
const CounterexampleVersion = 2

// Kind says what a counterexample shows.
type Kind string

// Counterexample kinds.
const (
	// KindViolation: the schedule makes the system under test violate an
	// invariant; Expect records the run as the oracle judged it. The
	// regression test asserts that the replay still matches Expect.
	KindViolation Kind = "invariant_violation"
	// KindNondeterminism: two replays of the schedule gave different
	// normalised timelines (a defect of the harness or the system, seed
	// 003: "Run the same schedule twice and compare the normalized
	// timeline"). The regression test asserts that replays now agree.
	KindNondeterminism Kind = "nondeterminism"
	// KindScheduleDecode: the strict schedule decoder panicked on Input, or
	// accepted it and did not round-trip through the canonical encoding.
	// The regression test asserts that Input now either is rejected or
	// round-trips.
	KindScheduleDecode Kind = "schedule_decode"
)

// Counterexample is one minimised counterexample, as a file people read and
// replay (`faultline replay FILE` accepts it); docs/formats.md describes the
// file. Schedule is required for the violation and nondeterminism kinds,
// Input for schedule_decode; Expect for, and only with, the violation kind.
// Timeline is the recorded run, kept for people to read: the regression
// test asserts Expect, not the timeline. ScheduleFile, Interleaving and
// ContextSwitches are version 2's (an exploration's files).
type Counterexample struct {
	Version int     `json:"counterexample"`
	Kind    Kind    `json:"kind"`
	Note    string  `json:"note,omitempty"`
	FoundBy FoundBy `json:"found_by"`
	Replay  string  `json:"replay"`
	// ScheduleFile names the schedule file written beside this one (an
	// exploration's NAME.json beside NAME.counterexample.json), if any.
	ScheduleFile string          `json:"schedule_file,omitempty"`
	Schedule     *model.Schedule `json:"schedule,omitempty"`
	// Input is the raw input of a schedule_decode counterexample as a Go
	// string literal (strconv.Quote), so that any bytes, valid UTF-8 or
	// not, survive exactly (strconv.Unquote gives the bytes back).
	Input  string  `json:"input,omitempty"`
	Expect *Expect `json:"expect,omitempty"`
	// Interleaving and ContextSwitches are a concurrent run's picks and
	// context switches (model.Result's), kept for people: the schedule's
	// config holds the interleaving that replays it.
	Interleaving    []int `json:"interleaving,omitempty"`
	ContextSwitches int   `json:"context_switches,omitempty"`
	// Jitter is, for production code whose confirming rerun crossed the
	// same events to the same verdict at other logical times, the note
	// "logical times vary between runs (global randomness, e.g. a
	// jittered back-off): up to N ms" (optional, version 2's).
	Jitter   string        `json:"jitter,omitempty"`
	Timeline []model.Event `json:"timeline,omitempty"`
}

// FoundBy records how a counterexample was found.
type FoundBy struct {
	// Target is the fuzz target or property that found it ("properties"
	// for the exploration's, "fuzz" for a fuzz failure's fail-folder file).
	Target string `json:"target"`
	// System is the system under test: its Definition's name, or a
	// mutant's name; "" only for an exploration ("properties") of a
	// run without a Definition.
	System string `json:"system"`
	// Scope is the decoder scope the target ran with, if any.
	Scope string `json:"scope,omitempty"`
	// Input is the native fuzz input as the fuzzer wrote it
	// ("go test fuzz v1" and one Go literal a line), if any.
	Input string `json:"input,omitempty"`
	// RapidSeed and ChecksToFailure are rapid's seed and the 1-based
	// number of the first failing check, for an exploration's
	// counterexample (0 when unknown).
	RapidSeed       uint64 `json:"rapid_seed,omitempty"`
	ChecksToFailure int    `json:"checks_to_failure,omitempty"`
	// Shrunk is an exploration's schedule as rapid's shrinking left it,
	// before the fault-aware reduction (version 2), if kept.
	Shrunk *model.Schedule `json:"rapid_shrunk_schedule,omitempty"`
}

// Expect is the run a violation counterexample is expected to produce.
type Expect struct {
	// RunVerdict and ClaimVerdict are the run's verdicts; both are empty
	// when FirstOnly is set, and both are required otherwise.
	RunVerdict   model.RunVerdict   `json:"run_verdict,omitempty"`
	ClaimVerdict model.ClaimVerdict `json:"claim_verdict,omitempty"`
	// Violated lists every violated invariant, in model.Invariants order;
	// with FirstOnly, exactly one: the first to become false.
	Violated []Violation `json:"violated"`
	// FirstOnly marks an expectation that records only the first
	// violated invariant and no verdicts, as an exploration's
	// counterexample does (and its record of before): Check then asserts
	// that invariant, its first failing event and its fault, and nothing
	// else.
	FirstOnly bool `json:"first_only,omitempty"`
}

// Violation is one violated invariant (model's one violation record).
type Violation = model.Violation

// ExpectOf returns what res shows: its verdicts and violated invariants.
func ExpectOf(res *model.Result) *Expect {
	e := &Expect{RunVerdict: res.RunVerdict, ClaimVerdict: res.Verdict, Violated: []Violation{}}
	for _, i := range res.Invariants {
		if !i.Held {
			e.Violated = append(e.Violated, i.Violation)
		}
	}
	return e
}

// NewViolation returns the violation counterexample of a run: its
// schedule, expectation and normalised timeline, with the fixture's
// identifiers redacted in the details and tasks as the run record
// (model.RunRecord) has them. found says how it was found; replay is the
// command that replays the file.
func NewViolation(res *model.Result, found FoundBy, note, replay string) *Counterexample {
	rec := res.Record()
	e := ExpectOf(res)
	for i := range e.Violated {
		for _, v := range rec.Violations {
			if v.Invariant == e.Violated[i].Invariant {
				e.Violated[i].Detail = v.Detail
			}
		}
	}
	return &Counterexample{Version: CounterexampleVersion, Kind: KindViolation, Note: note, FoundBy: found,
		Replay: replay, Schedule: res.Schedule, Expect: e, Timeline: model.Normalize(rec.Timeline)}
}

// Check compares a replay's result with Expect and returns an error that
// names every difference (run verdict, claim verdict, and each invariant
// whose violation, first failing event or fault differs), or nil when they
// agree. The first seq and the detail are recorded for people and not
// compared. With Expect.FirstOnly only the recorded invariant is
// compared: it must still be violated, after the same event, reached by
// the same fault. It is an error to call Check on a counterexample
// without Expect.
func (c *Counterexample) Check(res *model.Result) error {
	if c.Expect == nil {
		return fmt.Errorf("counterexample of kind %s records no expected run", c.Kind)
	}
	got := ExpectOf(res)
	var diffs []string
	if got.RunVerdict != c.Expect.RunVerdict && !c.Expect.FirstOnly {
		diffs = append(diffs, fmt.Sprintf("run verdict %s, recorded %s", got.RunVerdict, c.Expect.RunVerdict))
	}
	if got.ClaimVerdict != c.Expect.ClaimVerdict && !c.Expect.FirstOnly {
		diffs = append(diffs, fmt.Sprintf("claim verdict %s, recorded %s", got.ClaimVerdict, c.Expect.ClaimVerdict))
	}
	key := func(v Violation) string {
		return fmt.Sprintf("%s after %s (fault %q)", v.Invariant, v.Event, v.FaultID)
	}
	var want, have []string
	for _, v := range c.Expect.Violated {
		want = append(want, key(v))
	}
	for _, v := range got.Violated {
		have = append(have, key(v))
	}
	for _, w := range want {
		if !slices.Contains(have, w) {
			diffs = append(diffs, "recorded violation no longer seen: "+w)
		}
	}
	for _, h := range have {
		if !slices.Contains(want, h) && !c.Expect.FirstOnly {
			diffs = append(diffs, "violation not recorded: "+h)
		}
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, "; "))
	}
	return nil
}

// rawInput returns the bytes Input quotes, or an error when Input is not a
// Go string literal.
func (c *Counterexample) rawInput() ([]byte, error) {
	s, err := strconv.Unquote(c.Input)
	if err != nil {
		return nil, fmt.Errorf(`counterexample: "input" must be a Go string literal (strconv.Quote): %w`, err)
	}
	return []byte(s), nil
}

// IsCounterexample reports whether data is a counterexample rather than a
// schedule file: a counterexample file (a JSON object with a
// "counterexample" field, any version) or an exploration's record of
// before, which ReadCounterexample reads. It does not validate the rest.
func IsCounterexample(data []byte) bool {
	t := topLevel(data)
	return t == "counterexample" || t == "record"
}

// maxEntries is the most entries a counterexample file or record may hold
// in each list: timeline events and violated invariants (its schedule's
// faults are bounded by model.MaxFaults).
const maxEntries = 10000

// ParseCounterexample decodes a counterexample file strictly (package
// strictjson: one JSON object, keys exactly as documented and each once):
// unknown, misspelt or repeated fields, more than maxEntries entries in a
// list, a missing or unsupported version, an unknown kind, a schedule
// that model.ParseSchedule rejects, and fields missing for (or not allowed
// with) the kind are errors that name the problem.
func ParseCounterexample(data []byte) (*Counterexample, error) {
	var raw struct {
		Version      *int            `json:"counterexample"`
		Kind         Kind            `json:"kind"`
		Note         string          `json:"note"`
		FoundBy      *rawFoundBy     `json:"found_by"`
		Replay       string          `json:"replay"`
		ScheduleFile string          `json:"schedule_file"`
		Schedule     json.RawMessage `json:"schedule"`
		Input        string          `json:"input"`
		Expect       *Expect         `json:"expect"`
		Interleaving []int           `json:"interleaving"`
		Switches     int             `json:"context_switches"`
		Jitter       string          `json:"jitter"`
		Timeline     []model.Event   `json:"timeline"`
	}
	if err := strictjson.Decode(data, &raw); err != nil {
		return nil, fmt.Errorf("counterexample: %w", err)
	}
	if raw.Version == nil {
		return nil, fmt.Errorf(`counterexample: missing "counterexample" (the format version, want %d)`, CounterexampleVersion)
	}
	if *raw.Version != 1 && *raw.Version != CounterexampleVersion {
		return nil, fmt.Errorf("counterexample: unsupported version %d (want 1 or %d)", *raw.Version, CounterexampleVersion)
	}
	// an exploration's counterexample names no system when its run had
	// no Definition's name (as a record of before may not)
	if raw.FoundBy == nil || raw.FoundBy.Target == "" || (raw.FoundBy.System == "" && raw.FoundBy.Target != "properties") {
		return nil, errors.New(`counterexample: "found_by" needs "target" and "system"`)
	}
	if *raw.Version == 1 && (raw.ScheduleFile != "" || len(raw.Interleaving) > 0 || raw.Switches != 0 || raw.Jitter != "" || len(raw.FoundBy.Shrunk) > 0) {
		return nil, errors.New(`counterexample: version 1 takes no "schedule_file", "interleaving", "context_switches", "jitter" or "found_by.rapid_shrunk_schedule" (version 2's)`)
	}
	if len(raw.Interleaving) > maxEntries {
		return nil, fmt.Errorf(`counterexample: "interleaving" has %d picks, more than the limit of %d`, len(raw.Interleaving), maxEntries)
	}
	if len(raw.Timeline) > maxEntries {
		return nil, fmt.Errorf(`counterexample: "timeline" has %d events, more than the limit of %d`, len(raw.Timeline), maxEntries)
	}
	if raw.Expect != nil && len(raw.Expect.Violated) > maxEntries {
		return nil, fmt.Errorf(`counterexample: "expect.violated" has %d entries, more than the limit of %d`, len(raw.Expect.Violated), maxEntries)
	}
	// every version decodes to the current one: Format writes only it
	c := &Counterexample{Version: CounterexampleVersion, Kind: raw.Kind, Note: raw.Note, FoundBy: raw.FoundBy.FoundBy,
		Replay: raw.Replay, ScheduleFile: raw.ScheduleFile, Input: raw.Input, Expect: raw.Expect,
		Interleaving: raw.Interleaving, ContextSwitches: raw.Switches, Jitter: raw.Jitter, Timeline: raw.Timeline}
	var err error
	if c.Schedule, err = parseOptional(raw.Schedule, ""); err != nil {
		return nil, err
	}
	if c.FoundBy.Shrunk, err = parseOptional(raw.FoundBy.Shrunk, "found_by.rapid_shrunk_schedule: "); err != nil {
		return nil, err
	}
	switch c.Kind {
	case KindViolation, KindNondeterminism:
		if c.Schedule == nil {
			return nil, fmt.Errorf(`counterexample: kind %s needs "schedule"`, c.Kind)
		}
		if c.Input != "" {
			return nil, fmt.Errorf(`counterexample: kind %s takes no "input"`, c.Kind)
		}
		if (c.Kind == KindViolation) != (c.Expect != nil) {
			if c.Expect == nil {
				return nil, errors.New(`counterexample: kind invariant_violation needs "expect"`)
			}
			return nil, fmt.Errorf(`counterexample: kind %s takes no "expect"`, c.Kind)
		}
	case KindScheduleDecode:
		if c.Schedule != nil || c.Expect != nil {
			return nil, errors.New(`counterexample: kind schedule_decode takes "input", not "schedule" or "expect"`)
		}
		if _, err := c.rawInput(); err != nil {
			return nil, err
		}
	case "":
		return nil, errors.New(`counterexample: missing "kind"`)
	default:
		return nil, fmt.Errorf("counterexample: unknown kind %q (valid: %s, %s, %s)", c.Kind, KindViolation, KindNondeterminism, KindScheduleDecode)
	}
	if c.Expect != nil {
		if c.Expect.Violated == nil {
			return nil, errors.New(`counterexample: "expect" needs "violated" (an empty list is allowed)`)
		}
		if c.Expect.FirstOnly {
			if c.Expect.RunVerdict != "" || c.Expect.ClaimVerdict != "" || len(c.Expect.Violated) != 1 {
				return nil, errors.New(`counterexample: an "expect" with "first_only" has one entry in "violated" and no verdicts`)
			}
		} else if c.Expect.RunVerdict == "" || c.Expect.ClaimVerdict == "" {
			return nil, errors.New(`counterexample: "expect" needs "run_verdict" and "claim_verdict" (or "first_only")`)
		}
		for i, v := range c.Expect.Violated {
			if v.Invariant == "" || v.Event == "" {
				return nil, fmt.Errorf(`counterexample: expect.violated[%d] needs "invariant" and "event"`, i)
			}
		}
	}
	return c, nil
}

// rawFoundBy is FoundBy as decoded: its shrunk schedule strictly, by
// model.ParseSchedule.
type rawFoundBy struct {
	FoundBy
	Shrunk json.RawMessage `json:"rapid_shrunk_schedule"`
}

// parseOptional decodes a schedule field, nil when absent or null; its
// errors say where (prefix).
func parseOptional(raw json.RawMessage, where string) (*model.Schedule, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	s, err := model.ParseSchedule(raw)
	if err != nil {
		return nil, fmt.Errorf("counterexample: %s%w", where, err)
	}
	return s, nil
}

// Format returns the canonical encoding of c in the current version
// (CounterexampleVersion, whatever c.Version says): two-space indented
// JSON with a trailing newline. ParseCounterexample(Format(c)) equals c
// for every valid c of the current version.
func Format(c *Counterexample) []byte {
	now := *c
	now.Version = CounterexampleVersion
	b, err := json.MarshalIndent(&now, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("corpus: formatting a counterexample: %v", err)) // only plain data: cannot fail
	}
	return append(b, '\n')
}
