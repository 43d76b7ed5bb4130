package model

import (
	"fmt"
	"strconv"
)

// InvNoRetryStorm is the fleet invariant: in no logical window do the
// fleet's retries drive the provider's load past its declared capacity
// (Fleet.Capacity). The harness checks it, after every crossing, in every
// run of a fleet fixture, and reports it after the built-in invariants.
const InvNoRetryStorm = "no_retry_storm"

// Fleet makes a fixture a fleet: its tasks are agents started together,
// each a concurrent worker with a logical clock of its own, against one
// provider of declared capacity. A fleet run measures the provider's load
// (Result.Fleet), checks InvNoRetryStorm and shares one retry budget among
// the agents (Env.RetryToken). Scheduling: docs/vocabulary.md, "Fleet".
type Fleet struct {
	// Capacity is the provider's capacity, in tool.commit attempts per
	// window, 1 or more.
	Capacity int `json:"capacity"`
	// WindowMs is the window's length in logical milliseconds (0:
	// defaultFleetWindow). Window i covers [i*WindowMs, (i+1)*WindowMs).
	WindowMs Millis `json:"window_ms,omitempty"`
	// RetryBudget is the fleet's shared retry budget: how many retries
	// Env.RetryToken grants in one run, across every agent (0: one for
	// every five agents, at least one).
	RetryBudget int `json:"retry_budget,omitempty"`
	// SharedCredential declares that the agents call the provider with
	// one credential: the default search then draws credential_expired.
	SharedCredential bool `json:"shared_credential,omitempty"`
}

// defaultFleetWindow is a fleet's window when Fleet.WindowMs is 0.
const defaultFleetWindow Millis = 100

// Window returns the fleet's window length (WindowMs or the default).
func (f *Fleet) window() Millis {
	if f.WindowMs > 0 {
		return f.WindowMs
	}
	return defaultFleetWindow
}

// budget returns the shared retry budget of a fleet of agents agents
// (RetryBudget or its default).
func (f *Fleet) budget(agents int) int {
	if f.RetryBudget > 0 {
		return f.RetryBudget
	}
	return max(1, agents/5)
}

// validate returns an error naming the first bad field of f; nil is valid.
func (f *Fleet) validate(tasks int) error {
	switch {
	case f.Capacity < 1:
		return fmt.Errorf("fleet: capacity %d must be 1 or more attempts per window", f.Capacity)
	case f.WindowMs < 0:
		return fmt.Errorf("fleet: window_ms %d must be 0 (the default, 100) or more", f.WindowMs)
	case f.RetryBudget < 0:
		return fmt.Errorf("fleet: retry_budget %d must be 0 (the default) or more", f.RetryBudget)
	case tasks > MaxWorkers:
		return fmt.Errorf("fleet: %d agents, more than the %d workers a run may have", tasks, MaxWorkers)
	}
	return nil
}

// FleetLoad is the provider's load in a fleet run, as the harness counted
// it at every tool.commit send, by its worker's clock: Load[i] attempts
// were sent in window i, Retries[i] of them retries (a task's attempts
// after its first, across restarts).
type FleetLoad struct {
	Capacity int    `json:"capacity"`
	WindowMs Millis `json:"window_ms"`
	Agents   int    `json:"agents"`
	// Attempts and RetryCount are the run's totals.
	Attempts   int `json:"attempts"`
	RetryCount int `json:"retries"`
	// Peak is the most attempts of one window, at window PeakWindow;
	// StormPeak the most of a window that holds a retry (0 with none).
	Peak       int `json:"peak"`
	PeakWindow int `json:"peak_window"`
	StormPeak  int `json:"storm_peak"`
	// Overloaded counts the windows holding a retry whose attempts exceed
	// the capacity: no_retry_storm holds when it is 0.
	Overloaded int `json:"overloaded"`
	// TokensGranted and TokensRefused count the shared retry budget's
	// answers (Env.RetryToken).
	TokensGranted int `json:"tokens_granted"`
	TokensRefused int `json:"tokens_refused"`
	// OutageRefused counts the sends a lasting outage (provider_outage)
	// refused: the provider's front door answered them at once, so they
	// are in no window's load.
	OutageRefused int   `json:"outage_refused,omitempty"`
	Load          []int `json:"load"`
	Retries       []int `json:"retry_load"`
}

// String is the load as people read it: "peak 100 attempts per 100 ms
// (capacity 8), storm peak 100, 200 attempts, 100 retries".
func (l *FleetLoad) String() string {
	return "peak " + strconv.Itoa(l.Peak) + " attempts per " + strconv.FormatInt(int64(l.WindowMs), 10) + " ms (capacity " +
		strconv.Itoa(l.Capacity) + "), storm peak " + strconv.Itoa(l.StormPeak) + ", " + strconv.Itoa(l.Attempts) + " attempts, " +
		strconv.Itoa(l.RetryCount) + " retries"
}

