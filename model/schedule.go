package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/internal/strictjson"
)

// ScheduleVersion is the version of the schedule file format this package
// writes. Version 2 splits the config into the harness's part and the
// system's own; ParseSchedule still reads version 1 (see Config).
const ScheduleVersion = 2

// Schedule is a deterministic fault schedule in the harness practice's shape: faults are
// attached to events by ordinal, never to wall-clock time. Its canonical
// text form is produced by Format and read by ParseSchedule:
//
//	{
//	  "version": 2,
//	  "seed": "harness-fixture-07",
//	  "config": {"harness": {"retry_budget": 1}, "system": {"profile": "typed"}},
//	  "faults": [{"event": "tool.commit", "ordinal": 1, "kind": "timeout_after_commit"}]
//	}
type Schedule struct {
	Version int          `json:"version"`
	Seed    string       `json:"seed"`
	Config  Config       `json:"config"`
	Faults  []FaultEntry `json:"faults"`
	// ExpectTerminal, when set, is the terminal state each task of the
	// fixture is expected to end in, in task order ("completed",
	// "failed", "timed_out"); a run that ends otherwise is
	// inconclusive, naming the task (Result.Unexpected). A schedule with
	// it is version 3 (scheduleVersionTerminal); nil in every older file.
	ExpectTerminal []string `json:"expect_terminal,omitempty"`
}

// scheduleVersionTerminal is the version of a schedule file that declares
// its expected terminal states (Schedule.ExpectTerminal); a schedule
// without them is written as ScheduleVersion, as before.
const scheduleVersionTerminal = 3

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
	// Correlation, when set, replaces the kind's own correlation
	// (FaultSpec.Correlation) by one the kind accepts
	// (FaultSpec.Correlations), and so what the fault hits after its
	// ordinal (see Correlated). "" (the field absent, as in every older
	// file) keeps the kind's own. Written only when set.
	Correlation Correlation `json:"correlation,omitempty"`
	// Repeat is how many crossings a repeated fault hits: the Ordinal-th
	// and the Repeat-1 after it, 2 to maxRepeat. Only with correlation
	// repeated, and required there.
	Repeat int `json:"repeat,omitempty"`
	// Until ends a persistent fault: it hits every crossing of Event from
	// its first firing until the first crossing of Until after it; ""
	// hits them to the end of the run. Only with correlation persistent.
	Until EventName `json:"until,omitempty"`
	// WindowMs is a synchronized fault's logical window in milliseconds
	// (default 100), opened by the crossing at its ordinal: it hits the
	// first crossing of Event by every other task (worker) that crosses
	// it within the window, as one provider outage or one shared rate
	// limit does. Only with correlation synchronized.
	WindowMs Millis `json:"window_ms,omitempty"`
}

// maxRepeat is the most crossings a repeated fault may hit
// (FaultEntry.Repeat).
const maxRepeat = 100

// defaultWindow is a synchronized fault's window when its entry sets
// none, in logical milliseconds.
const defaultWindow Millis = 100

// Correlated returns the correlation the entry runs under: its own
// modifier when set, else its kind's spec's; "" for an unknown kind.
func (f FaultEntry) Correlated() Correlation {
	if f.Correlation != "" {
		return f.Correlation
	}
	k, err := lookupKind(f.Kind)
	if err != nil {
		return ""
	}
	return k.spec.Correlation
}

// checkCorrelation returns an error naming what is wrong with the
// entry's correlation modifier for kind k: a correlation the kind does
// not accept, a parameter of another correlation, or one out of range.
func (f FaultEntry) checkCorrelation(k *faultKind) error {
	c := f.Correlation
	if c != "" && c != k.spec.Correlation && !slices.Contains(k.spec.Correlations, c) {
		known := c == correlationShared
		for _, x := range AllCorrelations {
			known = known || x == c
		}
		if !known {
			return fmt.Errorf("unknown correlation %q (valid: isolated, repeated, persistent, synchronized, shared)", c)
		}
		ok := []string{string(k.spec.Correlation)}
		for _, x := range k.spec.Correlations {
			ok = append(ok, string(x))
		}
		msg := fmt.Sprintf("kind %q does not take correlation %q (it takes %s)", f.Kind, c, strings.Join(ok, ", "))
		if why := correlationRefusal(f.Kind, c); why != "" {
			msg += ": " + why
		}
		return errors.New(msg)
	}
	eff := f.Correlated()
	if f.Repeat != 0 && eff != correlationRepeated {
		return fmt.Errorf(`"repeat" %d is set, but the fault's correlation is %q: only a repeated fault repeats`, f.Repeat, eff)
	}
	if eff == correlationRepeated && (f.Repeat < 2 || f.Repeat > maxRepeat) {
		return fmt.Errorf(`correlation repeated needs "repeat" between 2 and %d (how many crossings it hits), got %d`, maxRepeat, f.Repeat)
	}
	if f.Until != "" {
		if eff != correlationPersistent {
			return fmt.Errorf(`"until" %q is set, but the fault's correlation is %q: only a persistent fault lasts until an event`, f.Until, eff)
		}
		if eventIndex(f.Until) < 0 {
			return fmt.Errorf(`"until": unknown event %q`, f.Until)
		}
		if f.Until == f.Event {
			return fmt.Errorf(`"until" %q is the fault's own event: the next crossing would end it, as if isolated`, f.Until)
		}
	}
	if f.WindowMs != 0 {
		if eff != correlationSynchronized {
			return fmt.Errorf(`"window_ms" %d is set, but the fault's correlation is %q: only a synchronized fault has a window`, f.WindowMs, eff)
		}
		if f.WindowMs < 0 {
			return fmt.Errorf(`"window_ms" %d must be positive`, f.WindowMs)
		}
	}
	return nil
}

