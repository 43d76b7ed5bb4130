package fuzz

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/faultline/faultline/internal/archiver"
	"github.com/faultline/faultline/model"
)

// archiverTarget is a target over the archiver (fixed) with the
// reference system's sites, and the inputs of three of them: an empty
// one, one whose fault is never reached (worker_restart at
// checkpoint.write#3: the archiver writes two) and one whose fault is
// reached and fires (tool_timeout at tool.commit#1).
func archiverTarget(t *testing.T) (tgt *Target, empty, unreached, reached []byte) {
	t.Helper()
	d, err := NewDecoder(archiver.Definition(), WithConfig(model.Config{System: json.RawMessage(`{}`)}), WithCatalogueSites())
	if err != nil {
		t.Fatal(err)
	}
	enc := func(f model.FaultEntry) []byte {
		b, err := d.Encode(&model.Schedule{Faults: []model.FaultEntry{f}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return d.target(), []byte{},
		enc(model.FaultEntry{Event: model.EvCheckpointWrite, Ordinal: 3, Kind: "worker_restart"}),
		enc(model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout"})
}

var archiverCrossed = []model.EventName{model.EvToolCommit, model.EvCheckpointWrite, model.EvCheckpointLoad, model.EvWorkerStart}

func readRec(t *testing.T, path string) tallyRecord {
	t.Helper()
	r, err := readRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWorkerWritesItsRecordOnNews: a fuzzing worker's target writes its
// record when a count first becomes nonzero (a run, a scheduled fault, a
// reached and fired one) or an event is first crossed, not at every
// input; its Done writes the final counts and returns nil (the campaign's
// verdict is the coordinator's).
func TestWorkerWritesItsRecordOnNews(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(tallyEnv, "1:"+dir) // process 1 is never this test's
	tgt, empty, unreached, reached := archiverTarget(t)
	key := tgt.d.tallyKey()
	tgt.role, tgt.rec = worker, newWorkerRecord(key)
	path := filepath.Join(dir, key+"-"+strconv.Itoa(os.Getpid())+".json")
	if tgt.rec == nil || tgt.rec.path != path {
		t.Fatalf("record %+v, want one at %s", tgt.rec, path)
	}
	steps := []struct {
		in     []byte
		writes int
		want   tallyRecord
	}{
		{empty, 1, tallyRecord{Runs: 1, Crossed: archiverCrossed}},
		{empty, 1, tallyRecord{Runs: 1, Crossed: archiverCrossed}},
		{unreached, 2, tallyRecord{Runs: 3, Faults: 1, Crossed: archiverCrossed}},
		{reached, 3, tallyRecord{Runs: 4, Faults: 2, Reached: 1, Fired: 1, Crossed: archiverCrossed}},
		{reached, 3, tallyRecord{Runs: 4, Faults: 2, Reached: 1, Fired: 1, Crossed: archiverCrossed}},
		{unreached, 3, tallyRecord{Runs: 4, Faults: 2, Reached: 1, Fired: 1, Crossed: archiverCrossed}},
	}
	for i, s := range steps {
		if err := tgt.Check(s.in); err != nil {
			t.Fatal(err)
		}
		if got := readRec(t, path); tgt.rec.writes != s.writes || !recEqual(got, s.want) {
			t.Fatalf("after input %d: %d writes, record %+v; want %d, %+v", i, tgt.rec.writes, got, s.writes, s.want)
		}
	}
	for range 2 {
		if err := tgt.Done(); err != nil {
			t.Fatalf("a worker's Done: %v", err)
		}
		want := tallyRecord{Runs: 6, Faults: 4, Reached: 2, Fired: 2, Crossed: archiverCrossed}
		if got := readRec(t, path); tgt.rec.writes != 4 || !recEqual(got, want) {
			t.Fatalf("after Done: %d writes, record %+v", tgt.rec.writes, got)
		}
	}
	// a second target of the same key in the process shares the record,
	// which keeps the larger counts
	other, _, _, _ := archiverTarget(t)
	other.role, other.rec = worker, newWorkerRecord(other.d.tallyKey())
	if other.rec != tgt.rec {
		t.Fatalf("two records of one key in one process")
	}
	if err := other.Check(reached); err != nil {
		t.Fatal(err)
	}
	if got := readRec(t, path); tgt.rec.writes != 4 || got.Runs != 6 {
		t.Fatalf("the second target's first input: %d writes, record %+v", tgt.rec.writes, got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the tally directory, want the record alone", len(entries))
	}
	// a worker whose environment names no coordinator keeps no record
	for _, v := range []string{"", "x:" + dir, "1:", strconv.Itoa(os.Getpid()) + ":" + dir} {
		t.Setenv(tallyEnv, v)
		if r := newWorkerRecord(key); r != nil {
			t.Errorf("%s=%q: a record at %s", tallyEnv, v, r.path)
		}
	}
}

func recEqual(a, b tallyRecord) bool {
	return a.Runs == b.Runs && a.Faults == b.Faults && a.Reached == b.Reached && a.Fired == b.Fired && slices.Equal(a.Crossed, b.Crossed)
}

func writeRec(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCoordinatorDoneAddsTheWorkersRecords: the coordinator's Done adds
// its workers' records of its key to its own counts (none: under -fuzz
// the coordinator runs no input) and decides on the sum: green only when
// a worker's input reached and fired a fault; inconclusive, with the
// summed counts, when none did, and when no worker left a record. It
// reads the records once, removes them, and removes the directory when no
// other key's record is left; a record that does not parse is an error.
func TestCoordinatorDoneAddsTheWorkersRecords(t *testing.T) {
	coord := func(t *testing.T, dir string) *Target {
		tgt, _, _, _ := archiverTarget(t)
		tgt.role, tgt.tally = coordinator, &coordinatorTally{dir: dir, key: "k1"}
		return tgt
	}
	t.Run("reached", func(t *testing.T) {
		dir := t.TempDir()
		writeRec(t, dir, "k1-101.json", `{"runs":9,"faults":3,"reached":0,"fired":0,"crossed":["tool.commit"]}`)
		writeRec(t, dir, "k1-102.json", `{"runs":1,"faults":1,"reached":1,"fired":1,"crossed":["checkpoint.write"]}`)
		writeRec(t, dir, "k2-101.json", `not a record of this key`)
		writeRec(t, dir, "k1-103.json.123.tmp", `half a record`)
		tgt := coord(t, dir)
		for range 2 {
			if err := tgt.Done(); err != nil {
				t.Fatalf("Done: %v", err)
			}
		}
		var names []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, []string{"k1-103.json.123.tmp", "k2-101.json"}) {
			t.Errorf("left in the directory: %v", names)
		}
	})
	t.Run("unreached", func(t *testing.T) {
		dir := t.TempDir()
		writeRec(t, dir, "k1-101.json", `{"runs":9,"faults":3,"reached":0,"fired":0,"crossed":["tool.commit"]}`)
		writeRec(t, dir, "k1-102.json", `{"runs":4,"faults":2,"reached":0,"fired":0,"crossed":["checkpoint.write","tool.commit"]}`)
		tgt := coord(t, dir)
		const want = "inconclusive: none of the 5 faults scheduled in 13 runs was reached, so no fault was tested; the events the system crossed: tool.commit, checkpoint.write (the sum of this process's runs and the records of 2 fuzzing worker processes, each written when a count first became nonzero, an event was first crossed, or the worker ended: at least these counts)"
		for range 2 {
			if err := tgt.Done(); err == nil || err.Error() != want {
				t.Fatalf("Done: %v", err)
			}
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("the directory is left: %v", err)
		}
	})
	t.Run("reached, not fired", func(t *testing.T) {
		dir := t.TempDir()
		writeRec(t, dir, "k1-101.json", `{"runs":2,"faults":2,"reached":2,"fired":0,"crossed":[]}`)
		tgt := coord(t, dir)
		// the archiver is on the model path: the advice names placements,
		// not adapters
		if err := tgt.Done(); err == nil || err.Error() != "inconclusive: 2 of the 2 faults scheduled in 2 runs were reached but none fired (at the crossings reached, the kinds' disturbances had nothing to act on), so no fault was tested; "+
			"place the kinds where they act (model.SingleFaults places each at its designed crossing) or add seed inputs that decode to such placements (the sum of this process's runs and the records of 1 fuzzing worker processes, each written when a count first became nonzero, an event was first crossed, or the worker ended: at least these counts)" {
			t.Fatalf("Done: %v", err)
		}
	})
	t.Run("no record", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "gone")
		tgt := coord(t, dir)
		if err := tgt.Done(); err == nil || err.Error() != "inconclusive: no input of this target ran in this process and no fuzzing worker left a record of one (in "+dir+", the directory FAULTLINE_FUZZ_TALLY names), so no fault was tested" {
			t.Fatalf("Done: %v", err)
		}
	})
	t.Run("own runs only", func(t *testing.T) {
		// a fuzz test that is not fuzzed runs its seeds in the coordinator
		tgt := coord(t, t.TempDir())
		_, empty, _, reached := archiverTarget(t)
		if err := tgt.Check(empty); err != nil {
			t.Fatal(err)
		}
		if err := tgt.Done(); err == nil || err.Error() != "inconclusive: the 1 runs scheduled no fault, so no fault was tested (add seed inputs that decode to faults); the events the system crossed: tool.commit, checkpoint.write, checkpoint.load, worker.start" {
			t.Fatalf("Done: %v", err)
		}
		tgt = coord(t, t.TempDir())
		if err := tgt.Check(reached); err != nil {
			t.Fatal(err)
		}
		if err := tgt.Done(); err != nil {
			t.Fatalf("Done: %v", err)
		}
	})
	for _, c := range []struct{ body, want string }{
		{`{"runs":1,"faults":1}x`, `trailing data after the JSON object`},
		{`{"runs":1,"extra":1}`, `unknown field "extra"`},
		{`{"runs":-1}`, `impossible counts -1 runs, 0 faults, 0 reached, 0 fired`},
		{`{"runs":1,"faults":1,"reached":2,"fired":0}`, `impossible counts 1 runs, 1 faults, 2 reached, 0 fired`},
		{`{"runs":1,"faults":1,"reached":1,"fired":2}`, `impossible counts 1 runs, 1 faults, 1 reached, 2 fired`},
		{`{"runs":1,"crossed":["tool.teleport"]}`, `unknown event "tool.teleport"`},
	} {
		dir := t.TempDir()
		writeRec(t, dir, "k1-7.json", c.body)
		want := "fuzz: fuzzing worker's record " + filepath.Join(dir, "k1-7.json") + ": " + c.want
		if err := coord(t, dir).Done(); err == nil || err.Error() != want {
			t.Errorf("record %s: %v, want %q", c.body, err, want)
		}
	}
}

// TestCoordinatorTallySetsTheEnvironment: the coordinator's first target
// makes a temporary directory and sets tallyEnv to its process id and
// that directory, for the workers to inherit; a later target of the
// process reuses it (made again when an earlier Done removed it); a value
// naming another process is replaced.
func TestCoordinatorTallySetsTheEnvironment(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	for _, v := range []string{"", "1:" + t.TempDir(), "garbage"} {
		t.Setenv(tallyEnv, v)
		a, err := newCoordinatorTally("k1")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(a.dir) })
		if got := os.Getenv(tallyEnv); got != pid+":"+a.dir || a.key != "k1" || a.dir == "" {
			t.Fatalf("from %q: %s=%q, tally %+v", v, tallyEnv, got, a)
		}
		if fi, err := os.Stat(a.dir); err != nil || !fi.IsDir() {
			t.Fatalf("tally directory: %v", err)
		}
		os.Remove(a.dir)
		b, err := newCoordinatorTally("k2")
		if err != nil {
			t.Fatal(err)
		}
		if b.dir != a.dir || os.Getenv(tallyEnv) != pid+":"+a.dir {
			t.Fatalf("second target's directory %s, first's %s", b.dir, a.dir)
		}
		if _, err := os.Stat(b.dir); err != nil {
			t.Fatalf("tally directory not made again: %v", err)
		}
	}
}

// TestTallyKeySeparatesTargets: the records' key is the same for two
// targets of one definition and options, and differs when the options
// change what an input means.
func TestTallyKeySeparatesTargets(t *testing.T) {
	key := func(opts ...Option) string {
		d, err := NewDecoder(archiver.Definition(), append([]Option{WithConfig(model.Config{System: json.RawMessage(`{}`)})}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return d.tallyKey()
	}
	base := key()
	if len(base) != 16 || key() != base {
		t.Fatalf("key %q, again %q", base, key())
	}
	for i, opts := range [][]Option{{WithScope("ordinals")}, {WithMaxFaults(2)}, {WithKinds("tool_timeout")}, {WithConfig(model.Config{System: archiver.Planted})}} {
		if k := key(opts...); k == base {
			t.Errorf("options %d: the same key %s", i, k)
		}
	}
}

// TestProcessRoleOfAPlainRun: a go test run without -fuzz runs every
// input in its own process.
func TestProcessRoleOfAPlainRun(t *testing.T) {
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		t.Skip("under -fuzz")
	}
	if r := processRole(); r != inProcess {
		t.Fatalf("role %d", r)
	}
	if len(allEvents) > 60 {
		t.Fatalf("%d events overlap the record signature's count bits", len(allEvents))
	}
}
