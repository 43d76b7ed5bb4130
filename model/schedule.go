package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/faultline/faultline/internal/strictjson"
)

// ScheduleVersion is the version of the schedule file format this package
// reads and writes.
const ScheduleVersion = 1

// Schedule is a deterministic fault schedule in the harness practice's shape: faults are
// attached to events by ordinal, never to wall-clock time. Its canonical
// text form is produced by Format and read by ParseSchedule:
//
//	{
//	  "version": 1,
//	  "seed": "harness-fixture-07",
//	  "config": {"profile": "typed"},
//	  "faults": [{"event": "tool.commit", "ordinal": 1, "kind": "timeout_after_commit"}]
//	}
type Schedule struct {
	Version int          `json:"version"`
	Seed    string       `json:"seed"`
	Config  Config       `json:"config"`
	Faults  []FaultEntry `json:"faults"`
}

// FaultEntry attaches one fault kind to the Ordinal-th occurrence (1-based)
// of Event. ID is optional; the harness names unnamed faults f1, f2, ... in
// schedule order.
type FaultEntry struct {
	ID      string    `json:"id,omitempty"`
	Event   EventName `json:"event"`
	Ordinal int       `json:"ordinal"`
	Kind    string    `json:"kind"`
	// Target narrows the disturbance: the memory key a memory_loss clears
	// (default: every key), or the branch a branch_failure fails (default:
	// whichever branch runs at the ordinal).
	Target string `json:"target,omitempty"`
	// Tool, when set, aims the fault at one tool: Ordinal then counts only
	// the crossings of Event whose tool is Tool (ToolCall.Tool of a
	// tool.commit), so {"event": "tool.commit", "ordinal": 1, "tool":
	// "charge"} is the first call of the charge tool however many calls of
	// other tools come before it. Only tool.commit has a tool (a branch is
	// named by Target, not Tool); "" (the field absent) counts every
	// crossing of Event. Written only when set; version 1 files may carry
	// it.
	Tool string `json:"tool,omitempty"`
}

// EventHasTool reports whether crossings of e carry a tool name a fault
// entry's Tool can select: true only for tool.commit.
func EventHasTool(e EventName) bool { return e == EvToolCommit }

// Placement is how errors, reports and records name where f is attached:
// "event#ordinal", or "event(tool)#ordinal" when Tool is set (the ordinal
// then counts that tool's crossings), e.g. "tool.commit(charge)#1".
func (f FaultEntry) Placement() string {
	return placement(f.Event, f.Tool, f.Ordinal)
}

func placement(ev EventName, tool string, ordinal int) string {
	if tool == "" {
		return string(ev) + "#" + strconv.Itoa(ordinal)
	}
	return string(ev) + "(" + tool + ")#" + strconv.Itoa(ordinal)
}

