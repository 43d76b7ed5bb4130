package fuzz_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/fuzz"
	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

var fixedArchiver = model.Config{System: json.RawMessage(`{}`)}

func sitesOf(t *testing.T, opts ...fuzz.Option) (*fuzz.Decoder, []string) {
	t.Helper()
	d, err := fuzz.NewDecoder(archiver.Definition(), append([]fuzz.Option{fuzz.WithConfig(fixedArchiver)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range d.Sites() {
		out = append(out, s.String())
	}
	return d, out
}

// TestDecoderSitesComeFromTheCleanRun: over the archiver (two checkpoint
// writes and one tool call on a clean run), the decoder's sites are
// crossings of that run: the checkpoint kinds at checkpoint.write#2 (not
// the reference system's #3), the tool kinds at tool.commit#1, kinds whose
// event the run never crosses left out; every site decoded alone is
// reached. WithCatalogueSites keeps the reference system's table.
func TestDecoderSitesComeFromTheCleanRun(t *testing.T) {
	d, designed := sitesOf(t)
	if got := d.Crossed(); !slices.Equal(got, []model.EventName{model.EvToolCommit, model.EvCheckpointWrite, model.EvCheckpointLoad, model.EvWorkerStart}) {
		t.Fatalf("crossed %v", got)
	}
	want := []string{"timeout_after_commit@tool.commit#1", "partial_success_response@tool.commit#1", "checkpoint_rollback@checkpoint.write#2",
		"break_trace_lineage@tool.commit#1", "sandbox_denial@tool.commit#1", "timeout_before_send@tool.commit#1", "reject_before_commit@tool.commit#1",
		"malformed_response@tool.commit#1", "output_drift@tool.commit#1", "rate_limit@tool.commit#1", "tool_timeout@tool.commit#1",
		"budget_exhaustion@tool.commit#1", "worker_restart@checkpoint.write#2", "missing_checkpoint@checkpoint.write#2",
		"stale_checkpoint@checkpoint.write#2", "future_version_checkpoint@checkpoint.write#2", "corrupt_checkpoint@checkpoint.write#2",
		"false_success@tool.commit#1", "clock_advance@tool.commit#1", "worker_crash@tool.commit#1"}
	if !slices.Equal(designed, want) {
		t.Fatalf("designed sites:\n%v\nwant\n%v", designed, want)
	}
	for i := range designed {
		res, err := d.Check(d.Decode([]byte{byte(i)}))
		if err != nil {
			t.Fatalf("site %s: %v", designed[i], err)
		}
		if !res.Faults[0].Reached {
			t.Errorf("site %s not reached", designed[i])
		}
	}
	_, ordinals := sitesOf(t, fuzz.WithScope("ordinals"))
	for _, w := range []string{"worker_restart@checkpoint.write#1", "worker_restart@checkpoint.write#2", "tool_timeout@tool.commit#1"} {
		if !slices.Contains(ordinals, w) {
			t.Errorf("ordinals scope lacks %s", w)
		}
	}
	if len(ordinals) != 26 || slices.Contains(ordinals, "worker_restart@checkpoint.write#3") || slices.Contains(ordinals, "tool_timeout@tool.commit#2") {
		t.Errorf("ordinals scope: %d sites %v", len(ordinals), ordinals)
	}
	_, anywhere := sitesOf(t, fuzz.WithScope("anywhere"))
	if !slices.Contains(anywhere, "worker_crash@checkpoint.load#1") || slices.Contains(anywhere, "worker_crash@checkpoint.load#2") || slices.Contains(anywhere, "subject_swap@proposal#1") {
		t.Errorf("anywhere scope: %v", anywhere)
	}
	_, table := sitesOf(t, fuzz.WithCatalogueSites())
	if len(table) != len(model.Catalogue())+len(model.WorldEvents()) || !slices.Contains(table, "worker_restart@checkpoint.write#3") {
		t.Errorf("catalogue sites: %v", table)
	}
}

// idle crosses nothing a fault kind sits at.
type idle struct{}

func (idle) Run(context.Context, model.Env, model.Task) (model.Claim, error) {
	return model.Claim{Verdict: model.ClaimHold, Reason: "did nothing"}, nil
}

// TestDecoderOfASystemThatCrossesNothing: a system whose clean run crosses
// no event any kind is placed at has no sites: NewDecoder says so and
// names the events it did cross.
func TestDecoderOfASystemThatCrossesNothing(t *testing.T) {
	def := archiver.Definition()
	def.Name = "idle"
	def.Configure = func(json.RawMessage) (model.Factory, error) { return func() model.System { return idle{} }, nil }
	_, err := fuzz.NewDecoder(def)
	if err == nil || err.Error() != "fuzz: the clean run of idle crosses no event a fault kind is placed at in scope designed (the events it crossed: worker.start)" {
		t.Fatalf("error %v", err)
	}
	// For's body fails every input with it (TestEntriesRefuseTheSameDefinitions)
}

// TestForFindsThePlantedBug: the target of the archiver with its planted
// bug returns a *Failure for the input that places a timeout after the
// commit, naming archived_once, with the shrunk schedule written where the
// replay test replays it and the command that does; the fixed archiver
// returns nil for every one-fault input and the empty one, and its
// campaign reached its faults. A reference target keeps faultline replay.
func TestForFindsThePlantedBug(t *testing.T) {
	dir := t.TempDir()
	def := archiver.Definition()
	tgt, err := fuzz.NewTarget(def, fuzz.WithConfig(model.Config{System: archiver.Planted}), fuzz.WithReplayTest("TestArchiverCheck"), fuzz.WithFailDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	seed, err := tgt.Decoder().Encode(&model.Schedule{Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}})
	if err != nil || len(seed) != 1 {
		t.Fatalf("seed %x %v", seed, err)
	}
	// a second, harmless fault first: the shrinking drops it
	ferr := tgt.Check(append([]byte{0}, seed...))
	var f *fuzz.Failure
	if !errors.As(ferr, &f) {
		t.Fatalf("no failure: %v", ferr)
	}
	if f.Invariant != archiver.InvArchivedOnce || f.Detail != "2 copies of the document archived" || len(f.Violation.Schedule.Faults) != 2 ||
		len(f.Schedule.Faults) != 1 || f.Schedule.Faults[0].Kind != "timeout_after_commit" {
		t.Fatalf("failure %+v", f)
	}
	b, err := os.ReadFile(f.File)
	if err != nil || !strings.HasPrefix(f.File, dir) {
		t.Fatalf("file %q: %v", f.File, err)
	}
	if s, err := model.ParseSchedule(b); err != nil || !slices.Equal(s.Faults, f.Schedule.Faults) || string(s.Config.System) != string(archiver.Planted) {
		t.Fatalf("the file does not hold the shrunk schedule: %v\n%s", err, b)
	}
	if f.Replay != properties.ReplayCommand("TestArchiverCheck", f.File) || !strings.HasPrefix(f.Replay, "FAULTLINE_REPLAY=") || !strings.Contains(f.Replay, "go test -run '^TestArchiverCheck$' ./fuzz") {
		t.Errorf("replay %q", f.Replay)
	}
	msg := ferr.Error()
	for _, w := range []string{"archived_once violated: 2 copies of the document archived", "invariant violated: bug fresh_keys", "shrunk to 1 of its 2 faults (removal 3 runs, 1 fault left):", "replay the shrunk schedule: " + f.Replay} {
		if !strings.Contains(msg, w) {
			t.Errorf("message lacks %q:\n%s", w, msg)
		}
	}

	fixed, err := fuzz.NewTarget(def, fuzz.WithConfig(fixedArchiver))
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(fixed.Decoder().Sites()) + 1 {
		in := []byte{byte(i)}
		if i == len(fixed.Decoder().Sites()) {
			in = nil
		}
		if err := fixed.Check(in); err != nil {
			t.Fatalf("fixed archiver, input %x: %v", in, err)
		}
	}
	if err := fixed.Done(); err != nil {
		t.Errorf("done: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the fail folder, want the one failure's schedule and counterexample files", len(entries))
	}
	// the counterexample file beside the schedule: the corpus format,
	// recording the shrunk run, which a replay of the file matches
	data, err := os.ReadFile(strings.TrimSuffix(f.File, ".json") + ".counterexample.json")
	if err != nil {
		t.Fatal(err)
	}
	ce, err := corpus.ReadCounterexample(data)
	if err != nil {
		t.Fatal(err)
	}
	if ce.FoundBy.Target != "fuzz" || ce.FoundBy.System != def.Name || ce.ScheduleFile != filepath.Base(f.File) || ce.Replay != f.Replay ||
		!slices.Equal(ce.Schedule.Faults, f.Schedule.Faults) {
		t.Errorf("counterexample file %+v", ce)
	}
	res, err := def.Replay(ce.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if err := ce.Check(res); err != nil {
		t.Errorf("the counterexample file's replay: %v", err)
	}
}

// TestTargetDoneSaysNothingWasReached: a campaign whose faults all sit
// where the system never goes (the reference system's checkpoint.write#3,
// on the archiver that writes two) tested nothing: Done says so and names
// the events the archiver crossed; one reached fault makes it nil.
func TestTargetDoneSaysNothingWasReached(t *testing.T) {
	tgt, err := fuzz.NewTarget(archiver.Definition(), fuzz.WithConfig(fixedArchiver), fuzz.WithCatalogueSites())
	if err != nil {
		t.Fatal(err)
	}
	d := tgt.Decoder()
	third, err := d.Encode(&model.Schedule{Faults: []model.FaultEntry{{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "worker_restart"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tgt.Check(third); err != nil {
		t.Fatal(err)
	}
	if err := tgt.Done(); err == nil || err.Error() != "inconclusive: none of the 1 faults scheduled in 1 runs was reached, so no fault was tested; the events the system crossed: tool.commit, checkpoint.write, checkpoint.load, worker.start" {
		t.Fatalf("done: %v", err)
	}
	first, err := d.Encode(&model.Schedule{Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tgt.Check(first); err != nil {
		t.Fatal(err)
	}
	if err := tgt.Done(); err != nil {
		t.Fatalf("done after a reached fault: %v", err)
	}
}

// TestTargetDoneOnEmptyInputs: a campaign whose inputs all decode to the
// empty schedule (an empty seed) scheduled no fault and tested nothing:
// Done says so instead of passing.
func TestTargetDoneOnEmptyInputs(t *testing.T) {
	tgt, err := fuzz.NewTarget(archiver.Definition(), fuzz.WithConfig(fixedArchiver))
	if err != nil {
		t.Fatal(err)
	}
	if err := tgt.Check([]byte{}); err != nil {
		t.Fatal(err)
	}
	if err := tgt.Done(); err == nil || !strings.HasPrefix(err.Error(), "inconclusive: the 1 runs scheduled no fault, so no fault was tested") {
		t.Fatalf("done after an empty input: %v", err)
	}
}

// TestOneFailureIsOneFile: two inputs whose bytes decode to the same
// fault (the site's byte and that byte plus the number of sites) carry
// other seed labels, yet their one failure is one file in the fail
// folder, named by the schedule without its label.
func TestOneFailureIsOneFile(t *testing.T) {
	dir := t.TempDir()
	tgt, err := fuzz.NewTarget(archiver.Definition(), fuzz.WithConfig(model.Config{System: archiver.Planted}), fuzz.WithReplayTest("TestArchiverCheck"), fuzz.WithFailDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	seed, err := tgt.Decoder().Encode(&model.Schedule{Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}})
	if err != nil || len(seed) != 1 {
		t.Fatalf("seed %x %v", seed, err)
	}
	other := []byte{seed[0] + byte(len(tgt.Decoder().Sites()))}
	var files []string
	for _, in := range [][]byte{seed, other} {
		var f *fuzz.Failure
		if err := tgt.Check(in); !errors.As(err, &f) {
			t.Fatalf("input %x: no failure: %v", in, err)
		}
		files = append(files, filepath.Base(f.File)+" "+f.Violation.Schedule.Seed)
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 2 || files[0] != "fuzz-32f4bd88fc3a.json fuzz-00" || files[1] != "fuzz-32f4bd88fc3a.json fuzz-14" {
		t.Fatalf("files %q, %d in the folder: %v", files, len(ents), err)
	}
}
