package cli

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/internal/catalog"
	"github.com/faultline/faultline/internal/outflag"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/otelrun"
	"github.com/faultline/faultline/properties"
)

// Bounds of explore's count flags, named in their errors.
const (
	// maxChecks bounds explore --checks.
	maxChecks = 100_000_000
	// maxFaultsLimit bounds explore --max-faults (the exploration's own
	// limit).
	maxFaultsLimit = 16
)

// exploreJSON is the --json output of explore.
type exploreJSON struct {
	Found           bool `json:"found"`
	Checks          int  `json:"checks"`
	ChecksToFailure int  `json:"checks_to_failure"`
	// Faults counts the faults the checks scheduled, FaultsReached those
	// their runs reached, FaultsFired those of them that fired and
	// FaultsNotReached the rest
	Faults           int          `json:"faults"`
	FaultsReached    int          `json:"faults_reached"`
	FaultsFired      int          `json:"faults_fired"`
	FaultsNotReached int          `json:"faults_not_reached"`
	Seed             uint64       `json:"seed"`
	Config           model.Config `json:"config"`
	cxJSON
	// Otel is the trace file --otel wrote for the counterexample
	Otel string `json:"otel,omitempty"`
	// with --shard I/N: I, N and the run's --checks (checks is then the
	// shard's own checks run, checks_to_failure the index in the run)
	Shard     int `json:"shard,omitempty"`
	Shards    int `json:"shards,omitempty"`
	RunChecks int `json:"run_checks,omitempty"`
	// with --guided: the reachable keys this exploration's runs visited,
	// and with --coverage-in those and the input's together
	Guided            bool `json:"guided,omitempty"`
	KeysVisited       *int `json:"keys_visited,omitempty"`
	KeysVisitedWithIn *int `json:"keys_visited_with_input,omitempty"`
	KeysReachable     *int `json:"keys_reachable,omitempty"`
	// Walk is the walk phase before the random checks (absent with
	// --max-schedules 0)
	Walk *walkJSON `json:"walk,omitempty"`
}

// guidedSummary is what --guided adds to the output: the reachable keys
// the exploration's runs visited, and with --coverage-in the keys visited
// by those runs and the input's together (-1 without an input).
type guidedSummary struct {
	runs, visited, withIn, reachable int
}