// checkToolFields returns an error naming the first fault of a schedule
// file whose "tool" is present but empty or null: Validate cannot tell an
// empty Tool from an absent one. Files that never mention "tool" are not
// decoded again.
func checkToolFields(data []byte) error {
	if !bytes.Contains(data, []byte(`"tool"`)) {
		return nil
	}
	var raw struct {
		Faults []struct {
			Tool json.RawMessage `json:"tool"`
		} `json:"faults"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil // the strict decoder has already accepted data; nothing more to say
	}
	for i, f := range raw.Faults {
		if f.Tool == nil {
			continue
		}
		if t := strings.TrimSpace(string(f.Tool)); t == `""` || t == "null" {
			return fmt.Errorf(`%s: "tool" is empty: name the tool whose calls the ordinal counts, or leave the field out to count every call`, faultWhere(i))
		}
	}
	return nil
}

// Config is the configuration of the system under test a schedule runs
// against: a named profile, or an explicit control set (exactly one).
type Config struct {
	Profile  Profile
	Controls Controls
	// HasControls is true when the config names controls rather than a
	// profile.
	HasControls bool
	// Mutant names a seeded defect of the system under test ("" for
	// none); the system's factory validates the name.
	Mutant string
	// RetryBudget (attempts after the first), Deadline (logical ms) and
	// Join override the harness's Options for every task when set.
	RetryBudget *int
	Deadline    *Millis
	Join        JoinPolicy
	// Fixture names the workload the schedule runs on ("" for the
	// harness's own; see FixtureNamed for the built-in ones). A harness
	// over another fixture refuses the schedule.
	Fixture string
}

// ConfigOfProfile returns a Config naming profile p.
func ConfigOfProfile(p Profile) Config { return Config{Profile: p} }

// ConfigOfControls returns a Config with an explicit control set.
func ConfigOfControls(cs Controls) Config { return Config{Controls: cs, HasControls: true} }

// Resolve returns the control set the config selects, or an error naming
// an unknown profile.
func (c Config) Resolve() (Controls, error) {
	if c.HasControls {
		return c.Controls, nil
	}
	return ProfileControls(c.Profile)
}

// String is "profile NAME" or "controls a,b,c", followed by the mutant
// and any budget or join override that is set.
func (c Config) String() string {
	s := "profile " + string(c.Profile)
	if c.HasControls {
		s = "controls " + c.Controls.String()
	}
	if c.Mutant != "" {
		s += ", mutant " + c.Mutant
	}
	if c.RetryBudget != nil {
		s += ", retry_budget " + strconv.Itoa(*c.RetryBudget)
	}
	if c.Deadline != nil {
		s += ", deadline_ms " + strconv.FormatInt(int64(*c.Deadline), 10)
	}
	if c.Join != "" {
		s += ", join " + string(c.Join)
	}
	return s
}

type configJSON struct {
	Profile     *string   `json:"profile,omitempty"`
	Controls    *[]string `json:"controls,omitempty"`
	Mutant      string    `json:"mutant,omitempty"`
	RetryBudget *int      `json:"retry_budget,omitempty"`
	DeadlineMs  *Millis   `json:"deadline_ms,omitempty"`
	Join        string    `json:"join,omitempty"`
	Fixture     string    `json:"fixture,omitempty"`
}

// MarshalJSON writes {"profile": P} or {"controls": [...]} with controls in
// canonical order.
func (c Config) MarshalJSON() ([]byte, error) {
	j := configJSON{Mutant: c.Mutant, RetryBudget: c.RetryBudget, DeadlineMs: c.Deadline, Join: string(c.Join), Fixture: c.Fixture}
	if c.HasControls {
		l := []string{}
		for _, x := range c.Controls.List() {
			l = append(l, string(x))
		}
		j.Controls = &l
	} else {
		p := string(c.Profile)
		j.Profile = &p
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a config strictly: unknown fields, unknown profiles
// or controls, and configs naming both or neither are errors.
func (c *Config) UnmarshalJSON(b []byte) error {
	var j configJSON
	if err := strictjson.Decode(b, &j); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	switch {
	case j.Profile != nil && j.Controls != nil:
		return errors.New(`config: give "profile" or "controls", not both`)
	case j.Profile != nil:
		if _, err := ProfileControls(Profile(*j.Profile)); err != nil {
			return fmt.Errorf("config: %w", err)
		}
		*c = Config{Profile: Profile(*j.Profile)}
	case j.Controls != nil:
		cs, err := ParseControls(*j.Controls)
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		*c = Config{Controls: cs, HasControls: true}
	default:
		return errors.New(`config: needs "profile" or "controls"`)
	}
	c.Mutant, c.RetryBudget, c.Deadline, c.Join, c.Fixture = j.Mutant, j.RetryBudget, j.DeadlineMs, JoinPolicy(j.Join), j.Fixture
	return c.validateExtras()
}

func (c Config) validateExtras() error {
	if c.RetryBudget != nil && (*c.RetryBudget < 0 || *c.RetryBudget > 100) {
		return fmt.Errorf("config: retry_budget %d must be between 0 and 100", *c.RetryBudget)
	}
	if c.Deadline != nil && *c.Deadline <= 0 {
		return fmt.Errorf("config: deadline_ms %d must be positive", *c.Deadline)
	}
	if c.Join != "" {
		ok := false
		for _, p := range JoinPolicies {
			ok = ok || p == c.Join
		}
		if !ok {
			return fmt.Errorf("config: unknown join policy %q (valid: all_required, best_effort, compensate)", c.Join)
		}
	}
	return nil
}

// MaxFaults is the most fault entries (world events included) a schedule
// may hold.
const MaxFaults = 10000

// ParseSchedule decodes a schedule file strictly (package strictjson: one
// JSON object, keys exactly as documented and each once). It returns an
// error that names the problem for an empty file, a byte-order mark, a top
// level that is not an object, malformed JSON, an unknown, misspelt or
// repeated field, a missing field, a wrong version, a missing config, more
// than MaxFaults faults, an unknown event or kind, a kind that cannot be
// injected at its event, a non-positive ordinal, an empty "tool" or one on
// an event with no tool, a repeated fault id, or trailing data.
func ParseSchedule(data []byte) (*Schedule, error) {
	var raw struct {
		Version *int            `json:"version"`
		Seed    string          `json:"seed"`
		Config  json.RawMessage `json:"config"`
		Faults  *[]FaultEntry   `json:"faults"`
	}
	if err := strictjson.Decode(data, &raw); err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	if raw.Version == nil {
		return nil, errors.New(`schedule: missing "version" (want 1)`)
	}
	if *raw.Version != ScheduleVersion {
		return nil, fmt.Errorf("schedule: unsupported version %d (want %d)", *raw.Version, ScheduleVersion)
	}
	if len(raw.Config) == 0 || string(raw.Config) == "null" {
		return nil, errors.New(`schedule: missing "config" (give {"profile": NAME} or {"controls": [...]})`)
	}
	s := &Schedule{Version: *raw.Version, Seed: raw.Seed, Faults: []FaultEntry{}}
	if err := json.Unmarshal(raw.Config, &s.Config); err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	if raw.Faults == nil {
		return nil, errors.New(`schedule: missing "faults" (an empty list is allowed)`)
	}
	if len(*raw.Faults) > MaxFaults {
		return nil, fmt.Errorf("schedule: %d faults, more than the limit of %d", len(*raw.Faults), MaxFaults)
	}
	s.Faults = append(s.Faults, (*raw.Faults)...)
	if err := checkToolFields(data); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Validate checks every fault entry and returns an error naming the first
// bad one (by index and field).
func (s *Schedule) Validate() error {
	if _, err := s.Config.Resolve(); err != nil {
		return fmt.Errorf("schedule: config: %w", err)
	}
	if err := s.Config.validateExtras(); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	var ids map[string]bool
	for i, f := range s.Faults {
		where := faultWhere(i)
		if f.Event == "" {
			return fmt.Errorf(`%s: missing "event"`, where)
		}
		if eventIndex(f.Event) < 0 {
			names := make([]string, len(AllEvents))
			for j, e := range AllEvents {
				names[j] = string(e)
			}
			return fmt.Errorf("%s: unknown event %q (valid: %s)", where, f.Event, strings.Join(names, ", "))
		}
		if f.Ordinal <= 0 {
			return fmt.Errorf("%s: ordinal %d must be 1 or more", where, f.Ordinal)
		}
		if f.Kind == "" {
			return fmt.Errorf(`%s: missing "kind"`, where)
		}
		k, err := lookupKind(f.Kind)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if !hookFits(k.impl, f.Event) {
			return fmt.Errorf("%s: kind %q cannot be injected at event %q (it is injected at %q)", where, f.Kind, f.Event, k.spec.Event)
		}
		if f.Tool != "" && !EventHasTool(f.Event) {
			return fmt.Errorf(`%s: "tool" %q is set, but event %q has no tool (only %q does)`, where, f.Tool, f.Event, EvToolCommit)
		}
		if tc, ok := k.impl.(targetChecker); ok {
			if err := tc.checkTarget(f.Target); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
		if len(s.Faults) > 1 {
			if ids == nil {
				ids = map[string]bool{}
			}
			id := s.faultID(i)
			if ids[id] {
				return fmt.Errorf("%s: fault id %q is used twice", where, id)
			}
			ids[id] = true
		}
	}
	return nil
}

// faultWhere names fault i in errors.
type faultWhere int

func (i faultWhere) String() string { return "schedule: faults[" + strconv.Itoa(int(i)) + "]" }

// faultID returns the id of fault i: its own, or f<i+1>.
func (s *Schedule) faultID(i int) string {
	if s.Faults[i].ID != "" {
		return s.Faults[i].ID
	}
	if i < len(defaultFaultIDs) {
		return defaultFaultIDs[i]
	}
	return "f" + strconv.Itoa(i+1)
}

// defaultFaultIDs are the ids of the first unnamed faults, precomputed.
var defaultFaultIDs = [...]string{"f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15", "f16"}

// Format returns the canonical encoding of s: indented JSON with a trailing
// newline. ParseSchedule(Format(s)) equals s for every valid s.
func Format(s *Schedule) []byte {
	c := *s
	if c.Faults == nil {
		c.Faults = []FaultEntry{}
	}
	b, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("model: formatting a schedule: %v", err)) // only plain data: cannot fail
	}
	return append(b, '\n')
}

// SingleFault returns the schedule that injects kind once at its own event
// and default ordinal (FaultSpec.Ordinal) under cfg.
func SingleFault(kind string, cfg Config) (*Schedule, error) {
	k, err := lookupKind(kind)
	if err != nil {
		return nil, err
	}
	return &Schedule{Version: ScheduleVersion, Seed: kind, Config: cfg,
		Faults: []FaultEntry{{Event: k.spec.Event, Ordinal: k.spec.Ordinal, Kind: kind}}}, nil
}
