package properties

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"testing"
)

// walkBudget is the schedule budget of the default check's walk phase:
// WithMaxSchedules' when given, else defaultWalkBudget (shortWalkBudget
// under go test -short); 0 when the phase does not apply: a shard
// (WithShard), or a concurrent config that fixes its own interleaving or
// scheduler seed, which the walk would enumerate itself.
func (e *explorer) walkBudget() int {
	if e.set.loop.shards > 0 || e.set.exh.noWalk {
		return 0
	}
	if c := e.set.config.Concurrency; c != nil && (c.Seed != "" || len(c.Interleaving) > 0) {
		return 0
	}
	if e.set.exh.maxSet {
		return e.set.exh.maxSchedules
	}
	if flag.Lookup("test.short") != nil && flag.Parsed() && testing.Short() {
		return shortWalkBudget
	}
	return defaultWalkBudget
}

// walkPhase runs the first phase of the default check: the exhaustive
// walk over every schedule of at most walkPhaseFaults faults (fewer when
// WithMaxFaults says so), cut at walkBudget schedules, with no extra
// context switch on a concurrent config unless WithMaxSwitches gives a
// bound, and correlation modifiers on a schedule's last fault placed
// (ExhaustiveScope.Modifiers). WithSeed, WithChecks and WithGuide are the
// random phase's: the walk draws nothing. WithCoverage records the runs of
// both. It returns nil when the phase does not apply (a budget of 0).
func (e *explorer) walkPhase() (*ExhaustiveReport, error) {
	if !e.set.loop.owned() && rapidChecks() < 1 {
		// the random phase after the walk would refuse: before any work
		return nil, errNoChecks
	}
	budget := e.walkBudget()
	if budget == 0 {
		return nil, nil
	}
	saved := e.set
	defer func() { e.set = saved }()
	e.set.maxFaults = min(e.set.maxFaults, walkPhaseFaults)
	e.set.exh.maxSchedules = budget
	e.set.progress = nil // the random phase's count of checks
	if e.set.exh.switches == 0 {
		e.set.exh.switches = 1 // the default order alone
	}
	e.set.exh.modsLast = true
	w, err := e.runWalk()
	if errors.Is(err, errNoWalkKind) {
		return nil, nil
	}
	return w, err
}

// campaignReport is the report of a default check whose walk phase w
// found a counterexample: the random phase does not run.
func campaignReport(w *ExhaustiveReport) *Report {
	return &Report{Found: true, Counterexample: w.Counterexample, Faults: w.Faults, Reached: w.Reached, Fired: w.Fired, Walk: w}
}

// WalkLine says what the walk phase of a default check covered, with how
// many of its schedules' faults were reached and fired: "walk: every one of
// 4,669 schedules of <= 2 faults, no counterexample; of their 9,000 faults
// 9,000 reached, 8,100 fired (sizes; modifiers)", "walk: 20,000 of 48,311
// schedules of <= 2 faults; cut by the budget; of their ... (sizes;
// modifiers)" (a cut walk proves nothing), or the counterexample's
// position. See docs/exploration.md.
func (r *ExhaustiveReport) WalkLine() string {
	tally := fmt.Sprintf("of their %s faults %s reached, %s fired", thousands(r.Faults), thousands(r.Reached), thousands(r.Fired))
	switch {
	case r.Found:
		return fmt.Sprintf("walk: counterexample at schedule %s of the schedules of <= %d faults (%s)", thousands(r.Index), r.MaxFaults, r.Sizes())
	case !r.Complete:
		of := "at least "
		if r.exact {
			of = ""
		}
		return fmt.Sprintf("walk: %s of %s%s schedules of <= %d faults; cut by the budget; %s (%s; %s)", thousands(r.Schedules), of, thousands(r.total), r.MaxFaults, tally, r.Sizes(), r.Scope.Modifiers())
	}
	return fmt.Sprintf("walk: every one of %s schedules of <= %d faults, no counterexample; %s (%s; %s)", thousands(r.Schedules), r.MaxFaults, tally, r.Sizes(), r.Scope.Modifiers())
}

// faultsText is "1 fault" or "N faults".
func faultsText(n int) string {
	if n == 1 {
		return "1 fault"
	}
	return strconv.Itoa(n) + " faults"
}

// thousands writes n with a comma every three digits: 48,311.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
