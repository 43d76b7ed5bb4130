package fuzz

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/faultline/faultline/internal/fileio"
	"github.com/faultline/faultline/internal/strictjson"
	"github.com/faultline/faultline/model"
)

// tallyEnv is the environment variable through which, under go test
// -fuzz, the targets of the fuzzing worker processes tell the target of
// the coordinating process what their inputs reached (see Target.Done).
// Its value is "PID:DIR": the coordinator's process id and the directory
// the workers write their records in. NewTarget sets it in the
// coordinator (a fresh temporary directory), before f.Fuzz starts the
// workers, which inherit it; Done in the coordinator reads the records
// and removes the directory. It is not meant to be set by hand: a value
// naming another process in the coordinator is replaced, and in a plain
// go test run it is ignored.
const tallyEnv = "FAULTLINE_FUZZ_TALLY"

// What go test -fuzz does (testing/fuzz.go, internal/fuzz): the
// coordinating process calls the fuzz test, whose f.Fuzz hands the seeds
// (f.Add's and testdata's) to worker processes without running any of
// them itself; the workers, the same test binary run with
// -test.fuzzworker and the coordinator's os.Environ() as it is when f.Fuzz
// starts them, call the same fuzz test and run every input, seeds
// included; f.Fuzz returns in the coordinator after every worker has
// exited, and then its f.Cleanup functions run. Workers are stopped by
// closing their input pipe, then by a signal, so a worker's own cleanup
// may never run: a worker writes its record when it learns something,
// not at its end only.

// role is what a target's process is to a fuzzing campaign.
type role int

const (
	// inProcess: a plain go test run (the seeds only) or a libFuzzer
	// build: every input runs in this process.
	inProcess role = iota
	// coordinator: the go test -fuzz process that starts the workers.
	coordinator
	// worker: a go test -fuzz worker process.
	worker
)

// processRole returns the role of this process, from the testing
// package's flags (absent outside a test binary).
func processRole() role {
	fz := flag.Lookup("test.fuzz")
	if fz == nil || fz.Value.String() == "" {
		return inProcess
	}
	if w := flag.Lookup("test.fuzzworker"); w != nil && w.Value.String() == "true" {
		return worker
	}
	return coordinator
}

// parseTally splits a tallyEnv value into its process id and directory.
func parseTally(v string) (int, string, bool) {
	p, dir, ok := strings.Cut(v, ":")
	pid, err := strconv.Atoi(p)
	if !ok || err != nil || pid <= 0 || dir == "" {
		return 0, "", false
	}
	return pid, dir, true
}