// correlationRefusal says why kind does not take correlation c, "" when
// there is nothing to add to the list of those it takes.
func correlationRefusal(kind string, c Correlation) string {
	switch kind {
	case "subject_swap", "revoked_capability", "cross_source_conflict", "concurrent_version_change", "break_trace_lineage", "memory_loss", "branch_failure":
		return "its disturbance is one task's own proposal, capability, record, call or memory, which no later call, worker or tenant shares"
	case "lagging_readback", "stale_state_read":
		return "a read that lags lags behind one write"
	case "sandbox_denial", "timeout_before_send", "reject_before_commit", "rate_limit":
		return "a call refused before its commit is contained without any control, so a correlated form would have no counterfactual pair"
	case "budget_exhaustion":
		return "it is persistent by definition"
	case "worker_restart", "missing_checkpoint", "stale_checkpoint", "future_version_checkpoint", "corrupt_checkpoint":
		return "a worker restart is one fault entry each; schedule another entry for another restart"
	case "stale_policy", "partial_success_response", "drop_effect_receipt":
		if c == correlationRepeated || c == correlationPersistent {
			return "a task crosses its event once, or not again after it, so there is no later call to hit"
		}
	case "tool_timeout":
		if c == correlationPersistent {
			return "a workflow without controls holds under it (no counterfactual pair)"
		}
	case "checkpoint_rollback":
		return "each task rolls back its own checkpoints, which no other worker or tenant shares"
	}
	return ""
}

// eventHasTool reports whether crossings of e carry a tool name a fault
// entry's Tool can select: true only for tool.commit.
func eventHasTool(e EventName) bool { return e == EvToolCommit }

// Placement is how errors, reports and records name where f is attached:
// "event#ordinal", or "event(tool)#ordinal" when Tool is set (the ordinal
// then counts that tool's crossings), then "[target]" when Target is set,
// e.g. "tool.commit(charge)#1", "tool.commit#1[after_commit]".
func (f FaultEntry) Placement() string {
	return placement(f.Event, f.Tool, f.Ordinal, f.Target)
}

func placement(ev EventName, tool string, ordinal int, target string) string {
	p := string(ev) + "#" + strconv.Itoa(ordinal)
	if tool != "" {
		p = string(ev) + "(" + tool + ")#" + strconv.Itoa(ordinal)
	}
	if target != "" {
		p += "[" + target + "]"
	}
	return p
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

// Config is the configuration a schedule runs under, in two parts: the
// harness's (Fixture, RetryBudget, Deadline, Join, Concurrency, Notices),
// checked here, and the system's (System), opaque to the core and decoded
// by the system (Definition.Configure). Every harness key is optional; a
// version-1 flat config still decodes to the same run (docs/formats.md).
type Config struct {
	// RetryBudget (attempts after the first), Deadline (logical ms) and
	// Join override the harness's Options for every task when set.
	RetryBudget *int
	Deadline    *Millis
	Join        JoinPolicy
	// Fixture names the workload the schedule runs on ("" for the
	// harness's own; a system's Definition lists its fixtures). A harness
	// over another fixture refuses the schedule.
	Fixture string
	// Concurrency, when set, runs the tasks as concurrent workers under
	// the harness's deterministic scheduler (see Concurrency); nil (the
	// key absent, as in every older file) runs them one after another.
	Concurrency *Concurrency
	// Notices, when true, has the provider send asynchronous notices of
	// what became of each request (see Notice): the system is handed an
	// inbox (Env.Notices) and the run checks recorded_agrees_with_ledger.
	// False (the key absent, as in every older file) sends none, and the
	// Env's Notices is nil.
	Notices bool
	// System is the system's own part: one JSON object, held in canonical
	// form (keys sorted, no insignificant space, numbers as written), so
	// Format stays canonical. nil or empty means {}. Build it with
	// SystemConfig.
	System json.RawMessage
}

// SystemConfig returns the canonical form of v, the system part of a
// config, encoded as JSON (a struct, a map or a json.RawMessage): keys
// sorted, no insignificant space. It returns an error when v does not
// encode to a JSON object.
func SystemConfig(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("system config: %w", err)
	}
	return canonicalSystem(b)
}

