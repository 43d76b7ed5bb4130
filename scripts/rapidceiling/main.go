// Command rapidceiling measures faultline's exploration against rapid's own
// ceiling on the same machine: checks per second of properties.Explore (the
// default of faultline explore's random phase, without its walk: the
// reference system under the typed profile, the one-refund workload,
// without swarm draws; then with them, and guided) against checks per second
// of a bare rapid state machine of a ledger, with a commit action (a key
// and an amount, refused when the key was committed before) and a readback
// action (a key, checked against the model), rapid's default 30 steps a
// check. Both run in this process, one after the other, -rounds times each
// (the median is reported), with the same number of checks and no
// counterexample, under the collector setting of faultline explore
// (GOGC cli.ExploreGCPercent, unless the environment sets GOGC); it
// prints checks per wall-clock second and per CPU second (user plus
// system, of this process) and the ratio explore/rapid.
//
// Usage (scripts/rapid-ceiling.sh runs it):
//
//	go run ./scripts/rapidceiling [-checks 20000] [-rounds 3]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/cli"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

var profile string

func main() {
	checks := flag.Int("checks", 20000, "checks of each measurement")
	rounds := flag.Int("rounds", 3, "measurements of each (the median is reported)")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the default exploration's measurements to this file")
	testing.Init() // rapid consults testing.Short, which needs the test flags parsed
	flag.Parse()
	profile = *prof
	if err := run(*checks, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "rapidceiling:", err)
		os.Exit(2)
	}
}

// measurement is one timed run: wall-clock and CPU seconds.
type measurement struct{ wall, cpu float64 }

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func timed(f func() error) (measurement, error) {
	c0, t0 := cpuSeconds(), time.Now()
	err := f()
	return measurement{time.Since(t0).Seconds(), cpuSeconds() - c0}, err
}

func run(checks, rounds int) error {
	for name, v := range map[string]string{"rapid.checks": strconv.Itoa(checks), "rapid.nofailfile": "true", "rapid.seed": "1", "rapid.steps": "30"} {
		if err := flag.Set(name, v); err != nil {
			return err
		}
	}
	// both run under the collector setting faultline explore runs its
	// checks with (cli.ExploreGCPercent), unless GOGC sets one
	collector := "GOGC " + os.Getenv("GOGC") + " (the environment's) for both"
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(cli.ExploreGCPercent))
		collector = "GOGC " + strconv.Itoa(cli.ExploreGCPercent) + " (faultline explore's) for both"
	}
	explore := func(opts ...properties.Option) func() error {
		return func() error {
			// the checks alone: no walk phase before them
			rep, err := properties.Explore(copperfin.Definition(), append([]properties.Option{properties.WithConfig(copperfin.ConfigOfProfile(copperfin.ProfileTyped)),
				properties.WithMaxSchedules(0)}, opts...)...)
			if err == nil && (rep.Found || rep.Checks != checks) {
				err = fmt.Errorf("explore: found %t after %d checks", rep.Found, rep.Checks)
			}
			return err
		}
	}
	runs := []struct {
		name string
		f    func() error
		ms   []measurement
	}{
		{name: "rapid state machine (ledger, 30 steps)", f: func() error { return ledgerMachine(checks) }},
		{name: "explore (typed, copperfin)", f: explore()},
		{name: "explore --swarm", f: explore(properties.WithSwarm())},
		{name: "explore --guided (no swarm)", f: explore(properties.WithGuide(1, nil))},
	}
	for r := 0; r < rounds; r++ {
		for i := range runs {
			f := runs[i].f
			if i == 1 && profile != "" {
				f = profiled(f)
			}
			m, err := timed(f)
			if err != nil {
				return err
			}
			runs[i].ms = append(runs[i].ms, m)
		}
	}
	fmt.Printf("checks: %d a measurement, median of %d rounds, %s\n", checks, rounds, collector)
	ceil := median(runs[0].ms)
	for _, r := range runs {
		m := median(r.ms)
		fmt.Printf("%-40s %8.0f checks/s wall %8.0f checks/s cpu   %.2fx of rapid wall, %.2fx cpu\n", r.name,
			float64(checks)/m.wall, float64(checks)/m.cpu, ceil.wall/m.wall, ceil.cpu/m.cpu)
	}
	return nil
}

func median(ms []measurement) measurement {
	w, c := make([]float64, len(ms)), make([]float64, len(ms))
	for i, m := range ms {
		w[i], c[i] = m.wall, m.cpu
	}
	slices.Sort(w)
	slices.Sort(c)
	return measurement{w[len(w)/2], c[len(c)/2]}
}

// ledger is the state machine's system and model: committed amounts by
// key, as a provider's ledger holds them.
type ledger struct {
	effects map[string]int
	model   map[string]int
}

// ledgerMachine checks the ledger state machine for rapid's checks.
func ledgerMachine(checks int) error {
	tb := &quiet{}
	func() {
		defer func() {
			if p := recover(); p != nil && p != errStop {
				panic(p)
			}
		}()
		rapid.Check(tb, func(t *rapid.T) {
			l := &ledger{effects: map[string]int{}, model: map[string]int{}}
			keys := rapid.SampledFrom([]string{"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"})
			t.Repeat(map[string]func(*rapid.T){
				"commit": func(t *rapid.T) {
					k, amt := keys.Draw(t, "key"), rapid.IntRange(1, 10000).Draw(t, "amount")
					if _, done := l.effects[k]; done {
						return // idempotent: a key commits once
					}
					l.effects[k] = amt
					l.model[k] = amt
				},
				"readback": func(t *rapid.T) {
					k := keys.Draw(t, "key")
					if l.effects[k] != l.model[k] {
						t.Fatalf("readback of %s: %d, model %d", k, l.effects[k], l.model[k])
					}
				},
				"": func(t *rapid.T) {
					if len(l.effects) != len(l.model) {
						t.Fatalf("%d effects, model %d", len(l.effects), len(l.model))
					}
				},
			})
		})
	}()
	if tb.failed {
		return fmt.Errorf("the ledger state machine failed: %v", tb.msgs)
	}
	return nil
}

var errStop = fmt.Errorf("stop")

// quiet is the rapid.TB the state machine runs under.
type quiet struct {
	failed bool
	msgs   []string
}

func (q *quiet) Helper()             {}
func (q *quiet) Name() string        { return "rapid-ceiling" }
func (q *quiet) Logf(string, ...any) {}
func (q *quiet) Log(...any)          {}
func (q *quiet) Errorf(f string, a ...any) {
	q.failed = true
	q.msgs = append(q.msgs, fmt.Sprintf(f, a...))
}
func (q *quiet) Error(a ...any)            { q.Errorf("%s", fmt.Sprint(a...)) }
func (q *quiet) Fatalf(f string, a ...any) { q.Errorf(f, a...); q.FailNow() }
func (q *quiet) Fatal(a ...any)            { q.Fatalf("%s", fmt.Sprint(a...)) }
func (q *quiet) FailNow()                  { q.failed = true; panic(errStop) }
func (q *quiet) Fail()                     { q.failed = true }
func (q *quiet) Failed() bool              { return q.failed }
func (q *quiet) Skip(...any)               { panic(errStop) }
func (q *quiet) Skipf(string, ...any)      { panic(errStop) }
func (q *quiet) SkipNow()                  { panic(errStop) }

// profiled runs f under the CPU profiler, writing to profile.
func profiled(f func() error) func() error {
	return func() error {
		out, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
		return f()
	}
}
