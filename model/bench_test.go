package model_test

import (
	"fmt"
	"iter"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// benchSchedule is the schedule both hot-path benchmarks run: the typed
// profile on the reference fixture with a timeout after the first commit
// (the provider commits, the reply is lost, the system reads back).
func benchSchedule(b testing.TB) (model.Factory, *model.Schedule) {
	b.Helper()
	s := &model.Schedule{Version: 1, Seed: "bench", Config: copperfin.ConfigOfProfile(copperfin.ProfileTyped),
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}}
	factory, err := copperfin.Configured(s.Config)
	if err != nil {
		b.Fatal(err)
	}
	return factory, s
}

// BenchmarkHarnessRun measures one full run (timeline, fault reports,
// invariant results, terms, run id): the path exploration, fuzzing and
// replay take.
func BenchmarkHarnessRun(b *testing.B) {
	factory, s := benchSchedule(b)
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := h.Run(factory, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHarnessTerms measures the same run returning only the outcome
// terms: the assay's path.
func BenchmarkHarnessTerms(b *testing.B) {
	factory, s := benchSchedule(b)
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := h.Terms(factory, s); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU starts counting the process's CPU time (user plus system, the
// collector's background work included) and returns the function that
// reports it as cpu-ns/op: on a machine shared with other work the CPU
// time a run costs is steadier than its wall time.
func reportCPU(b *testing.B) func() {
	c0, ok := processCPU()
	return func() {
		c1, _ := processCPU()
		if ok && b.N > 0 {
			b.ReportMetric(float64(c1-c0)/float64(b.N), "cpu-ns/op")
		}
	}
}

// taskFixture returns the reference fixture with n copies of its task, each
// on its own subject (its own record and capability): the workload whose
// cost should grow linearly in n.
func taskFixture(n int) model.Fixture {
	f := copperfin.Copperfin()
	f.Name = fmt.Sprintf("copperfin-x%d", n)
	rec, cp, task := f.Subjects[0], f.Capabilities[0], f.Tasks[0]
	f.Subjects, f.Capabilities, f.Tasks = f.Subjects[:0:0], f.Capabilities[:0:0], f.Tasks[:0:0]
	for i := range n {
		subject := fmt.Sprintf("S-%d", i+1)
		o, c, t := rec, cp, task
		o.ID = subject
		// the capability outlives the run, so every task does the same
		// work however late in the run it starts
		c.ID, c.Subject, c.Expiry = "CAP-"+subject, subject, 1<<40
		t.ID, t.Subject, t.Capability = "refund-"+subject, subject, c.ID
		f.Subjects, f.Capabilities, f.Tasks = append(f.Subjects, o), append(f.Capabilities, c), append(f.Tasks, t)
	}
	return f
}

// BenchmarkHarnessTasks measures one run over n copies of the reference
// task on distinct subjects under the typed profile, with a timeout after
// the first commit. scripts/task-slope.sh reads its output and reports the
// log-log slope of ns/op against n.
func BenchmarkHarnessTasks(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			factory, s := benchSchedule(b)
			h := model.NewHarness(taskFixture(n), model.Options{})
			res, err := h.Run(factory, s)
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Tasks) != n {
				b.Fatalf("the run judged %d tasks, want %d", len(res.Tasks), n)
			}
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if _, err := h.Run(factory, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBatchSequential and BenchmarkBatchConcurrent measure the
// three-task fixture under the typed profile run one task after another
// and as three concurrent workers under a seeded policy: the second pays
// for the scheduler's hand-offs (two goroutine switches a scheduling
// point) and the state swaps.
func BenchmarkBatchSequential(b *testing.B) { benchBatch(b, nil) }

func BenchmarkBatchConcurrent(b *testing.B) {
	benchBatch(b, &model.Concurrency{Workers: 3, Seed: "bench"})
}

func benchBatch(b *testing.B, c *model.Concurrency) {
	factory, s := benchSchedule(b)
	s.Config.Concurrency = c
	h := model.NewHarness(copperfin.CopperfinBatch(), model.Options{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Run(factory, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFleetWorkers measures one concurrent run against the number of
// workers N (10, 100, 1000), all started at once: on the fleet copperfin-
// fleet-N (the storm schedule, workers on clocks of their own: the timed
// picks), without and with a seed and with an explicit interleaving (round
// robin over the tasks), and on N copies of the reference task as N
// workers (the untimed picks), seeded and interleaved; seed-pool is the
// seeded run of N tasks on at most 100 workers (the same tasks, fewer live
// at once). scripts/task-slope.sh -workers reads its output and reports
// the log-log slopes of CPU time and bytes a run against N.
func BenchmarkFleetWorkers(b *testing.B) {
	for _, mode := range []string{"timed", "timed-seed", "timed-interleaving", "seed", "interleaving", "seed-pool"} {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("pick=%s/workers=%d", mode, n), func(b *testing.B) {
				h, factory, s := fleetWorkload(b, mode, n)
				res, err := h.Run(factory, s)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Tasks) != n || len(res.Interleaving) < n {
					b.Fatalf("the run judged %d tasks in %d picks, want %d tasks", len(res.Tasks), len(res.Interleaving), n)
				}
				b.ReportAllocs()
				defer reportCPU(b)()
				for b.Loop() {
					if _, err := h.Run(factory, s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// fleetWorkload is BenchmarkFleetWorkers' run of mode on n workers.
func fleetWorkload(b testing.TB, mode string, n int) (*model.Harness, model.Factory, *model.Schedule) {
	b.Helper()
	var c model.Concurrency
	c.Workers = n
	switch mode {
	case "timed-seed", "seed":
		c.Seed = "bench"
	case "seed-pool":
		c.Seed, c.Workers = "bench", min(n, 100)
	case "timed-interleaving", "interleaving":
		// round robin: at most points the named task is not ready (or, on
		// clocks of their own, not first), and the pick falls through
		for i := range min(model.MaxInterleaving, 40*n) {
			c.Interleaving = append(c.Interleaving, i%n+1)
		}
	}
	if mode == "seed" || mode == "interleaving" || mode == "seed-pool" {
		factory, s := benchSchedule(b)
		s.Config.Concurrency = &c
		return model.NewHarness(taskFixture(n), model.Options{}), factory, s
	}
	cs, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	fx := copperfin.CopperfinFleet(n)
	cfg := copperfin.ConfigOfControls(cs)
	cfg.Fixture = fx.Name
	s, err := copperfin.StormSchedule(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if mode != "timed" {
		s.Config.Concurrency = &c
	}
	return model.NewHarness(fx, model.Options{}), copperfin.Factory(cs), s
}

// BenchmarkHandoffFloor is BenchmarkFleetWorkers' floor: N coroutines
// (N = 100, 1000), each a few KB of stack deep, that a driver resumes
// round robin as the scheduler resumes its workers (iter.Pull), 30 times
// each, with no model work. Its slope against N is what the machine's
// caches charge for N live coroutines alone: a run on N workers can be no
// more linear than that. scripts/task-slope.sh -workers prints it beside
// the pick policies' slopes.
func BenchmarkHandoffFloor(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				handoffRound(n, 30, 40)
			}
		})
	}
}

// BenchmarkHandoffTouch is BenchmarkHandoffFloor with work between two
// switches: at each resume a coroutine writes a fresh stack frame of KB
// KiB (1, 2, 4, 8) below its switch point, as a worker's calls from a
// crossing to its next scheduling point write theirs. Its slopes against
// N (100, 1000) are what the machine's caches charge for that many bytes
// a worker touches between two of its picks, with no model state at all
// (scripts/task-slope.sh -workers prints them as the touch-KB rows).
func BenchmarkHandoffTouch(b *testing.B) {
	for _, kb := range []int{1, 2, 4, 8} {
		for _, n := range []int{100, 1000} {
			b.Run(fmt.Sprintf("kb=%d/workers=%d", kb, n), func(b *testing.B) {
				b.ReportAllocs()
				defer reportCPU(b)()
				for b.Loop() {
					handoffTouch(n, 30, 40, kb)
				}
			})
		}
	}
}

// handoffTouch is handoffRound whose coroutines write a frame of kb KiB
// at each resume (see BenchmarkHandoffTouch).
func handoffTouch(n, points, depth, kb int) {
	nexts := make([]func() (struct{}, bool), n)
	for i := range nexts {
		nexts[i], _ = iter.Pull(func(yield func(struct{}) bool) {
			stackDeep(depth, func() {
				for j := range points - 1 {
					touchFrame(kb, j)
					if !yield(struct{}{}) {
						return
					}
				}
			})
		})
	}
	for range points {
		for _, next := range nexts {
			next()
		}
	}
}

// touchFrame writes a stack frame of kb KiB (1, 2, 4 or 8): its array is
// zeroed whole, as a frame's locals are.
func touchFrame(kb, j int) byte {
	switch kb {
	case 1:
		return touch1(j)
	case 2:
		return touch2(j)
	case 4:
		return touch4(j)
	}
	return touch8(j)
}

//go:noinline
func touch1(j int) byte { var b [1 << 10]byte; b[j%len(b)] = 1; return b[(j*7)%len(b)] }

//go:noinline
func touch2(j int) byte { var b [2 << 10]byte; b[j%len(b)] = 1; return b[(j*7)%len(b)] }

//go:noinline
func touch4(j int) byte { var b [4 << 10]byte; b[j%len(b)] = 1; return b[(j*7)%len(b)] }

//go:noinline
func touch8(j int) byte { var b [8 << 10]byte; b[j%len(b)] = 1; return b[(j*7)%len(b)] }

// handoffRound runs n coroutines that a driver resumes round robin points
// times each, every coroutine depth frames deep when it switches back.
func handoffRound(n, points, depth int) {
	nexts := make([]func() (struct{}, bool), n)
	for i := range nexts {
		nexts[i], _ = iter.Pull(func(yield func(struct{}) bool) {
			stackDeep(depth, func() {
				for range points - 1 {
					if !yield(struct{}{}) {
						return
					}
				}
			})
		})
	}
	for range points {
		for _, next := range nexts {
			next()
		}
	}
}

// stackDeep calls f depth frames of 64 bytes deep.
//
//go:noinline
func stackDeep(depth int, f func()) byte {
	var pad [64]byte
	pad[depth%64] = byte(depth)
	if depth == 0 {
		f()
		return pad[0]
	}
	return stackDeep(depth-1, f) + pad[1]
}