// tallyKey names the target's records: a hash of what decides what an
// input means (the definition's name, the config, the fixture, the scope,
// the kinds, the site table and the fault limit), known before the clean
// run, so that a coordinator that runs no input has it and the records of
// two targets do not mix.
func (d *Decoder) tallyKey() string {
	h := sha256.New()
	empty := &model.Schedule{Version: model.ScheduleVersion, Config: d.config, Faults: []model.FaultEntry{}}
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%t\x00%q\x00%d", d.def.Name, model.Format(empty), d.fixture.Name, d.scope, d.catalogue, d.kinds, d.maxFaults)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// tallyRecord is a worker's record: its target's counts when it was
// written (reachCounts).
type tallyRecord struct {
	Runs    int64             `json:"runs"`
	Faults  int64             `json:"faults"`
	Reached int64             `json:"reached"`
	Fired   int64             `json:"fired"`
	Crossed []model.EventName `json:"crossed"`
}

// The bits of a record's signature above the events' (reach.crossed):
// which counts are nonzero.
const (
	sigRuns uint64 = 1 << (60 + iota)
	sigFaults
	sigReached
	sigFired
)

// workerRecord is the record file of one key in a worker process, shared
// by the process's targets of that key.
type workerRecord struct {
	path string
	// sig: the signature written so far (the events crossed and which
	// counts are nonzero); a write happens only when it grows, or at Done
	sig atomic.Uint64
	mu  sync.Mutex
	rec tallyRecord // the largest counts written
	// writes counts the files written (for the tests)
	writes int
}

// workerRecords are the worker process's records by path.
var workerRecords sync.Map

// newWorkerRecord returns the record of key in this worker process, nil
// when the environment names no coordinator (tallyEnv unset or malformed,
// or naming this process): the coordinator then finds no record and its
// Done is inconclusive.
func newWorkerRecord(key string) *workerRecord {
	pid, dir, ok := parseTally(os.Getenv(tallyEnv))
	if !ok || pid == os.Getpid() {
		return nil
	}
	path := filepath.Join(dir, key+"-"+strconv.Itoa(os.Getpid())+".json")
	r, _ := workerRecords.LoadOrStore(path, &workerRecord{path: path})
	return r.(*workerRecord)
}

// signature returns c's signature.
func signature(c reachCounts) uint64 {
	var s uint64
	for _, ev := range c.Crossed {
		s |= eventBit[ev]
	}
	for _, b := range []struct {
		n   int64
		bit uint64
	}{{c.Runs, sigRuns}, {c.Faults, sigFaults}, {c.Reached, sigReached}, {c.Fired, sigFired}} {
		if b.n > 0 {
			s |= b.bit
		}
	}
	return s
}

// note writes the record when the target's reach since start shows
// something the record does not: a count first nonzero or an event first
// crossed. Otherwise it only loads the counters.
func (w *workerRecord) note(r *reach, start reachCounts) {
	sig := r.crossed.Load()
	for _, b := range []struct {
		n   int64
		bit uint64
	}{{r.runs.Load() - start.Runs, sigRuns}, {r.faults.Load() - start.Faults, sigFaults}, {r.reached.Load() - start.Reached, sigReached}, {r.fired.Load() - start.Fired, sigFired}} {
		if b.n > 0 {
			sig |= b.bit
		}
	}
	if sig&^w.sig.Load() == 0 {
		return
	}
	w.write(r.Counts().Since(start), false)
}

// write merges c into the record (the larger of each count, the union of
// the events) and writes it when that changed it, or when final and any
// count grew. Its file is written to a temporary name and renamed, so the
// coordinator never reads half a record. A write that fails leaves the
// coordinator without this worker's counts (its Done then errs on the
// side of inconclusive).
func (w *workerRecord) write(c reachCounts, final bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.rec
	merged := tallyRecord{Runs: max(old.Runs, c.Runs), Faults: max(old.Faults, c.Faults), Reached: max(old.Reached, c.Reached), Fired: max(old.Fired, c.Fired),
		Crossed: unionEvents(old.Crossed, c.Crossed)}
	sig := signature(reachCounts(merged))
	grew := merged.Runs != old.Runs || merged.Faults != old.Faults || merged.Reached != old.Reached || merged.Fired != old.Fired
	if sig == w.sig.Load() && (!final || !grew) {
		return
	}
	data, err := json.Marshal(merged)
	if err == nil {
		err = fileio.WriteAtomic(w.path, data)
	}
	if err != nil {
		// not retried at each input: at the next news, or at Done
		w.sig.Store(sig)
		return
	}
	w.rec = merged
	w.sig.Store(sig)
	w.writes++
}

// unionEvents returns the events of a and b in the order of allEvents.
func unionEvents(a, b []model.EventName) []model.EventName {
	var bits uint64
	for _, ev := range a {
		bits |= eventBit[ev]
	}
	for _, ev := range b {
		bits |= eventBit[ev]
	}
	return eventsOf(bits)
}

// eventsOf lists the events of bits (reach.crossed) in allEvents order.
func eventsOf(bits uint64) []model.EventName {
	var out []model.EventName
	for i, ev := range allEvents {
		if bits&(1<<i) != 0 {
			out = append(out, ev)
		}
	}
	return out
}

// coordinatorTally is where the coordinator's target finds its workers'
// records: the files of its key in dir.
type coordinatorTally struct {
	dir, key string
	once     sync.Once
	// the workers' counts summed, the number of records, a record's error
	sum   reachCounts
	files int
	err   error
}

// newCoordinatorTally returns the coordinator's tally of key: in the
// directory tallyEnv names when it names this process (another target of
// this process set it), else in a new temporary directory that it sets
// tallyEnv to, for the workers f.Fuzz starts to inherit.
func newCoordinatorTally(key string) (*coordinatorTally, error) {
	pid := os.Getpid()
	if p, dir, ok := parseTally(os.Getenv(tallyEnv)); ok && p == pid {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("fuzz: the fuzzing workers' tally directory: %w", err)
		}
		return &coordinatorTally{dir: dir, key: key}, nil
	}
	dir, err := os.MkdirTemp("", "faultline-fuzz-tally-")
	if err != nil {
		return nil, fmt.Errorf("fuzz: the fuzzing workers' tally directory: %w", err)
	}
	if err := os.Setenv(tallyEnv, strconv.Itoa(pid)+":"+dir); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("fuzz: setting %s: %w", tallyEnv, err)
	}
	return &coordinatorTally{dir: dir, key: key}, nil
}

