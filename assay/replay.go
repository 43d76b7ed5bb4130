package assay

import (
	"fmt"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/model/copperfin"
)

// Replay runs one schedule against the reference system under the
// schedule's own config (s.Config, its mutant included) through the full
// harness, with the harness's default options, and returns the whole
// result: timeline, fault reports, invariants, outcome terms and verdicts,
// with every violation the fault-free run of the same workload already
// shows attributed to the workload, not to a fault
// ([model.Harness.Attribute]). It is the run behind "faultline replay" and
// the lab's timeline viewer, so both judge a schedule alike. Decode the
// file with [model.ParseSchedule] first; Replay returns an error naming the
// problem for a config that does not resolve or a schedule the harness
// refuses (see [model.Harness.Run]).
func Replay(s *model.Schedule) (*model.Result, error) {
	def := copperfin.Definition()
	factory, err := def.Factory(s.Config)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	fixture, err := def.Fixture(s.Config.Fixture)
	if err != nil {
		return nil, fmt.Errorf("schedule: config: %w", err)
	}
	h := model.NewHarness(fixture, def.Options(model.Options{}))
	res, err := h.Run(factory, s)
	if err != nil {
		return nil, err
	}
	// a violation the fault-free run already shows is the workload's
	clean, err := def.Factory(s.Config)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	if err := h.Attribute(res, clean); err != nil {
		return nil, err
	}
	return res, nil
}