func (p *Program) exploreCmd() *cobra.Command {
	var so systemOptions
	var fixture, out, covFile, covIn, otelDir, shardFlag string
	var checks, maxFaults, workers int
	var seed uint64
	var asJSON, noWorld, swarm, guided, notices bool
	var kinds, domains []string
	var exh exhaustiveFlags
	var ofmt *outflag.Flag
	flags := p.systemFlags()
	c := &cobra.Command{
		Use:   "explore",
		Short: "Explore ordered fault compositions against a registered system with rapid",
		Long: `Explore draws schedules of one to --max-faults faults and world events (clock
advance, capability revocation, policy change, state-version change, worker
crash) across the whole fault catalogue, runs each against the system with
every invariant in scope checked after every crossing, and on the first
violation shrinks the schedule (rapid, then a fault-aware reduction) to a
1-minimal counterexample: removing any one fault, or moving one to an earlier
ordinal, makes the violation disappear.

Before its draws it walks every schedule of at most two faults (fewer with
--max-faults 1), smallest first, as --exhaustive does, cut at --max-schedules
schedules (default 20000; 0: no walk): a counterexample it finds is printed as
"counterexample at schedule N of the walk" and no check runs; otherwise its
line comes first ("walk: every one of N schedules of <= 2 faults" or "walk: M
of N schedules of <= 2 faults; cut by the budget", which proves nothing).
--shard runs no walk.

It prints "no counterexample in N checks" or the counterexample: the violated
invariant, the first crossing after which it was false, the fault that reached
it, the minimal schedule (which replay accepts) and its timeline. --out DIR
writes the schedule file and a counterexample file there. --json prints one
object with found, invariant, checks_to_failure and schedule.

--fixture picks one of the system's fixtures (default: its first) and --config
JSON sets the config's system part (default {}, the system's own default).

Without --seed the seed is drawn at random and printed; the same --seed and
--checks give the same result. Check k (0-based) draws its schedule from the
seed and k alone, so it is the same schedule in any run of that seed.

--shard I/N (1 <= I <= N <= 10000; needs --seed, and --checks at least N) runs
shard I of the run: only the checks whose 0-based index k has k mod N = I-1,
each as the whole run draws it. The N shards of one --seed and --checks run
exactly the checks of one run: their --coverage files merged (coverage merge)
are that run's file when none finds a counterexample, and a counterexample the
run finds at check k is found by the shard owning k, with the same minimal
schedule. A shard goes on past another shard's counterexample, so the run's
verdict is the shards' counterexample of the least checks_to_failure (the
index in the whole run; "checks" is then the shard's own count), or none.
--guided does not apply to a shard.

--coverage FILE (or FAULTLINE_COVERAGE=FILE) merges the coverage keys of every
run into FILE: the checks, rapid's shrinking and the reduction. --guided biases
each drawn fault, three times in four, toward the kinds whose coverage key has
the fewest visits so far (in --coverage-in FILE, when given, and in this
exploration's runs), with --seed seeding the tie-breaks too; it prints how many
reachable keys the runs visited. The same --seed, --checks and input file give
the same result.

The output counts the scheduled faults the checks reached and those they
did not, and how many of those reached fired ("faults: R of N scheduled
reached (F fired), U not reached"); --json gives them as faults,
faults_reached, faults_fired and faults_not_reached.

--otel DIR writes each counterexample as an OpenTelemetry trace into DIR
(created when missing), in the OTLP/JSON file format (see docs/traces.md):
the counterexample's minimal schedule is run again, as replay runs it, and
its trace written as DIR/RUN_ID.otlp.json, the file "replay --otel" writes for
the same schedule. The output names the file ("trace: FILE"; --json: otel).
Without a counterexample nothing is written.

When stderr is a terminal (and without --json), a progress line on stderr
shows the checks done of --checks, the rate, the counterexamples so far and
the time left; it is cleared before the output. Nothing of it is written to
a pipe or a file.

--notices has the provider send its asynchronous notices in every run (the
schedule's "harness": {"notices": true}) and adds the four kinds of its
notices (late_notice, reordered_notice, redelivered_notice, lost_notice) to
the kinds in scope, drawn at the system's notice.receive crossings, with
recorded_agrees_with_ledger in scope. Naming a notice kind in --kinds turns
the notices on as well (and draws only the kinds named). A system that never
reads its notices crosses no notice.receive: a scope of notice kinds alone
then reaches no fault and the exploration is inconclusive (exit 3). Without
either, the draws are those of runs without notices.

--checks is at most 100000000 and --max-faults at most 16. A list flag
(--kinds, --domains) given empty is bad input: leave it out to mean every
kind.

Exit codes: 0 no counterexample and at least one scheduled fault reached
and fired; 1 a counterexample was found; 2 bad input (a flag, a config that
does not apply to the system, production code: a Definition with a Clock,
which runs only in a test, through properties.Check); 3 inconclusive: no scheduled fault was reached
in any check (the events the system crossed are named on stderr), or none of
those reached fired; 4 an I/O or internal error (--out, --coverage or --otel
could not be written, the output could not be written), or a system that is
not deterministic (a run made again to confirm the counterexample differed).` + exhaustiveHelp,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			format, err := ofmt.Format(c)
			if err != nil {
				return BadInput("%v", err)
			}
			asJSON = format == "json"
			def := p.Systems[0]
			if so.system != "" {
				if def, err = p.system(so.system); err != nil {
					return err
				}
			}
			if err := runnable(def); err != nil {
				return err
			}
			var cfg model.Config
			sys, err := so.systemPart(c)
			if err != nil {
				return err
			}
			cfg.System = sys
			if sf := flags[def.Name]; sf != nil {
				if cfg, _, err = sf.Apply(c, "explore", cfg); err == ErrDone {
					return nil
				} else if err != nil {
					return err
				}
			}
			fx, err := def.Fixture(fixture)
			if err != nil {
				return BadInput("--fixture: %v", err)
			}
			cfg.Fixture = fx.Name
			if notices || slices.ContainsFunc(kinds, isNoticeKind) {
				cfg.Notices = true // the notice kinds' event exists only when the provider sends notices
			}
			if c.Flags().Changed("concurrent") {
				if err := CheckCount("concurrent", workers, 1, model.MaxWorkers); err != nil {
					return err
				}
				if n := len(fx.Tasks); workers > n || n < 2 {
					return BadInput("--concurrent %d: fixture %s has %d task(s), so %d concurrent workers have nothing to interleave: give at most as many workers as tasks, on a fixture of two tasks or more", workers, fx.Name, n, workers)
				}
				cfg.Concurrency = &model.Concurrency{Workers: workers}
			}
			if err := CheckCount("checks", checks, 1, maxChecks); err != nil {
				return err
			}
			opts := []properties.Option{properties.WithConfig(cfg), properties.WithFixture(fx.Name),
				properties.WithReplayCommand(p.replayCommand(def))}
			if c.Flags().Changed("max-faults") {
				if err := CheckCount("max-faults", maxFaults, 1, maxFaultsLimit); err != nil {
					return err
				}
				opts = append(opts, properties.WithMaxFaults(maxFaults))
			}
			if err := checkKinds(def, kinds, domains); err != nil {
				return err
			}
			if len(kinds) > 0 {
				opts = append(opts, properties.WithKinds(kinds...))
			}
			if len(domains) > 0 {
				ds := make([]model.Domain, len(domains))
				for i, d := range domains {
					ds[i] = model.Domain(d)
				}
				opts = append(opts, properties.WithDomains(ds...))
			}
			if notices {
				opts = append(opts, properties.WithNotices())
			}
			if noWorld {
				opts = append(opts, properties.WithoutWorldEvents())
			}
			if swarm {
				opts = append(opts, properties.WithSwarm())
			}
			if out != "" {
				opts = append(opts, properties.WithFailDir(out))
			}
			for _, o := range [][2]string{{"--out", out}, {"--otel", otelDir}} {
				if o[1] != "" {
					if err := writableDir(o[0], o[1]); err != nil {
						return err
					}
				}
			}
			if v := os.Getenv(CoverageEnv); exh.on && !c.Flags().Changed("coverage") && v != "" {
				return BadInput("%s=%s does not apply to --exhaustive, which records no coverage: unset %s for this command", CoverageEnv, v, CoverageEnv)
			}
			if err := CheckCoverageFile(coverageFlag(covFile), CoveragePath(covFile)); err != nil {
				return err
			}
			shard, shards := 0, 0
			if c.Flags().Changed("shard") {
				if shard, shards, err = properties.ParseShard(shardFlag); err != nil {
					return BadInput("--shard: %v", err)
				}
				opts = append(opts, properties.WithShard(shard, shards))
			}
			if exhOpts, err := exh.options(c); err != nil {
				return err
			} else if exh.on {
				return runExhaustive(c, def, cfg, append(opts, exhOpts...), asJSON, otelDir)
			} else {
				opts = append(opts, exhOpts...)
			}
			var prior *coverage.Data
			if covIn != "" {
				if !guided {
					return BadInput("--coverage-in needs --guided")
				}
				if prior, err = readCoverage(covIn); err != nil {
					var ee *ExitError
					if errors.As(err, &ee) {
						return &ExitError{Code: ee.Code, Err: fmt.Errorf("--coverage-in: %w", ee.Err)}
					}
					return err
				}
			}
			tracker, err := p.tracker(def)
			if err != nil {
				return err
			}
			covPath := CoveragePath(covFile)
			if covPath != "" || guided {
				opts = append(opts, properties.WithCoverage(tracker))
			}
			if shards > checks {
				return BadInput("--shard %s: %d shards of --checks %d leave shard %d without checks: give at least as many checks as shards", shardFlag, shards, checks, shard)
			}
			if shards > 0 && guided {
				return BadInput("--guided does not apply to --shard: the guide's choices depend on every check before, which other shards run")
			}
			if shards > 0 && !c.Flags().Changed("seed") {
				return BadInput("--shard needs --seed: every shard of a run explores under the run's one seed")
			}
			if c.Flags().Changed("seed") && seed == 0 {
				return BadInput("--seed 0 is rapid's random seed: give a nonzero seed, or leave --seed out to draw one")
			}
			if !c.Flags().Changed("seed") {
				var b [8]byte
				if _, err := rand.Read(b[:]); err != nil {
					return err
				}
				seed = binary.LittleEndian.Uint64(b[:])>>1 | 1
			}
			if guided {
				opts = append(opts, properties.WithGuide(seed, prior))
			}
			bar := progressBar(c.ErrOrStderr(), asJSON, checks, "checks", "counterexamples")
			if bar != nil {
				opts = append(opts, properties.WithProgress(bar.Update))
			}
			rep, err := runExplore(marking(def), opts, checks, seed)
			if bar != nil {
				bar.Finish()
			}
			if err != nil {
				return exploreError(def, err)
			}
			var sum *guidedSummary
			if guided {
				sum = summarize(tracker.Data(), prior)
			}
			// a coverage failure never hides a counterexample: it goes
			// beside it, and the exit code is the counterexample's
			covErrs := []error{rep.CoverageErr}
			if err := FlushCoverage(tracker, covPath); err != nil && !rep.Found {
				return err
			} else if err != nil {
				covErrs = append(covErrs, err)
			}
			var trace string
			if otelDir != "" && rep.Found {
				if trace, err = writeTrace(def, otelDir, rep.Counterexample); err != nil {
					return err
				}
			}
			if asJSON {
				err = writeExploreJSON(c.OutOrStdout(), rep, cfg, seed, checks, sum, trace)
			} else {
				err = writeExplore(c.OutOrStdout(), def, rep, cfg, seed, checks, sum, trace)
			}
			if err != nil {
				return OutputError(err)
			}
			if rep.Found {
				for _, err := range covErrs {
					if err != nil {
						fmt.Fprintf(c.ErrOrStderr(), "%s: %v (recording coverage failed; the counterexample above stands, exit 1)\n", p.name(), err)
					}
				}
				return ErrViolation
			}
			if rep.Inconclusive() {
				return Inconclusive("%s", rep.InconclusiveMessage())
			}
			return nil
		},
	}
	so.add(p, c, "explore")
	addSystemFlags(c, "explore", flags, p.systemNames())
	fixtures := make([]string, 0, len(p.Systems))
	for _, d := range p.Systems {
		for _, f := range d.Fixtures {
			fixtures = append(fixtures, f.Name)
		}
	}
	c.Flags().StringVar(&fixture, "fixture", "", "workload, one of the system's fixtures: "+strings.Join(fixtures, ", ")+" (default: the system's first)")
	c.Flags().IntVar(&checks, "checks", 100, "number of schedules to draw and run (1 to 100000000)")
	c.Flags().Uint64Var(&seed, "seed", 0, "the run's seed, nonzero (default: random, printed)")
	c.Flags().StringVar(&shardFlag, "shard", "", "run shard I of N (I/N, N at most 10000) of the run's checks: those whose 0-based index is I-1 mod N; needs --seed")
	c.Flags().IntVar(&maxFaults, "max-faults", 3, "most faults and world events in one schedule (1 to 16)")
	c.Flags().IntVar(&workers, "concurrent", 0, "run the tasks as this many concurrent workers (1 to 1000) and draw interleavings with the faults (default: one task after another)")
	c.Flags().StringSliceVar(&kinds, "kinds", nil, "only these fault kinds and world events, comma-separated")
	c.Flags().StringSliceVar(&domains, "domains", nil, "only kinds of these fault domains, comma-separated")
	c.Flags().BoolVar(&notices, "notices", false, "have the provider send its asynchronous notices and add the four kinds of its notices (late_notice, reordered_notice, redelivered_notice, lost_notice) to the kinds in scope")
	c.Flags().BoolVar(&noWorld, "no-world", false, "draw no world events, only catalogue faults")
	c.Flags().BoolVar(&swarm, "swarm", false, "swarm draws: each check from a subset of the kinds and sites in scope, --max-faults entries three times in four (default: every kind and site, one to --max-faults entries evenly)")
	c.Flags().StringVar(&out, "out", "", "write the counterexample's schedule file and record to this directory")
	c.Flags().StringVar(&covFile, "coverage", "", "merge every run's coverage into this file (default $"+CoverageEnv+")")
	c.Flags().BoolVar(&guided, "guided", false, "bias fault choice toward coverage keys not yet visited")
	c.Flags().StringVar(&covIn, "coverage-in", "", "with --guided: count the visits recorded in this coverage file as already made")
	c.Flags().StringVar(&otelDir, "otel", "", "write each counterexample's run as an OpenTelemetry trace (OTLP/JSON) into this directory")
	ofmt = outflag.Add(c, "the result", "text", "json")
	exh.add(c)
	return c
}

