package corpus

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/strictjson"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// The exploration of package properties writes each counterexample as a
// schedule file (cx-NAME.json) and a record beside it
// (cx-NAME.counterexample.json, properties.CounterexampleRecord). The
// record maps onto a Counterexample field by field (fromRecord; the table
// is in docs/formats.md), with nothing the regression check needs lost.
// ReadCounterexample accepts either file; faultline replay reads both.

// isRecord reports whether data is a JSON object with the
// "schedule_file" and "invariant" fields of an exploration's
// counterexample record. It does not validate the rest.
func isRecord(data []byte) bool { return topLevel(data) == "record" }

// ParseRecord decodes an exploration's counterexample record strictly
// (package strictjson): unknown, misspelt or repeated fields, more than
// maxEntries timeline events, a version other than properties.CounterexampleVersion,
// a missing or invalid schedule (model.ParseSchedule), an invalid
// invariant name (coverage.CheckInvariantName: any invariant a system
// declares is accepted), and a missing event are errors that name the problem.
func ParseRecord(data []byte) (*properties.CounterexampleRecord, error) {
	var raw struct {
		properties.CounterexampleRecord
		Schedule json.RawMessage `json:"schedule"`
		Shrunk   json.RawMessage `json:"rapid_shrunk_schedule"`
	}
	if err := strictjson.Decode(data, &raw); err != nil {
		return nil, fmt.Errorf("counterexample record: %w", err)
	}
	rec := raw.CounterexampleRecord
	if len(rec.Timeline) > maxEntries {
		return nil, fmt.Errorf(`counterexample record: "timeline" has %d events, more than the limit of %d`, len(rec.Timeline), maxEntries)
	}
	if rec.Version != properties.CounterexampleVersion {
		return nil, fmt.Errorf("counterexample record: unsupported version %d (want %d)", rec.Version, properties.CounterexampleVersion)
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
// for, by the mapping above.
func fromRecord(rec *properties.CounterexampleRecord) *Counterexample {
	return &Counterexample{
		Version:  CounterexampleVersion,
		Kind:     KindViolation,
		Note:     "exploration counterexample, schedule file " + rec.ScheduleFile,
		FoundBy:  FoundBy{Target: "properties", System: rec.System, RapidSeed: rec.Seed, ChecksToFailure: rec.ChecksToFailure},
		Replay:   rec.Replay,
		Schedule: rec.Schedule,
		Expect: &Expect{FirstOnly: true, Violated: []Violation{{Invariant: rec.Invariant, FirstSeq: rec.FirstSeq,
			Event: rec.Event, FaultID: rec.FaultID, Detail: rec.Detail}}},
		Timeline: rec.Timeline,
	}
}

// ErrNeither is ReadCounterexample's error for data that is neither a
// counterexample file nor an exploration's record (a schedule file, say).
var ErrNeither = errors.New(`counterexample: neither a counterexample file (no "counterexample" field) nor an exploration's counterexample record (no "schedule_file" and "invariant")`)

// ReadCounterexample decodes either a counterexample file of this package
// (ParseCounterexample) or an exploration's counterexample record
// (ParseRecord, then fromRecord), told apart by one look at the top-level
// keys, and returns an error naming the problem, or ErrNeither.
func ReadCounterexample(data []byte) (*Counterexample, error) {
	switch topLevel(data) {
	case "counterexample":
		return ParseCounterexample(data)
	case "record":
		rec, err := ParseRecord(data)
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
