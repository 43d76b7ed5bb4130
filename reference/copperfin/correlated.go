package copperfin

import (
	"fmt"

	"github.com/faultline/faultline/model"
)

// lockstep is the interleaving of CorrelatedSchedule's synchronized
// schedule: the two tasks of CopperfinTenants alternate at every
// scheduling point, so their commits are sent in the same logical window.
func lockstep() []int {
	out := make([]int, 60)
	for i := range out {
		out[i] = 1 + i%2
	}
	return out
}

// CorrelatedSchedule returns the schedule that injects kind once at its
// own event and ordinal under correlation c, one the kind accepts
// (FaultSpec.Correlations), on the workload where c shows: repeated (its
// event's next crossing too, repeat 2) and persistent (every later one)
// on the Copperfin fixture; synchronized on CopperfinTenants' two tasks as
// two workers in lockstep (the other tenant's crossing in the window is
// hit too); shared on CopperfinTenants one task after another (the other
// tenant's first crossing is hit too); a worker-scoped kind
// (FaultSpec.WorkerScoped) under its own correlation on CopperfinTenants'
// two tasks run by one worker (Concurrency.Workers 1), so the second task
// inherits what the worker captured for the first (for a kind that acts
// on a retry, after the first send timed out); server_error and
// network_error after the commit (target after_commit). The config names the
// fixture (Config.Fixture, "" for Copperfin). It returns an error for an unknown kind or a
// correlation the kind does not take.
func CorrelatedSchedule(kind string, c model.Correlation, cfg model.Config) (*model.Schedule, error) {
	s, err := model.SingleFault(kind, cfg)
	if err != nil {
		return nil, err
	}
	s.Seed = kind + "+" + string(c)
	f := &s.Faults[0]
	f.Correlation = c
	if spec, _ := model.Spec(kind); spec.WorkerScoped && c == spec.Correlation {
		// a worker-scoped kind persists across the tasks of one worker:
		// CopperfinTenants' two tasks on one worker, one after another
		s.Config.Fixture = "copperfin-tenants"
		s.Config.Concurrency = &model.Concurrency{Workers: 1}
		if spec.Event == model.EvToolCommit && spec.Ordinal > 1 {
			// it acts on a retry (span_carry_over): the first send times
			// out, so the first task retries at the kind's commit
			s.Faults = append([]model.FaultEntry{{Kind: "timeout_before_send", Event: model.EvToolCommit, Ordinal: 1}}, s.Faults...)
		}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("correlated schedule: %w", err)
		}
		return s, nil
	}
	switch c {
	case model.Correlation("repeated"):
		f.Repeat = 2
	case model.Correlation("synchronized"):
		s.Config.Fixture = "copperfin-tenants"
		s.Config.Concurrency = &model.Concurrency{Workers: 2, Interleaving: lockstep()}
	case model.Correlation("shared"):
		s.Config.Fixture = "copperfin-tenants"
	}
	if kind == "server_error" || kind == "network_error" {
		f.Target = "after_commit" // the provider processed the refund: its outcome is unknown
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("correlated schedule: %w", err)
	}
	return s, nil
}

// Correlated lists every (kind, correlation) pair of the catalogue's
// modifiers (FaultSpec.Correlations), in catalogue order, then each kind
// of model.CacheAndWorkerKinds but the fleet kinds (FaultSpec.Fleet) under
// its own correlation (server_error and network_error included): the
// keys a CorrelatedSchedule each visits.
func Correlated() []CorrelatedKind {
	var out []CorrelatedKind
	for _, s := range model.Catalogue() {
		for _, c := range s.Correlations {
			out = append(out, CorrelatedKind{Kind: s.Kind, Correlation: c})
		}
	}
	// the kinds outside the catalogue have no single-fault run in the
	// audit: each is run once under its own correlation, where it shows
	for _, s := range model.CacheAndWorkerKinds() {
		if s.Fleet {
			continue // a fleet kind shows on a fleet (docs/retry-storms.md), not on this fixture
		}
		out = append(out, CorrelatedKind{Kind: s.Kind, Correlation: s.Correlation})
	}
	return out
}

// CorrelatedKind is one fault kind under one of its correlation
// modifiers.
type CorrelatedKind struct {
	Kind        string
	Correlation model.Correlation
}

// NoticeSchedule returns the schedule of a kind of the provider's notices
// (model.NoticeKinds) on the Copperfin fixture under cfg, with notices
// on: the kind at the first notice.receive, after, for reordered_notice,
// a rate_limit at the first tool.commit, whose failed notice waits with
// the committed one (the kind needs two waiting to reorder). It returns
// an error for a kind that is not a notice kind.
func NoticeSchedule(kind string, cfg model.Config) (*model.Schedule, error) {
	spec, err := model.Spec(kind)
	if err != nil {
		return nil, err
	}
	if spec.Event != model.EvNoticeReceive {
		return nil, fmt.Errorf("notice schedule: %s is not a kind of the provider's notices", kind)
	}
	s, err := model.SingleFault(kind, cfg)
	if err != nil {
		return nil, err
	}
	if kind == "reordered_notice" {
		s.Faults = append([]model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "rate_limit"}}, s.Faults...)
	}
	return s, nil
}

// StormSchedule returns the paper's retry storm (thought experiment 4) on
// a fleet fixture of the reference system, under cfg (its fixture
// copperfin-fleet unless cfg names another): one synchronized tool_timeout
// at the first tool.commit, a provider slowdown whose default 100 ms window
// times out every agent's first attempt, all sent together; each agent's
// outcome is unknown, its readback finds nothing yet, and it retries. It
// returns an error for a fixture that is not a fleet or a config Validate
// refuses.
func StormSchedule(cfg model.Config) (*model.Schedule, error) {
	if cfg.Fixture == "" {
		cfg.Fixture = "copperfin-fleet"
	}
	fx, err := FixtureNamed(cfg.Fixture)
	if err != nil {
		return nil, fmt.Errorf("storm schedule: %w", err)
	}
	if fx.Fleet == nil {
		return nil, fmt.Errorf("storm schedule: fixture %q is not a fleet", fx.Name)
	}
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: "retry-storm", Config: cfg,
		Faults: []model.FaultEntry{{Event: model.EvToolCommit, Ordinal: 1, Kind: "tool_timeout", Correlation: "synchronized"}}}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("storm schedule: %w", err)
	}
	return s, nil
}
