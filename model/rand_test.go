package model_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/model"
)

// jitterLog is what each instance (each worker) of a jitterer drew, in
// order, and the errors its last draw and sleep returned.
type jitterLog struct {
	draws              [][]uint64
	randErr, sleepErrs []error
}

// jitterer is a system that paces its steps with a jittered sleep drawn
// from env.Rand, checkpointing after each step and resuming from the
// store after a restart.
type jitterer struct {
	log  *jitterLog
	inst int
}

const jitterSteps = 4

func (j *jitterer) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	cp, ok, err := env.Store.Load(ctx, t.ID)
	if err != nil {
		return model.Claim{}, err
	}
	step := 0
	if ok {
		step = cp.Seq
	}
	for step < jitterSteps {
		v, err := env.Rand()
		if err != nil {
			j.log.randErr[j.inst] = err
			j.log.sleepErrs[j.inst] = env.Sleep(ctx, 1)
			return model.Claim{}, err
		}
		j.log.draws[j.inst] = append(j.log.draws[j.inst], v)
		if err := env.Sleep(ctx, 10+model.Millis(v%90)); err != nil {
			return model.Claim{}, err
		}
		step++
		// a save that crashes the worker returns an error; the loop draws
		// once more to see what a crashed worker's draw returns
		_ = env.Store.Save(ctx, model.Checkpoint{Seq: step, State: "paced"})
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "paced"}, nil
}

var jitterFixture = model.Fixture{Name: "pacing",
	Subjects: []model.Subject{{ID: "J-1", Tenant: "acme", Status: "open", Version: 1}},
	Tasks:    []model.Task{{ID: "pace-J-1", Actor: "bot", Subject: "J-1", Tenant: "acme", Purpose: "pace"}}}

// runJitter runs the jitterer under a schedule of seed and faults on a
// fresh harness and returns the result and what each worker drew.
func runJitter(t *testing.T, seed string, faults ...model.FaultEntry) (*model.Result, *jitterLog) {
	t.Helper()
	log := &jitterLog{}
	factory := func() model.System {
		log.draws = append(log.draws, nil)
		log.randErr = append(log.randErr, nil)
		log.sleepErrs = append(log.sleepErrs, nil)
		return &jitterer{log: log, inst: len(log.draws) - 1}
	}
	h := model.NewHarness(jitterFixture, model.Options{Builtin: []string{model.InvBudget}})
	s := &model.Schedule{Version: model.ScheduleVersion, Seed: seed, Faults: faults}
	res, err := h.Run(factory, s)
	require.NoError(t, err)
	return res, log
}

// sleeps returns the logical duration of every clock.sleep in tl.
func sleeps(tl []model.Event) []model.Millis {
	var out []model.Millis
	for i, e := range tl {
		if e.Event == model.EvClockSleep {
			out = append(out, e.At-tl[i-1].At)
		}
	}
	return out
}

// stream returns the first n values of the stream Env.Rand defines for
// (seed, task index, task id, worker).
func stream(seed string, task int, id string, worker, n int) []uint64 {
	p := rand.NewPCG(model.StreamSeed(seed, task, id, worker))
	out := make([]uint64, n)
	for i := range out {
		out[i] = p.Uint64()
	}
	return out
}

// TestRandReplays: a system that jitters its sleeps through env.Rand
// replays byte-identically (the normalised timelines of two runs equal, as
// "faultline replay --twice" compares them, and the run records' JSON
// equal), its sleeps are the draws it made, and the draws are the
// schedule's stream, pinned to its first values.
func TestRandReplays(t *testing.T) {
	first, log1 := runJitter(t, "pacing-a")
	second, log2 := runJitter(t, "pacing-a")
	if diff := cmp.Diff(model.Normalize(first.Timeline.Events()), model.Normalize(second.Timeline.Events())); diff != "" {
		t.Fatalf("two runs of one schedule differ (-first +second):\n%s", diff)
	}
	a, err := json.Marshal(first.Record())
	require.NoError(t, err)
	b, err := json.Marshal(second.Record())
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))

	require.Len(t, log1.draws, 1)
	require.Len(t, log1.draws[0], jitterSteps)
	assert.Equal(t, log1.draws, log2.draws)
	assert.Equal(t, stream("pacing-a", 0, "pace-J-1", 1, jitterSteps), log1.draws[0])
	var want []model.Millis
	for _, v := range log1.draws[0] {
		want = append(want, 10+model.Millis(v%90))
	}
	assert.Equal(t, want, sleeps(first.Timeline.Events()))
	// the stream is a fixed function of its inputs, in any process
	assert.Equal(t, []model.Millis{57, 32, 86, 15}, sleeps(first.Timeline.Events()))

	// a draw is not a crossing: the timeline holds the start, the load,
	// a sleep and a checkpoint per step, and the claim
	assert.Len(t, first.Timeline.Events(), 2+2*jitterSteps+1)
}

