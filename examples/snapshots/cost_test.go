package snapshots_test

// The cost of checking the janitor beside a bare run of it: the same
// code (app.Janitor's sweep of every volume of the fixture) in the same
// kind of testing/synctest bubble over the same World (the service, a
// SQLite file with synchronous(off) and an in-memory journal), with its
// clients bare or wrapped by the adapters. scripts/production-cost.sh
// prints the table (docs/production.md); BenchmarkCost is the pair.

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/faultline/faultline/examples/snapshots"
	"github.com/faultline/faultline/examples/snapshots/app"
	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// costEnv, when set to a number N, makes TestCost measure N runs of each
// kind (scripts/production-cost.sh sets it).
const costEnv = "SNAPSHOTS_COST_RUNS"

// bareSweep runs the janitor over every task of the fixture with its
// clients unwrapped: no Env, no crossing, no oracle. With lose, the reply
// to the run's first deletion is lost after the service made it (a
// context.DeadlineExceeded), by hand: the bare run then makes the same
// retries as a check with timeout_after_commit at tool.commit#1.
func bareSweep(ctx context.Context, w *snapshots.World, lose bool) error {
	var mw []mcp.Middleware
	if lose {
		lost := false
		mw = append(mw, func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if p, ok := req.GetParams().(*mcp.CallToolParams); ok && method == "tools/call" && p.Name == app.Tool && !lost {
					lost = true
					return nil, context.DeadlineExceeded
				}
				return res, err
			}
		})
	}
	for _, task := range snapshots.Fixture().Tasks {
		session, done, err := w.Service().Connect(ctx, mcp.NewClient(&mcp.Implementation{Name: task.Actor}, nil), mw...)
		if err != nil {
			return err
		}
		db := sql.OpenDB(w.Checkpoints())
		_, err = app.New(&http.Client{Transport: httpfault.InProcess(w.Service().Inventory())}, snapshots.BaseURL, session, db, w.Options).Sweep(ctx, task.Subject)
		db.Close()
		done()
		if err != nil {
			return err
		}
	}
	return nil
}

// cleanSchedule is a fault-free check's schedule.
var cleanSchedule = &model.Schedule{Version: model.ScheduleVersion, Seed: "clean", Faults: []model.FaultEntry{}}

// measure runs f n times, each in a bubble of t, and returns the CPU
// time (user and system, this process) and the wall time per run.
func measure(t *testing.T, n int, f func(t *testing.T)) (cpu, wall time.Duration) {
	c0, w0 := processCPU(t), time.Now()
	for range n {
		synctest.Test(t, f)
	}
	return (processCPU(t) - c0) / time.Duration(n), time.Since(w0) / time.Duration(n)
}

// pair measures a and b over n runs each, in alternating blocks of ten,
// so that the machine's other load falls on both alike, and returns
// their CPU and wall time per run.
func pair(t *testing.T, n int, a, b func(t *testing.T)) (aCPU, aWall, bCPU, bWall time.Duration) {
	blocks := max(n/10, 1)
	for range blocks {
		c, w := measure(t, 10, a)
		aCPU, aWall = aCPU+c, aWall+w
		c, w = measure(t, 10, b)
		bCPU, bWall = bCPU+c, bWall+w
	}
	k := time.Duration(blocks)
	return aCPU / k, aWall / k, bCPU / k, bWall / k
}

func processCPU(t *testing.T) time.Duration {
	c := rusageCPU()
	if c < 0 {
		t.Fatal("getrusage failed")
	}
	return c
}