// checkKinds returns bad input naming the flag when --kinds names an
// unknown kind, --domains an unknown domain, --kinds a kind of a domain
// --domains leaves out (a kind the exploration would silently never draw)
// or one def's path cannot enact (Definition.Enacts: it would never fire).
func checkKinds(def *model.Definition, kinds, domains []string) error {
	for _, d := range domains {
		if _, err := model.ParseDomain(d); err != nil {
			return BadInput("--domains: %v", err)
		}
	}
	for _, k := range kinds {
		sp, err := model.Spec(k)
		if err != nil {
			return BadInput("--kinds: %v", err)
		}
		if len(domains) > 0 && !slices.Contains(domains, string(sp.Domain)) {
			return BadInput("--kinds: %s is of domain %s, which --domains %s leaves out, so it would never be drawn: add %s to --domains or leave the kind out", k, sp.Domain, strings.Join(domains, ","), sp.Domain)
		}
	}
	if err := catalog.CheckEnacted(def, kinds); err != nil {
		return BadInput("--kinds: %v", err)
	}
	return nil
}

// isNoticeKind reports whether kind is one of the kinds of the provider's
// notices (model.NoticeKinds).
func isNoticeKind(kind string) bool {
	return slices.ContainsFunc(model.NoticeKinds(), func(sp model.FaultSpec) bool { return sp.Kind == kind })
}