// canonicalSystem re-encodes b, which must be one JSON object with no
// repeated key, with sorted keys and numbers kept as written.
func canonicalSystem(b []byte) (json.RawMessage, error) {
	if err := strictjson.Validate(b); err != nil {
		return nil, fmt.Errorf(`"system": %w`, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf(`"system": %w`, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf(`"system": %w`, err)
	}
	return out, nil
}

// system returns the canonical system part, {} when none is set.
func (c Config) system() json.RawMessage {
	if len(c.System) == 0 {
		return json.RawMessage("{}")
	}
	return c.System
}

// SystemJSON returns the system part in canonical form ({} when none is
// set).
func (c Config) SystemJSON() json.RawMessage { return c.system() }

// harnessString is the harness part as people read it: every budget, join
// and fixture override that is set ("retry_budget 1, join best_effort"),
// "" when none is.
func (c Config) harnessString() string {
	var parts []string
	if c.RetryBudget != nil {
		parts = append(parts, "retry_budget "+strconv.Itoa(*c.RetryBudget))
	}
	if c.Deadline != nil {
		parts = append(parts, "deadline_ms "+strconv.FormatInt(int64(*c.Deadline), 10))
	}
	if c.Join != "" {
		parts = append(parts, "join "+string(c.Join))
	}
	if c.Concurrency != nil {
		parts = append(parts, c.Concurrency.String())
	}
	if c.Notices {
		parts = append(parts, "notices")
	}
	return strings.Join(parts, ", ")
}

// String is the system part as JSON followed by the harness part's
// overrides ("system {\"profile\":\"typed\"}, join best_effort"); a
// system's Definition.DescribeConfig names the system part in its own
// terms.
func (c Config) String() string {
	s := "system " + string(c.system())
	if h := c.harnessString(); h != "" {
		s += ", " + h
	}
	return s
}

type harnessJSON struct {
	Fixture     string       `json:"fixture,omitempty"`
	RetryBudget *int         `json:"retry_budget,omitempty"`
	DeadlineMs  *Millis      `json:"deadline_ms,omitempty"`
	Join        string       `json:"join,omitempty"`
	Concurrency *Concurrency `json:"concurrency,omitempty"`
	Notices     bool         `json:"notices,omitempty"`
}

type configJSON struct {
	Harness *harnessJSON    `json:"harness"`
	System  json.RawMessage `json:"system"`
}

// configV1 is the flat config of schedule format version 1.
type configV1 struct {
	Profile     *string   `json:"profile,omitempty"`
	Controls    *[]string `json:"controls,omitempty"`
	Mutant      string    `json:"mutant,omitempty"`
	RetryBudget *int      `json:"retry_budget,omitempty"`
	DeadlineMs  *Millis   `json:"deadline_ms,omitempty"`
	Join        string    `json:"join,omitempty"`
	Fixture     string    `json:"fixture,omitempty"`
}

// MarshalJSON writes {"harness": {...}, "system": {...}}, the harness
// keys that are set and the system part in canonical form.
// It returns an error when the system part is not one JSON object.
func (c Config) MarshalJSON() ([]byte, error) {
	sys, err := canonicalSystem(c.system())
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	j := configJSON{Harness: &harnessJSON{Fixture: c.Fixture, RetryBudget: c.RetryBudget, DeadlineMs: c.Deadline, Join: string(c.Join),
		Concurrency: c.Concurrency, Notices: c.Notices},
		System: sys}
	return json.Marshal(j)
}

// UnmarshalJSON reads a config strictly: an unknown, misspelt or repeated
// key of the harness part, a system part that is not one object, and an
// invalid budget, deadline or join policy are errors. The system part is
// kept in canonical form, unread. A config with neither a "harness" nor a
// "system" key is read as version 1's flat config (see Config), so a
// schedule embedded in an older file (a dossier) still decodes;
// ParseSchedule reads each version by its own rules.
func (c *Config) UnmarshalJSON(b []byte) error {
	var keys map[string]json.RawMessage
	if json.Unmarshal(b, &keys) == nil {
		_, h := keys["harness"]
		_, s := keys["system"]
		if !h && !s && len(keys) > 0 {
			v1, err := decodeConfigV1(b)
			if err != nil {
				return err
			}
			*c = v1
			return nil
		}
	}
	return c.decodeV2(b)
}

// decodeV2 reads a version-2 config strictly.
func (c *Config) decodeV2(b []byte) error {
	var j configJSON
	if err := strictjson.Decode(b, &j); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	*c = Config{}
	if j.Harness != nil {
		c.Fixture, c.RetryBudget, c.Deadline, c.Join = j.Harness.Fixture, j.Harness.RetryBudget, j.Harness.DeadlineMs, JoinPolicy(j.Harness.Join)
		c.Concurrency, c.Notices = j.Harness.Concurrency, j.Harness.Notices
	}
	if len(j.System) == 0 || string(j.System) == "null" {
		return errors.New(`config: missing "system" (the system's own part, an object; {} when it takes none)`)
	}
	sys, err := canonicalSystem(j.System)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	c.System = sys
	return c.validateExtras()
}

// decodeConfigV1 reads a version-1 config strictly (unknown, misspelt or
// repeated fields, and configs naming both or neither of profile and
// controls are errors) and maps it onto the two parts.
func decodeConfigV1(b []byte) (Config, error) {
	var j configV1
	if err := strictjson.Decode(b, &j); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	sys := map[string]any{}
	switch {
	case j.Profile != nil && j.Controls != nil:
		return Config{}, errors.New(`config: give "profile" or "controls", not both`)
	case j.Profile != nil:
		sys["profile"] = *j.Profile
	case j.Controls != nil:
		sys["controls"] = *j.Controls
	default:
		return Config{}, errors.New(`config: needs "profile" or "controls"`)
	}
	if j.Mutant != "" {
		sys["mutant"] = j.Mutant
	}
	raw, err := SystemConfig(sys)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	c := Config{RetryBudget: j.RetryBudget, Deadline: j.DeadlineMs, Join: JoinPolicy(j.Join), Fixture: j.Fixture, System: raw}
	return c, c.validateExtras()
}

func (c Config) validateExtras() error {
	if c.RetryBudget != nil && (*c.RetryBudget < 0 || *c.RetryBudget > 100) {
		return fmt.Errorf("config: retry_budget %d must be between 0 and 100", *c.RetryBudget)
	}
	if c.Deadline != nil && *c.Deadline <= 0 {
		return fmt.Errorf("config: deadline_ms %d must be positive", *c.Deadline)
	}
	if err := c.Concurrency.validate(); err != nil {
		return err
	}
	if c.Join != "" {
		ok := false
		for _, p := range joinPolicies {
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

// ParseSchedule decodes a schedule file of version 2, or of version 1 (its
// flat config mapped onto the two parts, see Config; the schedule returned
// is version 2), strictly (package strictjson: one
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
		Expect  []string        `json:"expect_terminal"`
	}
	if err := strictjson.Decode(data, &raw); err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	if raw.Version == nil {
		return nil, fmt.Errorf(`schedule: missing "version" (want %d)`, ScheduleVersion)
	}
	if *raw.Version != ScheduleVersion && *raw.Version != 1 && *raw.Version != scheduleVersionTerminal {
		return nil, fmt.Errorf("schedule: unsupported version %d (want %d, %d with expect_terminal, or 1)", *raw.Version, ScheduleVersion, scheduleVersionTerminal)
	}
	if raw.Expect == nil && *raw.Version == scheduleVersionTerminal {
		return nil, fmt.Errorf(`schedule: unsupported version %d without "expect_terminal" (version %d declares the expected terminal states; want %d, or 1)`, scheduleVersionTerminal, scheduleVersionTerminal, ScheduleVersion)
	}
	if raw.Expect != nil && *raw.Version != scheduleVersionTerminal {
		return nil, fmt.Errorf(`schedule: "expect_terminal" needs version %d (this file is version %d)`, scheduleVersionTerminal, *raw.Version)
	}
	for i, t := range raw.Expect {
		if t != terminalCompleted && t != terminalFailed && t != terminalTimedOut {
			return nil, fmt.Errorf("schedule: expect_terminal[%d]: unknown terminal state %q (valid: completed, failed, timed_out)", i, t)
		}
	}
	if len(raw.Config) == 0 || string(raw.Config) == "null" {
		return nil, errors.New(`schedule: missing "config" (give {"harness": {...}, "system": {...}})`)
	}
	if raw.Expect != nil && len(raw.Expect) == 0 {
		return nil, errors.New(`schedule: "expect_terminal" is empty (give one terminal state per task)`)
	}
	s := &Schedule{Version: ScheduleVersion, Seed: raw.Seed, Faults: []FaultEntry{}, ExpectTerminal: raw.Expect}
	if raw.Expect != nil {
		s.Version = scheduleVersionTerminal
	}
	if *raw.Version == 1 {
		c, err := decodeConfigV1(raw.Config)
		if err != nil {
			return nil, fmt.Errorf("schedule: %w", err)
		}
		s.Config = c
	} else if err := s.Config.decodeV2(raw.Config); err != nil {
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
	if len(s.Config.System) > 0 {
		if _, err := canonicalSystem(s.Config.System); err != nil {
			return fmt.Errorf("schedule: config: %w", err)
		}
	}
	return s.validateFaults()
}

// validateFaults is Validate less the canonical check of the system part.
func (s *Schedule) validateFaults() error {
	if err := s.Config.validateExtras(); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	// fault ids seen, in a map past a handful of faults (a linear scan
	// of the earlier ids below)
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
		if f.Tool != "" && !eventHasTool(f.Event) {
			return fmt.Errorf(`%s: "tool" %q is set, but event %q has no tool (only %q does)`, where, f.Tool, f.Event, EvToolCommit)
		}
		if err := f.checkCorrelation(k); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if tc, ok := k.impl.(targetChecker); ok {
			if err := tc.checkTarget(f.Target); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		} else if f.Target != "" {
			return fmt.Errorf("%s: kind %q takes no target, but target %q is set (the kinds that take one: %s)", where, f.Kind, f.Target, targetKinds())
		}
		if len(s.Faults) > 1 {
			id := s.faultID(i)
			if len(s.Faults) <= maxScannedIDs {
				for j := range i {
					if s.faultID(j) == id {
						return fmt.Errorf("%s: fault id %q is used twice", where, id)
					}
				}
				continue
			}
			if ids == nil {
				ids = map[string]bool{}
			}
			if ids[id] {
				return fmt.Errorf("%s: fault id %q is used twice", where, id)
			}
			ids[id] = true
		}
	}
	return nil
}

// maxScannedIDs is the most faults whose ids validateFaults compares
// pairwise rather than in a map.
const maxScannedIDs = 16

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

// Format returns the canonical encoding of s in the current version:
// indented JSON with a trailing newline. ParseSchedule(Format(s)) equals s
// for every valid s of the current version whose system part is in
// canonical form (as ParseSchedule and SystemConfig make it). It panics
// when the system part is not a JSON object, which Validate reports.
func Format(s *Schedule) []byte {
	c := *s
	c.Version = ScheduleVersion
	if len(c.ExpectTerminal) > 0 {
		c.Version = scheduleVersionTerminal
	}
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
// and designed ordinal (FaultSpec.Ordinal) under cfg: the placement the
// catalogue designs for the reference system (the assay and the paper's
// parity use it). For any other system, place faults on the events its
// runs actually cross with Place or SingleFaults.
func SingleFault(kind string, cfg Config) (*Schedule, error) {
	k, err := lookupKind(kind)
	if err != nil {
		return nil, err
	}
	if k.spec.Event == EvNoticeReceive {
		cfg.Notices = true // the kind's event exists only when the provider sends notices
	}
	return &Schedule{Version: ScheduleVersion, Seed: kind, Config: cfg,
		Faults: []FaultEntry{{Event: k.spec.Event, Ordinal: k.spec.Ordinal, Kind: kind}}}, nil
}

// Equal reports whether c and o are the same config: the same harness
// part (fixture, overrides by value, join) and the same system part in
// canonical form (an unset part is {}).
func (c Config) Equal(o Config) bool {
	eqInt := func(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
	eqMs := func(a, b *Millis) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
	if c.Fixture != o.Fixture || c.Join != o.Join || !eqInt(c.RetryBudget, o.RetryBudget) || !eqMs(c.Deadline, o.Deadline) ||
		!c.Concurrency.Equal(o.Concurrency) || c.Notices != o.Notices {
		return false
	}
	a, errA := canonicalSystem(c.system())
	b, errB := canonicalSystem(o.system())
	if errA != nil || errB != nil {
		return bytes.Equal(c.system(), o.system())
	}
	return bytes.Equal(a, b)
}