// rusageCPU is the CPU time (user and system) this process has used, -1
// when it cannot be read.
func rusageCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCost measures, under SNAPSHOTS_COST_RUNS=N, N bare runs, N
// fault-free checks (one harness run each, the adapters wrapping the
// clients), N one-fault checks (each kind at its place, in turn), N checks
// with a lost reply beside N bare runs losing it by hand, and one
// properties.Check of N random checks after its walk, and logs their CPU
// and wall time per run; Check logs its runs of the system.
func TestCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(costEnv))
	if n <= 0 {
		t.Skip("scripts/production-cost.sh runs it, with " + costEnv + "=N")
	}
	dir := t.TempDir()
	def := definition(t)
	bare := func(t *testing.T) {
		if err := bareSweep(t.Context(), snapshots.NewWorld(dir, app.Options{}), false); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T) {
		res, err := def.Run(cleanSchedule, model.Options{})
		if err != nil || !res.Held() {
			t.Fatalf("a fault-free check: %v %v", err, res.Err())
		}
	}
	pair(t, 10, bare, check) // warm up
	bareCPU, bareWall, checkCPU, checkWall := pair(t, n, bare, check)
	t.Logf("cost: bare run: cpu %.3f ms, wall %.3f ms", ms(bareCPU), ms(bareWall))
	t.Logf("cost: fault-free check: cpu %.3f ms, wall %.3f ms; ratio %.2f cpu, %.2f wall", ms(checkCPU), ms(checkWall),
		float64(checkCPU)/float64(bareCPU), float64(checkWall)/float64(bareWall))
	// one check of each single fault at its place: the janitor's retries
	// after it are part of the run (a bare run has none to make)
	var p *model.Placements
	var err error
	synctest.Test(t, func(*testing.T) { p, err = model.SingleFaults(def, "", snapshots.Config(false), kinds...) })
	if err != nil {
		t.Fatal(err)
	}
	var oneCPU, oneWall time.Duration
	for _, sched := range p.Schedules {
		c, w := measure(t, max(n/len(p.Schedules), 1), func(t *testing.T) {
			if _, err := def.Run(sched, model.Options{}); err != nil {
				t.Fatal(err)
			}
		})
		oneCPU, oneWall = oneCPU+c, oneWall+w
	}
	oneCPU, oneWall = oneCPU/time.Duration(len(p.Schedules)), oneWall/time.Duration(len(p.Schedules))
	t.Logf("cost: one-fault check: cpu %.3f ms, wall %.3f ms; ratio %.2f cpu, %.2f wall (%d kinds)", ms(oneCPU), ms(oneWall),
		float64(oneCPU)/float64(bareCPU), float64(oneWall)/float64(bareWall), len(p.Schedules))
	// a check with a lost reply, against a bare run that loses the same
	// reply by hand and so makes the same retries
	lostSched := &model.Schedule{Version: model.ScheduleVersion, Seed: "lost",
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}}}
	lbCPU, lbWall, lcCPU, lcWall := pair(t, n, func(t *testing.T) {
		if err := bareSweep(t.Context(), snapshots.NewWorld(dir, app.Options{}), true); err != nil {
			t.Fatal(err)
		}
	}, func(t *testing.T) {
		res, err := def.Run(lostSched, model.Options{})
		if err != nil || !res.Held() || res.Faults[0].Fired != 1 {
			t.Fatalf("a check with a lost reply: %v %v", err, res.Err())
		}
	})
	t.Logf("cost: bare run, reply lost by hand: cpu %.3f ms, wall %.3f ms", ms(lbCPU), ms(lbWall))
	t.Logf("cost: check with timeout_after_commit: cpu %.3f ms, wall %.3f ms; ratio %.2f cpu, %.2f wall (the same retries)", ms(lcCPU), ms(lcWall),
		float64(lcCPU)/float64(lbCPU), float64(lcWall)/float64(lbWall))
	c0, w0 := processCPU(t), time.Now()
	t.Run("check", func(t *testing.T) {
		properties.Check(t, def, properties.WithKinds(kinds...), properties.WithSeed(1), properties.WithChecks(n))
	})
	t.Logf("cost: properties.Check: cpu %.1f ms, wall %.1f ms", ms(processCPU(t)-c0), ms(time.Since(w0)))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkCost is the pair behind TestCost's ratio, outside a bubble
// (testing/synctest takes a *testing.T; a fault-free sweep never
// sleeps): a bare run of the janitor, and a fault-free check of it (one
// harness run, the adapters wrapping its clients), each over a fresh
// World. cpu-ns/op is the process's CPU time (user and system) a run,
// which the machine's other load moves less than ns/op.
func BenchmarkCost(b *testing.B) {
	dir := b.TempDir()
	def := definition(b)
	for _, bc := range []struct {
		name string
		run  func() error
	}{
		{"bare", func() error { return bareSweep(b.Context(), snapshots.NewWorld(dir, app.Options{}), false) }},
		{"check", func() error {
			res, err := def.Run(cleanSchedule, model.Options{})
			if err == nil && !res.Held() {
				err = res.Err()
			}
			return err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := rusageCPU()
			for b.Loop() {
				if err := bc.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rusageCPU()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}