// TestRandSeedChangesStream: another seed string draws another stream.
func TestRandSeedChangesStream(t *testing.T) {
	a, la := runJitter(t, "pacing-a")
	b, lb := runJitter(t, "pacing-b")
	assert.NotEqual(t, la.draws[0], lb.draws[0])
	assert.Equal(t, stream("pacing-b", 0, "pace-J-1", 1, jitterSteps), lb.draws[0])
	assert.NotEqual(t, sleeps(a.Timeline.Events()), sleeps(b.Timeline.Events()))
	// a fault does not enter the stream: the first worker's draws before
	// the crash are the fault-free run's
	_, lc := runJitter(t, "pacing-a", model.FaultEntry{Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "worker_restart"})
	assert.Equal(t, la.draws[0][:2], lc.draws[0])
}

// TestRandWorkerRestart: a restarted worker draws a fresh stream, the
// pure function of schedule, task and worker number (equal across two
// runs, and the stream of worker 2), while the crashed worker's draw
// returns ErrWorkerCrashed as its sleep does.
func TestRandWorkerRestart(t *testing.T) {
	restart := model.FaultEntry{Event: model.EvCheckpointWrite, Ordinal: 2, Kind: "worker_restart"}
	first, log1 := runJitter(t, "pacing-a", restart)
	second, log2 := runJitter(t, "pacing-a", restart)
	if diff := cmp.Diff(model.Normalize(first.Timeline.Events()), model.Normalize(second.Timeline.Events())); diff != "" {
		t.Fatalf("two runs of one schedule differ (-first +second):\n%s", diff)
	}
	require.Len(t, log1.draws, 2, "one restart: two workers")
	assert.Equal(t, log1.draws, log2.draws)
	assert.Equal(t, stream("pacing-a", 0, "pace-J-1", 1, 2), log1.draws[0])
	// worker 2 resumes at step 2 and draws the first two values of its own
	// stream, not the third and fourth of worker 1's
	assert.Equal(t, stream("pacing-a", 0, "pace-J-1", 2, 2), log1.draws[1])
	assert.NotEqual(t, stream("pacing-a", 0, "pace-J-1", 1, 4)[2:], log1.draws[1])

	require.ErrorIs(t, log1.randErr[0], model.ErrWorkerCrashed)
	require.ErrorIs(t, log1.sleepErrs[0], model.ErrWorkerCrashed)
	assert.NoError(t, log1.randErr[1])
	var workers []int
	for _, e := range first.Timeline.Events() {
		if e.Event == model.EvClockSleep {
			workers = append(workers, e.Worker)
		}
	}
	assert.Equal(t, []int{1, 1, 2, 2}, workers)
}

// TestRandStreamInputs: the stream's seed words change with each of the
// seed string, the task's index and id, and the worker number.
func TestRandStreamInputs(t *testing.T) {
	base := stream("s", 0, "t", 1, 2)
	for name, other := range map[string][]uint64{
		"seed":   stream("s2", 0, "t", 1, 2),
		"index":  stream("s", 1, "t", 1, 2),
		"id":     stream("s", 0, "t2", 1, 2),
		"worker": stream("s", 0, "t", 2, 2),
	} {
		assert.NotEqual(t, base, other, name)
	}
	assert.Equal(t, base, stream("s", 0, "t", 1, 2))
}
