package assay

import (
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// Replay runs one schedule against the reference system under the
// schedule's own config (s.Config, its mutant included) through the full
// harness, with the harness's default options, and returns the whole
// result: timeline, fault reports, invariants, outcome terms and verdicts,
// with every violation the fault-free run of the same workload already
// shows attributed to the workload, not to a fault
// ([model.Definition.Replay]). It is the run behind "faultline replay" and
// the lab's timeline viewer, so both judge a schedule alike. Decode the
// file with [model.ParseSchedule] first; Replay returns an error naming the
// problem for a config that does not resolve or a schedule the harness
// refuses (see [model.Harness.Run]).
func Replay(s *model.Schedule) (*model.Result, error) {
	return copperfin.Definition().Replay(s)
}
