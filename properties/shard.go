package properties

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/model"
)

// Bounds of the options that make faultline own the loop over checks.
const (
	// maxChecks bounds WithChecks.
	maxChecks = 100_000_000
	// maxShards bounds the N of WithShard.
	maxShards = 10_000
)

// loopSettings are WithSeed's, WithChecks' and WithShard's.
type loopSettings struct {
	seed    uint64
	seedSet bool
	checks  int // 0: rapid's -rapid.checks
	shard   int // 1-based; 0: unsharded (shard 1 of 1)
	shards  int
}

// owned reports whether faultline runs the loop over checks itself.
func (l loopSettings) owned() bool { return l.seedSet || l.checks > 0 || l.shards > 0 }

// WithSeed sets the run seed (nonzero) instead of rapid's -rapid.seed.
// With WithSeed, WithChecks or WithShard faultline runs the loop over
// checks itself: check k draws from the seed rapid's own loop gives its
// k-th check, a function of the run seed and k alone, and the first
// failing check is handed to rapid to shrink as its own loop would.
func WithSeed(seed uint64) Option {
	return optionFunc(func(s *settings) error {
		if seed == 0 {
			return errors.New("properties: seed 0 is rapid's random seed; WithSeed needs a nonzero seed")
		}
		s.loop.seed, s.loop.seedSet = seed, true
		return nil
	})
}

// WithChecks sets the number of checks of the run (1 to maxChecks)
// instead of rapid's -rapid.checks; under go test -short it is not
// divided by five. It makes faultline run the loop over checks (see
// WithSeed).
func WithChecks(n int) Option {
	return optionFunc(func(s *settings) error {
		if n < 1 || n > maxChecks {
			return fmt.Errorf("properties: checks %d must be between 1 and %d", n, maxChecks)
		}
		s.loop.checks = n
		return nil
	})
}

// WithShard runs shard i of n (1 <= i <= n <= 10000) of the run: the
// checks whose 0-based index k has k mod n = i-1, each drawn as the
// unsharded run draws it, so n shards together run exactly its checks
// (under WithExhaustive, the walk's schedules the same way). The run's
// verdict is the counterexample of the least ChecksToFailure (Index) among
// the shards. It needs a fixed seed; WithGuide does not apply. See
// docs/exploration.md, "Shards".
func WithShard(i, n int) Option {
	return optionFunc(func(s *settings) error {
		if n < 1 || n > maxShards {
			return fmt.Errorf("properties: shard count %d must be between 1 and %d", n, maxShards)
		}
		if i < 1 || i > n {
			return fmt.Errorf("properties: shard %d of %d must be between 1 and %d", i, n, n)
		}
		s.loop.shard, s.loop.shards = i, n
		return nil
	})
}

// ParseShard parses "I/N", the shard I of N (1 <= I <= N <= maxShards),
// as faultline explore --shard takes it. The error says what is wrong,
// without naming a flag.
func ParseShard(v string) (i, n int, err error) {
	a, b, ok := strings.Cut(v, "/")
	if !ok {
		return 0, 0, fmt.Errorf("%q is not I/N (shard I of N, for example 2/8)", v)
	}
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%q is not I/N with I and N whole numbers (for example 2/8)", v)
	}
	if n < 1 || n > maxShards {
		return 0, 0, fmt.Errorf("%q: N must be between 1 and %d, got %d", v, maxShards, n)
	}
	if i < 1 || i > n {
		return 0, 0, fmt.Errorf("%q: I must be between 1 and N (%d), got %d", v, n, i)
	}
	return i, n, nil
}

// checkSeed is the seed check k (0-based) of a run of seed draws its
// schedule from: seed + k(k+1)/2 modulo 2^64, the seed rapid's own loop
// gives its k-th check. It depends on the run seed and k alone, so check k
// is the same schedule whichever shard runs it.
func checkSeed(seed uint64, k int) uint64 {
	u := uint64(k)
	if u%2 == 0 {
		return seed + (u/2)*(u+1)
	}
	return seed + u*((u+1)/2)
}

// shardChecks is how many of checks the shard i of n owns: the indices k
// in 0..checks-1 with k mod n = i-1.
func shardChecks(checks, i, n int) int {
	if i > checks {
		return 0
	}
	return (checks-i)/n + 1
}

// rapidFlags serialises withRapidFlags.
var rapidFlags sync.Mutex

// withRapidFlags runs f with rapid's command-line flags set to set (name
// without the leading dash: "rapid.seed") and restores every one after,
// even when f panics. rapid reads its checks, seed and fail-file switch
// from its flags alone, so this is how one failing check is handed to
// rapid's own shrinking (shrinkOwned); calls are serialised, as the flags
// are the process's. A flag rapid did not register is an error.
func withRapidFlags(set map[string]string, f func()) error {
	rapidFlags.Lock()
	defer rapidFlags.Unlock()
	old := map[string]string{}
	defer func() {
		for n, v := range old {
			_ = flag.Set(n, v)
		}
	}()
	for n, v := range set {
		fl := flag.Lookup(n)
		if fl == nil {
			return fmt.Errorf("properties: rapid's flag %s is not registered", n)
		}
		old[n] = fl.Value.String()
		if err := flag.Set(n, v); err != nil {
			return fmt.Errorf("properties: setting %s: %w", n, err)
		}
	}
	f()
	return nil
}