// writeTrace runs cx's schedule again as replay does and writes its trace
// into dir, returning the file's path. A run that fails or a file that
// cannot be written is an I/O or internal error (4): the schedule is the
// exploration's own.
func writeTrace(def *model.Definition, dir string, cx *properties.Counterexample) (string, error) {
	res, err := replay(def, cx.Schedule)
	if err != nil {
		return "", IOFailure(fmt.Errorf("--otel: running the counterexample again: %w", err))
	}
	if res.Held() {
		return "", IOFailure(fmt.Errorf("--otel: the counterexample's schedule held every invariant when run again (run %s): the system is not deterministic", res.RunID))
	}
	path, err := otelrun.WriteInDir(dir, res)
	if err != nil {
		return "", IOFailure(fmt.Errorf("--otel: %w", err))
	}
	return path, nil
}

// runExplore runs the exploration of def with faultline's loop over
// checks (properties.WithSeed and WithChecks: check k draws from the run
// seed and k alone, so a shard runs its checks as the whole run does);
// rapid's fail files are not written (the counterexample file replaces
// them).
func runExplore(def *model.Definition, opts []properties.Option, checks int, seed uint64) (*properties.Report, error) {
	// rapid consults testing.Short, which needs the test flags registered
	// and parsed; the command line itself is cobra's
	testing.Init()
	if !flag.Parsed() {
		if err := flag.CommandLine.Parse(nil); err != nil {
			return nil, err
		}
	}
	defer collectLess()()
	return properties.Explore(def, append(opts, properties.WithSeed(seed), properties.WithChecks(checks))...)
}