// fleetState is a fleet run's load counters and shared retry budget.
type fleetState struct {
	on       bool
	window   Millis
	capacity int
	tokens   int
	load     FleetLoad
	// storm is the first overloaded window's description, "" while none.
	storm string
}

func (fs *fleetState) reset(f *Fleet, agents int) {
	*fs = fleetState{load: FleetLoad{Load: fs.load.Load[:0], Retries: fs.load.Retries[:0]}}
	if f == nil {
		return
	}
	fs.on, fs.window, fs.capacity, fs.tokens = true, f.window(), f.Capacity, f.budget(agents)
	fs.load.Capacity, fs.load.WindowMs, fs.load.Agents = f.Capacity, fs.window, agents
}

// send counts a tool.commit sent at logical time at; retry is true for a
// task's attempt after its first.
func (fs *fleetState) send(at Millis, retry bool) {
	if !fs.on {
		return
	}
	w := int(max(at, 0) / fs.window)
	for len(fs.load.Load) <= w {
		fs.load.Load = append(fs.load.Load, 0)
		fs.load.Retries = append(fs.load.Retries, 0)
	}
	l := &fs.load
	l.Attempts++
	l.Load[w]++
	if retry {
		l.RetryCount++
		l.Retries[w]++
	}
	if l.Load[w] > l.Peak {
		l.Peak, l.PeakWindow = l.Load[w], w
	}
	if l.Retries[w] > 0 {
		l.StormPeak = max(l.StormPeak, l.Load[w])
	}
	rb := l.Retries[w]
	if retry {
		rb--
	}
	// the window becomes overloaded with this attempt: past the capacity
	// and holding a retry, neither of which it was before
	if l.Load[w] > fs.capacity && l.Retries[w] > 0 && !(l.Load[w]-1 > fs.capacity && rb > 0) {
		l.Overloaded++
		if fs.storm == "" {
			from := Millis(w) * fs.window
			fs.storm = strconv.Itoa(l.Load[w]) + " attempts (" + strconv.Itoa(l.Retries[w]) + " retries) in the window " +
				strconv.FormatInt(int64(from), 10) + "-" + strconv.FormatInt(int64(from+fs.window), 10) +
				" ms, past the provider's capacity of " + strconv.Itoa(fs.capacity)
		}
	}
}

// lasting reports whether f is a lasting fault (FaultSpec.LastsMs).
func lasting(f *armed) bool { return f.kind.spec.LastsMs > 0 }

// frontDoor reports whether f is a lasting fault the provider's front
// door answers without serving the send: an outage's 503 (class
// unavailable). An expired credential's 401 is served, and load.
func frontDoor(f *armed) bool {
	k, ok := f.kind.impl.(commitFault)
	return lasting(f) && ok && k.reply != nil && k.reply.Class == classUnavailable
}

// unsent reports whether a commit whose faults are hits never reaches the
// provider: the first hit that answers in the provider's place (hits run
// in this order, each around the next) answers from the client's side,
// neither the provider's refusal nor a request it holds (a timeout before
// the send, an unreachable provider, the sandbox refusing the tool), or
// is a connection refused before the request left.
func unsent(hits []*armed) bool {
	for _, f := range hits {
		switch k := f.kind.impl.(type) {
		case commitFault:
			if k.reply != nil {
				return !k.refused && !k.held
			}
		case transportFault:
			return k.class == classNetworkError && f.entry.Target != targetAfterCommit
		}
	}
	return false
}

// result returns a copy of the load for a Result (nil outside a fleet).
func (fs *fleetState) result() *FleetLoad {
	if !fs.on {
		return nil
	}
	l := fs.load
	l.Load = append([]int{}, fs.load.Load...)
	l.Retries = append([]int{}, fs.load.Retries...)
	return &l
}

// retryToken implements Env.RetryToken.
func (e *taskEnv) retryToken() (bool, error) {
	r := e.r
	if r.crashed {
		return false, ErrWorkerCrashed
	}
	fs := &r.fleet
	if !fs.on {
		return true, nil
	}
	if fs.tokens <= 0 {
		fs.load.TokensRefused++
		return false, nil
	}
	fs.tokens--
	fs.load.TokensGranted++
	return true, nil
}

// noRetryStorm is the fleet invariant InvNoRetryStorm, checked as the
// first of the run's own invariants.
func noRetryStorm() UserInvariant {
	return UserInvariant{Name: InvNoRetryStorm, Owner: "fleet", Oracle: oracleBudgetCounter,
		Doc: "no window in which the fleet's retries arrive holds more attempts than the provider's capacity",
		Check: func(v View) string {
			if v.r.fleet.storm != "" {
				return v.r.fleet.storm
			}
			return ""
		}}
}

// Load returns the provider's load so far in a run of a fleet fixture
// (see FleetLoad), and false outside a fleet.
func (v View) Load() (FleetLoad, bool) {
	l := v.r.fleet.result()
	if l == nil {
		return FleetLoad{}, false
	}
	return *l, true
}
