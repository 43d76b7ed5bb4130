package properties

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/internal/rerun"
	"github.com/faultline/faultline/model"
)

// WriteCounterexample writes cx to dir (created if missing) as NAME.json,
// the reduced schedule faultline replay accepts, and
// NAME.counterexample.json, its counterexample file (corpus.Format, the
// one counterexample format; docs/formats.md), each replaced
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

// pair is the files of a counterexample whose schedule file is path: its
// record NAME.counterexample.json first, then the schedule, in the order
// fileio.WriteFiles renames them.
func pair(path string, ce *corpus.Counterexample) []fileio.File {
	return []fileio.File{{Path: strings.TrimSuffix(path, ".json") + ".counterexample.json", Data: corpus.Format(ce)},
		{Path: path, Data: model.Format(ce.Schedule)}}
}

func writeCounterexample(dir string, cx *Counterexample, rep *Report, replay func(path string) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("properties: counterexample directory: %w", err)
	}
	sched := model.Format(cx.Schedule)
	name := fileName("cx-"+cx.Invariant, sched)
	path := filepath.Join(dir, name+".json")
	cx.File, cx.Replay = path, replay(path)
	ce := &corpus.Counterexample{Version: corpus.CounterexampleVersion, Kind: corpus.KindViolation,
		Note: "exploration counterexample, schedule file " + name + ".json", FoundBy: corpus.FoundBy{Target: "properties", System: cx.System, Shrunk: cx.Shrunk},
		Replay: cx.Replay, ScheduleFile: name + ".json", Schedule: cx.Schedule,
		Expect:       &corpus.Expect{FirstOnly: true, Violated: []model.Violation{cx.Violation}},
		Interleaving: cx.Interleaving, ContextSwitches: cx.ContextSwitches, Jitter: rerun.Note(cx.Jitter), Timeline: cx.Timeline}
	if rep != nil {
		ce.FoundBy.ChecksToFailure, ce.FoundBy.RapidSeed = rep.ChecksToFailure, rep.Seed
	}
	// both staged before either is renamed, the record renamed first: a
	// failure leaves neither half, a kill between the renames a record
	// (which holds the schedule) without its schedule file, never a
	// schedule without its record
	if err := fileio.WriteFiles(pair(path, ce)...); err != nil {
		return fmt.Errorf("properties: %w", err)
	}
	return nil
}