// ExploreGCPercent is the collector's GOGC percentage while explore runs
// its checks (random or exhaustive), unless the GOGC environment variable
// sets one: a check allocates short-lived garbage over a small live heap,
// and collecting at Go's default of 100 was about a sixth of its CPU time.
const ExploreGCPercent = 400

// collectLess sets ExploreGCPercent and returns the function that
// restores the percentage before it.
func collectLess() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(ExploreGCPercent)
	return func() { debug.SetGCPercent(prev) }
}

// summarize counts the reachable keys d visited, and d and prior together.
func summarize(d, prior *coverage.Data) *guidedSummary {
	u := coverage.Default()
	count := func(d *coverage.Data) int {
		n := 0
		for _, k := range u.Reachable() {
			if d.Keys[k].Visited() {
				n++
			}
		}
		return n
	}
	s := &guidedSummary{runs: d.Runs, visited: count(d), withIn: -1, reachable: len(u.Reachable())}
	if prior != nil {
		s.withIn = count(coverage.Merge(prior, d))
	}
	return s
}

// line is the summary's line of text output.
func (s *guidedSummary) line() string {
	l := fmt.Sprintf("guided: %d of %d reachable keys visited in %d runs", s.visited, s.reachable, s.runs)
	if s.withIn >= 0 {
		l += fmt.Sprintf("; with --coverage-in, %d of %d", s.withIn, s.reachable)
	}
	return l + "\n"
}