// collect sums the workers' records of the tally's key, once: it reads
// and removes them, then removes the directory when no other key's
// records are left in it. A record that does not parse is an error naming
// its file.
func (c *coordinatorTally) collect() (reachCounts, int, error) {
	c.once.Do(func() {
		entries, err := os.ReadDir(c.dir)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err != nil {
			c.err = fmt.Errorf("fuzz: reading the fuzzing workers' records: %w", err)
			return
		}
		var bits uint64
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, c.key+"-") || !strings.HasSuffix(name, ".json") {
				continue
			}
			path := filepath.Join(c.dir, name)
			r, err := readRecord(path)
			if err != nil {
				c.err = err
				return
			}
			c.sum.Runs += r.Runs
			c.sum.Faults += r.Faults
			c.sum.Reached += r.Reached
			c.sum.Fired += r.Fired
			for _, ev := range r.Crossed {
				bits |= eventBit[ev]
			}
			c.files++
			os.Remove(path)
		}
		c.sum.Crossed = eventsOf(bits)
		os.Remove(c.dir) // fails, as it should, while other records are there
	})
	return c.sum, c.files, c.err
}

// readRecord reads a worker's record strictly: known fields, counts not
// negative, no more reached than scheduled nor fired than reached, known
// events.
func readRecord(path string) (tallyRecord, error) {
	var r tallyRecord
	// a record is a few counts and at most every event's name
	data, err := fileio.ReadFile(path, 64<<10)
	if err != nil {
		return r, fmt.Errorf("fuzz: reading a fuzzing worker's record: %w", err)
	}
	if err := strictjson.Decode(data, &r); err != nil {
		return r, fmt.Errorf("fuzz: fuzzing worker's record %s: %w", path, err)
	}
	if r.Runs < 0 || r.Faults < 0 || r.Reached < 0 || r.Fired < 0 || r.Reached > r.Faults || r.Fired > r.Reached {
		return r, fmt.Errorf("fuzz: fuzzing worker's record %s: impossible counts %d runs, %d faults, %d reached, %d fired", path, r.Runs, r.Faults, r.Reached, r.Fired)
	}
	for _, ev := range r.Crossed {
		if eventBit[ev] == 0 {
			return r, fmt.Errorf("fuzz: fuzzing worker's record %s: unknown event %q", path, ev)
		}
	}
	return r, nil
}

// plus returns c with o's counts added and o's events joined.
func (c reachCounts) plus(o reachCounts) reachCounts {
	return reachCounts{Runs: c.Runs + o.Runs, Faults: c.Faults + o.Faults, Reached: c.Reached + o.Reached, Fired: c.Fired + o.Fired,
		Crossed: unionEvents(c.Crossed, o.Crossed)}
}
