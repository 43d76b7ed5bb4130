package properties

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"

	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/model"
)

// CounterexampleVersion is the version of the counterexample record format.
const CounterexampleVersion = 1

// CounterexampleRecord is the record written beside a counterexample's
// schedule file (NAME.counterexample.json beside NAME.json): the schedule
// (config included) again, the violated invariant, the first crossing
// after which it was false and the fault that reached it, the oracle's
// reason, the minimal timeline (the reduced run's redacted timeline up to
// that crossing), how exploration found it, and the command that replays
// the schedule file.
type CounterexampleRecord struct {
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
	// System names the system explored (Counterexample.System); absent
	// when unknown, as in a record written before it was kept.
	System   string        `json:"system,omitempty"`
	Timeline []model.Event `json:"timeline"`
	// Interleaving and ContextSwitches are a concurrent counterexample's
	// picks and context switches (Counterexample's); absent otherwise.
	Interleaving    []int `json:"interleaving,omitempty"`
	ContextSwitches int   `json:"context_switches,omitempty"`
}

// WriteCounterexample writes cx to dir (created if missing) as NAME.json,
// the reduced schedule faultline replay accepts, and
// NAME.counterexample.json, its CounterexampleRecord, each replaced
// atomically (NAME: "cx-", the invariant and the schedule's hash). It sets
// cx.File and cx.Replay (replayFormat with the file's path).
func WriteCounterexample(dir string, cx *Counterexample, rep *Report, replayFormat string) error {
	return writeCounterexample(dir, cx, rep, func(path string) string { return fmt.Sprintf(replayFormat, path) })
}

// writeCounterexample is WriteCounterexample with the replay command
// replay returns for the schedule file's path.
// fileName is a stored schedule's file name without its extension:
// prefix, a dash and the FNV-1a hash of the schedule's bytes in hex.
func fileName(prefix string, sched []byte) string {
	h := fnv.New32a()
	h.Write(sched)
	return fmt.Sprintf("%s-%08x", prefix, h.Sum32())
}

// writeSchedule stores s, a schedule that made the system fail (panic,
// or hang: prefix "panic" or "blocked"), in dir as PREFIX-HASH.json and
// returns its path.
func writeSchedule(dir, prefix string, s *model.Schedule) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("properties: counterexample directory: %w", err)
	}
	sched := model.Format(s)
	path := filepath.Join(dir, fileName(prefix, sched)+".json")
	if err := fileio.WriteFiles(fileio.File{Path: path, Data: sched}); err != nil {
		return "", fmt.Errorf("properties: %w", err)
	}
	return path, nil
}

func writeCounterexample(dir string, cx *Counterexample, rep *Report, replay func(path string) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("properties: counterexample directory: %w", err)
	}
	sched := model.Format(cx.Schedule)
	name := fileName("cx-"+cx.Invariant, sched)
	path := filepath.Join(dir, name+".json")
	cx.File, cx.Replay = path, replay(path)
	rec := CounterexampleRecord{Version: CounterexampleVersion, ScheduleFile: name + ".json", Schedule: cx.Schedule,
		Invariant: cx.Invariant, FirstSeq: cx.FirstSeq, Event: cx.Event, FaultID: cx.FaultID, FaultKind: cx.FaultKind,
		Detail: cx.Detail, Shrunk: cx.Shrunk, Replay: cx.Replay, System: cx.System, Timeline: cx.Timeline,
		Interleaving: cx.Interleaving, ContextSwitches: cx.ContextSwitches}
	if rep != nil {
		rec.ChecksToFailure, rec.Seed = rep.ChecksToFailure, rep.Seed
	}
	body, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("properties: encoding the counterexample: %w", err)
	}
	// both staged before either is renamed: a failure leaves neither half
	if err := fileio.WriteFiles(fileio.File{Path: path, Data: sched},
		fileio.File{Path: filepath.Join(dir, name+".counterexample.json"), Data: append(body, '\n')}); err != nil {
		return fmt.Errorf("properties: %w", err)
	}
	return nil
}