func writeExplore(w io.Writer, def *model.Definition, rep *properties.Report, cfg model.Config, seed uint64, checks int, sum *guidedSummary, trace string) error {
	var b strings.Builder
	shard := ""
	if rep.Shards > 0 {
		shard = fmt.Sprintf("shard %d/%d of %d checks, ", rep.Shard, rep.Shards, checks)
	}
	if rep.Walk != nil && !rep.Walk.Found { // a counterexample's line says where the walk found it
		b.WriteString(rep.Walk.WalkLine() + "\n")
	}
	if !rep.Found {
		fmt.Fprintf(&b, "no counterexample in %d checks (%sseed %d, %s, fixture %s)\n", rep.Checks, shard, seed, describe(def, cfg), cfg.Fixture)
		b.WriteString(faultsLine(rep))
		if sum != nil {
			b.WriteString(sum.line())
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	cx := rep.Counterexample
	switch {
	case rep.Walk != nil && rep.Walk.Found:
		fmt.Fprintf(&b, "counterexample at schedule %d of the walk: no schedule of fewer faults breaks an invariant (%s, fixture %s)\n", rep.Walk.Index, describe(def, cfg), cfg.Fixture)
	case rep.Shards > 0:
		fmt.Fprintf(&b, "counterexample at check %d of the run, the shard's check %d (%sseed %d)\n", rep.ChecksToFailure, rep.Checks, shard, seed)
	default:
		fmt.Fprintf(&b, "counterexample after %d checks (seed %d)\n", rep.ChecksToFailure, seed)
	}
	b.WriteString(faultsLine(rep))
	if sum != nil {
		b.WriteString(sum.line())
	}
	writeCounterexample(&b, cx, trace)
	_, err := io.WriteString(w, b.String())
	return err
}

// faultsLine counts the campaign's scheduled faults reached and not.
func faultsLine(rep *properties.Report) string {
	return fmt.Sprintf("faults: %d of %d scheduled reached (%d fired), %d not reached\n", rep.Reached, rep.Faults, rep.Fired, rep.Faults-rep.Reached)
}

// exploreError maps an exploration's error: a file it could not write
// (--out) is an I/O error (4); bad options and a schedule the harness
// refuses are bad input (2); a system under test that gave two results
// for one schedule (properties.ErrNondeterministic) is an internal error
// (4), as its counterexample could not be kept. A config def's Configure
// refuses (the first run configures it) is bad input naming the system.
func exploreError(def *model.Definition, err error) error {
	var ce *configureError
	if errors.As(err, &ce) {
		return BadInput("config of %s: %v", def.Name, ce.err)
	}
	if errors.Is(err, properties.ErrNondeterministic) {
		return IOFailure(err)
	}
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) || errors.As(err, &errno) {
		return IOFailure(err)
	}
	return BadInput("%w", err) // wrapped: a system's panic is exit 1 (see guard)
}

func writeExploreJSON(w io.Writer, rep *properties.Report, cfg model.Config, seed uint64, checks int, sum *guidedSummary, trace string) error {
	j := exploreJSON{Found: rep.Found, Checks: rep.Checks, ChecksToFailure: rep.ChecksToFailure, Seed: seed, Config: cfg,
		Faults: rep.Faults, FaultsReached: rep.Reached, FaultsFired: rep.Fired, FaultsNotReached: rep.Faults - rep.Reached, Otel: trace,
		Shard: rep.Shard, Shards: rep.Shards}
	if rep.Shards > 0 {
		j.RunChecks = checks
	}
	if sum != nil {
		j.Guided, j.KeysVisited, j.KeysReachable = true, &sum.visited, &sum.reachable
		if sum.withIn >= 0 {
			j.KeysVisitedWithIn = &sum.withIn
		}
	}
	if wr := rep.Walk; wr != nil {
		j.Walk = &walkJSON{walkCounts: countsOf(wr), Line: wr.WalkLine()}
	}
	j.cxJSON = cxJSONOf(rep.Counterexample)
	return writeJSON(w, j)
}

// walkJSON is the walk phase of explore --json: the walk's counts (as
// explore --exhaustive --json gives them) and its line for people.
type walkJSON struct {
	walkCounts
	Line string `json:"line"`
}

// walkCounts are a walk's counts in --json, the default walk's and
// explore --exhaustive's alike.
type walkCounts struct {
	Found     bool  `json:"found"`
	Complete  bool  `json:"complete"`
	Schedules int   `json:"schedules"`
	PerSize   []int `json:"per_size"`
	MaxFaults int   `json:"max_faults"`
	Cap       int   `json:"max_schedules"`
	Index     int   `json:"index,omitempty"`
	Faults    int   `json:"faults"`
	Reached   int   `json:"faults_reached"`
	Fired     int   `json:"faults_fired"`
}

// countsOf returns the --json counts of a walk's report.
func countsOf(r *properties.ExhaustiveReport) walkCounts {
	return walkCounts{Found: r.Found, Complete: r.Complete, Schedules: r.Schedules, PerSize: r.PerSize, MaxFaults: r.MaxFaults,
		Cap: r.Cap, Index: r.Index, Faults: r.Faults, Reached: r.Reached, Fired: r.Fired}
}

// cxJSON is a counterexample as explore --json prints it, the walk's too,
// each field omitted when empty: its violation (model.Violation's fields
// and the fault's kind), schedule, file, replay command and timeline.
type cxJSON struct {
	Invariant string          `json:"invariant,omitempty"`
	FirstSeq  int             `json:"first_seq,omitempty"`
	Event     model.EventName `json:"event,omitempty"`
	FaultID   string          `json:"fault_id,omitempty"`
	FaultKind string          `json:"fault_kind,omitempty"`
	Detail    string          `json:"detail,omitempty"`
	Schedule  json.RawMessage `json:"schedule,omitempty"`
	File      string          `json:"file,omitempty"`
	Replay    string          `json:"replay,omitempty"`
	Timeline  []model.Event   `json:"timeline,omitempty"`
}

// cxJSONOf returns cx's cxJSON, empty for nil.
func cxJSONOf(cx *properties.Counterexample) cxJSON {
	if cx == nil {
		return cxJSON{}
	}
	v := cx.Violation
	return cxJSON{Invariant: v.Invariant, FirstSeq: v.FirstSeq, Event: v.Event, FaultID: v.FaultID, FaultKind: cx.FaultKind,
		Detail: v.Detail, Schedule: json.RawMessage(model.Format(cx.Schedule)), File: cx.File, Replay: cx.Replay, Timeline: cx.Timeline}
}

// writeCounterexample writes an exploration's counterexample as explore
// and explore --exhaustive print it: the counterexample, where its
// schedule is (or how to keep it), its trace file when one was written,
// and its timeline up to the first failing crossing.
func writeCounterexample(b *strings.Builder, cx *properties.Counterexample, trace string) {
	fmt.Fprintf(b, "%s", cx)
	if cx.File == "" {
		b.WriteString("(save the schedule above as SCHEDULE.json, or pass --out DIR to write it)\n")
	}
	if trace != "" {
		fmt.Fprintf(b, "trace: %s\n", trace)
	}
	fmt.Fprintf(b, "\nTimeline up to seq %d:\n", cx.FirstSeq)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, e := range cx.Timeline {
		fmt.Fprintf(tw, "  %d\t%d\t%d\t%s\t%s\t%s\t%s\n", e.Seq, e.At, e.Worker, e.Event, e.Outcome, e.FaultID, e.Detail)
	}
	tw.Flush()
}
