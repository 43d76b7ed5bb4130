package wallclock

import (
	"context"
	crand "crypto/rand"
	"math/rand"
	randv2 "math/rand/v2"
	"time"

	"github.com/faultline/faultline/model"
	"github.com/google/uuid"
)

// --- true positives, reached from (*agent).Run ---

type agent struct{ seed int64 }

func (a *agent) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	started := time.Now() // want `time.Now reads the wall clock in code reached from \(\*agent\).Run: a replay of the same schedule sees another value; use env.Now`
	a.backoff()
	if pickReplica() > 0 {
		t.ID = newID()
	}
	go func() {
		<-time.After(time.Second) // want `time.After waits on the wall clock .*use env.Sleep`
	}()
	_ = time.Since(started) // want `time.Since reads the wall clock`
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

func (a *agent) backoff() {
	time.Sleep(10 * time.Millisecond) // want `time.Sleep waits on the wall clock in code reached from \(\*agent\).Run \(through \(\*agent\).backoff\)`
}

func pickReplica() int {
	return rand.Intn(3) + randv2.IntN(2) // want `rand.Intn draws from the global random source` `rand.IntN draws from the global random source`
}

func newID() string {
	b := make([]byte, 8)
	crand.Read(b)                       // want `rand.Read draws from the operating system's random source in code reached from \(\*agent\).Run \(through newID\)`
	return uuid.NewString() + string(b) // want `uuid.NewString mints a random or time-based id`
}

// --- look-alikes: not findings ---

type careful struct{}

func (careful) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	start := env.Now()
	if err := env.Sleep(ctx, 100); err != nil {
		return model.Claim{}, err
	}
	t.ID = env.NewRequestID()
	r := rand.New(rand.NewSource(int64(start))) // a generator the system seeds from the schedule
	_ = r.Intn(3)
	_ = time.Duration(env.Now()-start) * time.Millisecond // durations are not the clock
	//faultline:ignore the timestamp only labels a debug log line, never a decision
	_ = time.Now()
	return model.Claim{Verdict: model.ClaimRelease}, nil
}

// jittered paces its retries with the Env's random source: the sanctioned
// path, a stream the schedule fixes.
type jittered struct{}

func (jittered) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	v, err := env.Rand()
	if err != nil {
		return model.Claim{}, err
	}
	if err := env.Sleep(ctx, 50+model.Millis(v%50)); err != nil {
		return model.Claim{}, err
	}
	// a math/rand/v2 generator over the Env's source: its methods draw
	// from env.Rand
	r := randv2.New(envSource{env})
	_ = r.IntN(3) + r.Perm(4)[0]
	return model.Claim{Verdict: model.ClaimRelease}, sampled(r)
}

// envSource is a math/rand/v2 Source over env.Rand.
type envSource struct{ env model.Env }

func (s envSource) Uint64() uint64 {
	v, _ := s.env.Rand()
	return v
}

func sampled(r *randv2.Rand) error {
	_ = r.Float64()
	return nil
}

// globalJitter looks like the Env's source but draws from the global one.
type globalJitter struct{}

func (globalJitter) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	v := randv2.Uint64() // want `rand.Uint64 draws from the global random source in code reached from \(globalJitter\).Run: a replay of the same schedule sees another value; draw from env.Rand`
	return model.Claim{Verdict: model.ClaimRelease}, env.Sleep(ctx, 50+model.Millis(v%50))
}

// notReached reads the clock, but no Run calls it.
func notReached() time.Time { return time.Now() }

// Run of another shape is not a System's.
type job struct{}

func (job) Run() { time.Sleep(time.Millisecond) }

// a method that shares a name with a reached one on another type is not reached
type other struct{}

func (other) backoff() { time.Sleep(time.Millisecond) }
