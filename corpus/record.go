package corpus

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/strictjson"
	"github.com/faultline/faultline/model"
)

// Before counterexample version 2 the exploration of package properties
// wrote, beside each schedule file (cx-NAME.json), a record of its own
// format (cx-NAME.counterexample.json, version 1 of "the record"). It
// still reads: it maps onto a Counterexample field by field (fromRecord;
// the table is in docs/formats.md), with nothing the regression check
// needs lost. Nothing writes it now.

// record is the exploration's record of before, as it was written.
type record struct {
	Version         int             `json:"version"`
	ScheduleFile    string          `json:"schedule_file"`
	Schedule        *model.Schedule `json:"schedule"`
	Invariant       string          `json:"invariant"`
	FirstSeq        int             `json:"first_seq"`
	Event           model.EventName `json:"event"`
	FaultID         string          `json:"fault_id,omitempty"`
	FaultKind       string          `json:"fault_kind,omitempty"`
	Detail          string          `json:"detail"`
	ChecksToFailure int             `json:"checks_to_failure"`
	Seed            uint64          `json:"seed,omitempty"`
	Shrunk          *model.Schedule `json:"rapid_shrunk_schedule"`
	Replay          string          `json:"replay"`
	System          string          `json:"system,omitempty"`
	Timeline        []model.Event   `json:"timeline"`
	Interleaving    []int           `json:"interleaving,omitempty"`
	ContextSwitches int             `json:"context_switches,omitempty"`
}

// recordVersion is the one version of the record.
const recordVersion = 1

// isRecord reports whether data is a JSON object with the
// "schedule_file" and "invariant" fields of an exploration's
// record. It does not validate the rest.
func isRecord(data []byte) bool { return topLevel(data) == "record" }

// parseRecord decodes an exploration's record strictly (package
// strictjson): unknown, misspelt or repeated fields, more than
// maxEntries timeline events, a version other than 1, a missing or
// invalid schedule (model.ParseSchedule), an invalid invariant name
// (coverage.CheckInvariantName: any invariant a system declares is
// accepted), and a missing event are errors that name the problem.
func parseRecord(data []byte) (*record, error) {
	var raw struct {
		record
		Schedule json.RawMessage `json:"schedule"`
		Shrunk   json.RawMessage `json:"rapid_shrunk_schedule"`
	}
	if err := strictjson.Decode(data, &raw); err != nil {
		return nil, fmt.Errorf("counterexample record: %w", err)
	}
	rec := raw.record
	if len(rec.Timeline) > maxEntries {
		return nil, fmt.Errorf(`counterexample record: "timeline" has %d events, more than the limit of %d`, len(rec.Timeline), maxEntries)
	}
	if rec.Version != recordVersion {
		return nil, fmt.Errorf("counterexample record: unsupported version %d (want %d)", rec.Version, recordVersion)
	}
	if len(raw.Schedule) == 0 || string(raw.Schedule) == "null" {
		return nil, errors.New(`counterexample record: missing "schedule"`)
	}
	s, err := model.ParseSchedule(raw.Schedule)
	if err != nil {
		return nil, fmt.Errorf("counterexample record: %w", err)
	}
	rec.Schedule = s
	if len(raw.Shrunk) > 0 && string(raw.Shrunk) != "null" {
		if rec.Shrunk, err = model.ParseSchedule(raw.Shrunk); err != nil {
			return nil, fmt.Errorf("counterexample record: rapid_shrunk_schedule: %w", err)
		}
	}
	// any invariant a system declares, checked by syntax with the rule
	// of coverage files
	if err := coverage.CheckInvariantName(rec.Invariant); err != nil {
		return nil, fmt.Errorf("counterexample record: %w", err)
	}
	if rec.Event == "" {
		return nil, errors.New(`counterexample record: missing "event"`)
	}
	return &rec, nil
}

// fromRecord returns the Counterexample an exploration's record stands
// for, by the mapping above: the one an exploration writes today. The
// record's fault_kind is the kind of its schedule's fault fault_id, and
// is not kept.
func fromRecord(rec *record) *Counterexample {
	return &Counterexample{
		Version: CounterexampleVersion,
		Kind:    KindViolation,
		Note:    "exploration counterexample, schedule file " + rec.ScheduleFile, // as properties writes it
		FoundBy: FoundBy{Target: "properties", System: rec.System, RapidSeed: rec.Seed, ChecksToFailure: rec.ChecksToFailure,
			Shrunk: rec.Shrunk},
		Replay:       rec.Replay,
		ScheduleFile: rec.ScheduleFile,
		Schedule:     rec.Schedule,
		Expect: &Expect{FirstOnly: true, Violated: []Violation{{Invariant: rec.Invariant, FirstSeq: rec.FirstSeq,
			Event: rec.Event, FaultID: rec.FaultID, Detail: rec.Detail}}},
		Interleaving:    rec.Interleaving,
		ContextSwitches: rec.ContextSwitches,
		Timeline:        rec.Timeline,
	}
}

// ErrNeither is ReadCounterexample's error for data that is neither a
// counterexample file nor an exploration's record (a schedule file, say).
var ErrNeither = errors.New(`counterexample: neither a counterexample file (no "counterexample" field) nor an exploration's counterexample record (no "schedule_file" and "invariant")`)

// ReadCounterexample decodes either a counterexample file of this package
// (ParseCounterexample) or an exploration's counterexample record
// (parseRecord, then fromRecord), told apart by one look at the top-level
// keys, and returns an error naming the problem, or ErrNeither.
func ReadCounterexample(data []byte) (*Counterexample, error) {
	switch topLevel(data) {
	case "counterexample":
		return ParseCounterexample(data)
	case "record":
		rec, err := parseRecord(data)
		if err != nil {
			return nil, err
		}
		return fromRecord(rec), nil
	}
	return nil, ErrNeither
}

// topLevel says from data's top-level keys which file it is:
// "counterexample", "record", or "" for neither.
func topLevel(data []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return ""
	}
	if _, ok := top["counterexample"]; ok {
		return "counterexample"
	}
	_, file := top["schedule_file"]
	_, inv := top["invariant"]
	if file && inv {
		return "record"
	}
	return ""
}