// exploreOwned is explore with faultline running the loop over checks:
// each check of the shard is drawn from its own seed (checkSeed) with
// rapid's generator, run and counted as prop does; the first failing one
// is handed to rapid (one check under its seed), which runs it again,
// shrinks it, and the reduction follows as in explore.
func (e *explorer) exploreOwned(parent rapid.TB, name string) (*Report, error) {
	l := e.set.loop
	seed := l.seed
	if !l.seedSet {
		if f := flag.Lookup("rapid.seed"); f != nil {
			seed, _ = strconv.ParseUint(f.Value.String(), 10, 64)
		}
		if seed == 0 {
			return nil, errors.New("properties: WithChecks or WithShard needs a fixed seed: give WithSeed, or a nonzero -rapid.seed (RAPID_SEED)")
		}
	}
	checks := l.checks
	if checks == 0 {
		if checks = rapidChecks(); checks < 1 {
			return nil, errors.New("properties: no check count: give WithChecks, or a positive -rapid.checks (RAPID_CHECKS)")
		}
	}
	shard, shards := max(l.shard, 1), max(l.shards, 1)
	if shards > 1 && e.guide != nil {
		return nil, errors.New("properties: WithGuide does not apply to a shard: the guide's choices depend on every check before, which other shards run")
	}
	if shards > checks {
		return nil, fmt.Errorf("properties: %d shards of %d checks leave a shard without checks: give at least as many checks as shards", shards, checks)
	}
	e.owned = true
	e.total = shardChecks(checks, shard, shards)
	gen := rapid.Custom(func(t *rapid.T) *model.Schedule {
		if e.harnessErr != nil {
			// rapid retries a draw that failed: once is enough (the
			// generator must still take a bit of data)
			boolGen.Draw(t, "failed")
			return nil
		}
		return e.draw(t)
	})
	ran := 0
	rep := &Report{Shard: l.shard, Shards: l.shards}
	for k := shard - 1; k < checks; k += shards {
		sk := checkSeed(seed, k)
		if e.guide != nil {
			e.rank()
		}
		s := gen.Example(int(sk))
		if e.harnessErr != nil {
			return nil, e.harnessErr
		}
		res, err := e.run(s)
		// a run whose system panicked is shrunk as a violation is (prop
		// keeps the smallest schedule that panicked, see panicError)
		panicked := errors.As(err, new(*model.SystemPanic))
		if err != nil && !panicked {
			return nil, err
		}
		if ir, bad := e.violationOf(res); bad || panicked {
			ran++
			if sk == 0 {
				return nil, fmt.Errorf("properties: check %d of seed %d has seed 0, which rapid takes for a random one: choose another seed", k+1, seed)
			}
			e.calls = k // prop counts the check again and numbers it k+1
			e.ranked = e.guide != nil
			msgs, err := e.shrinkOwned(parent, name, sk, ir)
			if err != nil {
				return nil, err
			}
			rep.rapidOutput = msgs
			break
		}
		if err := e.record(res); err != nil {
			return nil, err
		}
		if e.guide != nil {
			if err := e.seen.Record(res); err != nil {
				return nil, err
			}
		}
		e.count(res)
		ran++
		if e.set.progress != nil {
			e.set.progress(ran, e.total, 0)
		}
	}
	rep.Checks, rep.Faults, rep.Reached, rep.Fired = ran, e.faults, e.reached, e.fired
	for p, ev := range allEvents {
		if e.crossed[p] {
			rep.Crossed = append(rep.Crossed, ev)
		}
	}
	if e.firstFail == 0 {
		return rep, nil
	}
	if e.set.progress != nil {
		e.set.progress(ran, ran, 1)
	}
	rep.Found, rep.ChecksToFailure = true, e.firstFail
	return e.found(rep)
}

// shrinkOwned hands the failing check of seed sk to rapid: one check
// under that seed (five under go test -short, which rapid divides by
// five), no fail file written; rapid's flags are set for the call and
// restored after it. It returns rapid's messages; broke is the invariant
// the check broke when first run (zero when its system panicked), named
// in the error when rapid's run of it holds (ErrNondeterministic).
func (e *explorer) shrinkOwned(parent rapid.TB, name string, sk uint64, broke model.InvariantResult) (string, error) {
	checks := "1"
	if flag.Lookup("test.short") != nil && flag.Parsed() && testing.Short() {
		checks = "5"
	}
	set := map[string]string{"rapid.checks": checks, "rapid.seed": strconv.FormatUint(sk, 10), "rapid.nofailfile": "true"}
	rec := &recorder{parent: parent, name: name}
	if err := withRapidFlags(set, func() {
		defer func() {
			if p := recover(); p != nil && p != errStop {
				panic(p)
			}
		}()
		rapid.Check(rec, e.prop)
	}); err != nil {
		return "", err
	}
	if e.harnessErr != nil {
		return "", e.keepFound(e.harnessErr)
	}
	msgs := strings.Join(rec.msgs, "\n")
	if e.firstFail == 0 {
		what := "the system panicked"
		if broke.Invariant != "" {
			what = fmt.Sprintf("broke %s (after seq %d, at %s)", broke.Invariant, broke.FirstSeq, broke.Event)
		}
		return "", fmt.Errorf("properties: the check of seed %d %s when first run, and held every invariant when rapid ran it again: %w", sk, what, ErrNondeterministic)
	}
	return msgs, nil
}
