// Package inventory is a second example system, independent of the
// reference refund workflow: a checkout agent that holds stock for a cart
// with a two-step warehouse tool (reserve, then confirm), built only on the
// public model.Env and tested through model.Harness with its own fixture,
// its own controls and its own invariants, as a user would test a system of
// their own.
//
// Entry points:
//
//   - [Factory] and [NewFactory] build the agent for a set of its
//     [Controls], in its [Fixed] variant or with its [Planted] bug;
//   - [Fixture] is its world: two SKU records of warehouse W-1 and one
//     cart asking for 3 of the 4 units of SKU-7;
//   - [Invariants] are its own invariants, [Builtin] the built-in ones
//     that apply to it, and [HarnessOptions] both, ready for
//     model.NewHarness.
//
// How the world maps onto the model: a SKU's stock record is a
// model.Subject (ID the SKU, Tenant the warehouse, Amount the units in
// stock, Version its record version); the cart is a model.Task (Amount the
// units wanted, Capability the checkout grant); the warehouse is the
// harness's provider, each step a tool (ToolReserve, ToolConfirm) whose
// committed requests are entries of the provider's ledger, which only the
// oracle trusts.
//
// The agent: it resumes from the newest checkpoint or reads the SKU record,
// drafts the reservation, has the proposer turn it into a proposal, gets
// it approved, then runs two steps, each writing a checkpoint ahead of
// every attempt with the attempts spent (so a restart never resets the
// retry budget): reserve the units, checkpoint the hold, confirm the hold,
// checkpoint the confirmation, and claim the checkout (a release).
//
// Its controls (all on in [Defended]):
//
//   - stable_keys: every attempt of a step reuses the step's key
//     (cart:reserve, cart:confirm); without it each attempt gets a fresh
//     request key (a blind retry);
//   - hold_lookup: an unknown outcome, or a resume into a step, is
//     resolved by reading the warehouse ledger before any retry;
//   - typed_outcomes: a rejection, a sandbox denial or a rate limit is
//     never taken as done (a rate limit waits its retry-after and retries;
//     the others deny); without it any answer but a timeout is success;
//   - checkpoint_check: a missing, stale, future-version or corrupt
//     checkpoint stops the cart with a hold; without it the agent resumes
//     from whatever the store serves, or starts over;
//   - bind_request: the proposal must name the cart's SKU, warehouse,
//     units, actor and purpose;
//   - recheck_authority: the checkout grant is re-read before every
//     attempt and must be live and cover the units.
//
// The planted bug ([Planted]): a confirm retried after an unknown outcome
// that the ledger lookup did not resolve is sent under a fresh request
// key, even with stable_keys on. When the warehouse commits the first
// confirm late (a tool_timeout at the confirm), the cart is confirmed
// twice: confirmed_once breaks. [Fixed] reuses the confirm key.
package inventory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/model"
)

// Tool names of the two steps.
const (
	ToolReserve = "inventory.reserve"
	ToolConfirm = "inventory.confirm"
)

// WorkflowVersion is the version written into every checkpoint.
const WorkflowVersion = 1

// Checkpoint states, in order.
const (
	stageReserving  = "reserving"  // a reserve attempt is reserved, written ahead of its send
	stageReserved   = "reserved"   // the hold exists
	stageConfirming = "confirming" // a confirm attempt is reserved
	stageConfirmed  = "confirmed"  // the hold is confirmed
)

// minAttemptTime is the deadline, in logical milliseconds, an attempt
// needs left to be started.
const minAttemptTime model.Millis = 100

// Control is one defence of the inventory agent (its own, not the
// reference system's).
type Control string

// The controls.
const (
	StableKeys       Control = "stable_keys"       // each step's attempts reuse its key
	HoldLookup       Control = "hold_lookup"       // an unknown outcome or a resume reads the ledger first
	TypedOutcomes    Control = "typed_outcomes"    // a rejection (or a success envelope carrying one) is never taken as done
	CheckpointCheck  Control = "checkpoint_check"  // an invalid checkpoint stops the cart
	BindRequest      Control = "bind_request"      // the proposal must match the cart
	RecheckAuthority Control = "recheck_authority" // the grant is re-read before every attempt
)

// AllControls lists the controls in a fixed order.
var AllControls = []Control{StableKeys, HoldLookup, TypedOutcomes, CheckpointCheck, BindRequest, RecheckAuthority}

// Controls is a set of enabled controls; the zero value has none.
type Controls uint8

// Defended has every control on.
const Defended Controls = 1<<6 - 1

func bit(c Control) (Controls, bool) {
	for i, k := range AllControls {
		if k == c {
			return 1 << uint(i), true
		}
	}
	return 0, false
}

// Has reports whether c is enabled.
func (cs Controls) Has(c Control) bool {
	b, ok := bit(c)
	return ok && cs&b != 0
}

// Without returns cs with c disabled. It panics on an unknown control
// (programmer misuse); user input goes through ParseControls.
func (cs Controls) Without(c Control) Controls {
	b, ok := bit(c)
	if !ok {
		panic(fmt.Sprintf("inventory: unknown control %q", c))
	}
	return cs &^ b
}

// String returns the enabled controls joined by commas, or "none".
func (cs Controls) String() string {
	var l []string
	for _, c := range AllControls {
		if cs.Has(c) {
			l = append(l, string(c))
		}
	}
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ",")
}

// ParseControls parses control names; it returns an error naming the
// first unknown or repeated one.
func ParseControls(names []string) (Controls, error) {
	var cs Controls
	for _, n := range names {
		b, ok := bit(Control(n))
		if !ok {
			valid := make([]string, len(AllControls))
			for i, c := range AllControls {
				valid[i] = string(c)
			}
			return 0, fmt.Errorf("inventory: unknown control %q (valid: %s)", n, strings.Join(valid, ", "))
		}
		if cs&b != 0 {
			return 0, fmt.Errorf("inventory: control %q listed twice", n)
		}
		cs |= b
	}
	return cs, nil
}

// Variant selects the agent's code: the fixed one or the one with the
// planted bug.
type Variant string

// Variants.
const (
	Fixed   Variant = "fixed"   // the confirm retry reuses the confirm key
	Planted Variant = "planted" // the confirm retry mints a fresh key (the planted bug)
)

// System is the inventory agent.
type System struct {
	cs      Controls
	planted bool
}

// Factory returns a factory of fresh agents with controls cs in variant v
// (Fixed for anything but Planted).
func Factory(cs Controls, v Variant) model.Factory {
	return func() model.System { return &System{cs: cs, planted: v == Planted} }
}

// NewFactory is Factory for a variant named by the user ("fixed" or
// "planted"); it returns an error naming an unknown variant.
func NewFactory(cs Controls, variant string) (model.Factory, error) {
	switch Variant(variant) {
	case Fixed, Planted:
		return Factory(cs, Variant(variant)), nil
	}
	return nil, fmt.Errorf("inventory: unknown variant %q (valid: fixed, planted)", variant)
}

// Fixture is the example's world: SKU-7 (4 units in stock, record version
// 5) and SKU-8 (4 units, version 2) in warehouse W-1; the checkout grant
// CAP-cart-7 lets checkout-agent hold up to 3 units of SKU-7 until 60,000
// ms; the cart cart-7 wants 3 units of SKU-7. A second reservation of the
// cart would oversell the SKU.
func Fixture() model.Fixture {
	return model.Fixture{
		Name: "inventory",
		Subjects: []model.Subject{
			{ID: "SKU-7", Tenant: "W-1", Status: "in_stock", Version: 5, Amount: 4},
			{ID: "SKU-8", Tenant: "W-1", Status: "in_stock", Version: 2, Amount: 4},
		},
		Capabilities: []model.Capability{
			{ID: "CAP-cart-7", Actor: "checkout-agent", Subject: "SKU-7", Tenant: "W-1", Purpose: "checkout", Amount: 3, Expiry: 60000},
		},
		Tasks: []model.Task{
			{ID: "cart-7", Actor: "checkout-agent", Subject: "SKU-7", Tenant: "W-1", Purpose: "checkout", Amount: 3, Capability: "CAP-cart-7"},
		},
	}
}

func (s *System) on(c Control) bool { return s.cs.Has(c) }

// flow is one worker's in-memory state; only checkpoints survive a restart.
type flow struct {
	s          *System
	ctx        context.Context
	env        model.Env
	task       model.Task
	a          model.Action
	attempts   int
	deadlineAt model.Millis
	hold       string
	seq        int
	// done are the keys of the committed requests, the effects the
	// record names (Checkpoint.CompletedEffects)
	done []string
}

func (f *flow) stop(code, reason string) (model.Claim, error) {
	f.env.Signals.Warn(code, reason)
	return model.Claim{Verdict: model.ClaimHold, Reason: reason}, nil
}

func (f *flow) deny(code, reason string) (model.Claim, error) {
	f.env.Signals.Warn(code, reason)
	return model.Claim{Verdict: model.ClaimDeny, Reason: reason}, nil
}

func (f *flow) save(state string) error {
	f.seq++
	var data map[string]string
	if f.hold != "" {
		data = map[string]string{"hold": f.hold}
	}
	return f.env.Store.Save(f.ctx, model.Checkpoint{Seq: f.seq, WorkflowVersion: WorkflowVersion, State: state,
		Attempt: f.attempts, RetryRemaining: 1 + f.task.RetryBudget - f.attempts, DeadlineRemaining: f.deadlineAt - f.env.Now(),
		Action: f.a, Data: data, CompletedEffects: slices.Clone(f.done)})
}

// Run holds and confirms the cart's units. It returns model.ErrWorkerCrashed
// (possibly wrapped) when the harness crashed it.
func (s *System) Run(ctx context.Context, env model.Env, task model.Task) (model.Claim, error) {
	f := &flow{s: s, ctx: ctx, env: env, task: task}
	cp, resumed, err := env.Store.Load(ctx, task.ID)
	if err != nil {
		return model.Claim{}, err
	}
	if s.on(CheckpointCheck) {
		switch {
		case !resumed && cp.Head > 0:
			return f.stop("checkpoint_missing", "checkpoint "+strconv.Itoa(cp.Head)+" was acknowledged but the store serves none")
		case resumed && cp.WorkflowVersion != WorkflowVersion:
			return f.stop("checkpoint_version", "checkpoint of workflow version "+strconv.Itoa(cp.WorkflowVersion))
		case resumed && model.Checksum(cp) != cp.Checksum:
			return f.stop("checkpoint_corrupt", "checkpoint "+strconv.Itoa(cp.Seq)+" fails its checksum")
		case resumed && cp.Seq < cp.Head:
			return f.stop("checkpoint_stale", "checkpoint "+strconv.Itoa(cp.Seq)+" is older than the acknowledged "+strconv.Itoa(cp.Head))
		}
	}
	stage := ""
	if resumed {
		f.a, f.attempts, f.seq, f.hold, f.done = cp.Action, cp.Attempt, cp.Seq, cp.Data["hold"], slices.Clone(cp.CompletedEffects)
		f.deadlineAt = cp.At + cp.DeadlineRemaining
		stage = cp.State
	}
	switch stage {
	case stageReserving, stageReserved, stageConfirming, stageConfirmed:
	default:
		// a fresh cart, or (without checkpoint_check) a state the agent
		// cannot read: start over
		f.deadlineAt = env.Now() + task.Deadline
		if c, done, err := f.plan(); done || err != nil {
			return c, err
		}
		stage = ""
	}
	if stage == "" || stage == stageReserving {
		key, c, done, err := f.step(ToolReserve, stage == stageReserving)
		if done || err != nil {
			return c, err
		}
		f.hold = key
		f.done = append(f.done, key)
		if err := f.save(stageReserved); err != nil {
			return model.Claim{}, err
		}
		stage = stageReserved
	}
	if stage == stageReserved || stage == stageConfirming {
		key, c, done, err := f.step(ToolConfirm, stage == stageConfirming)
		if done || err != nil {
			return c, err
		}
		f.done = append(f.done, key)
		if err := f.save(stageConfirmed); err != nil {
			return model.Claim{}, err
		}
	}
	return model.Claim{Verdict: model.ClaimRelease, Reason: "checked out: " + strconv.FormatInt(task.Amount, 10) + " units of " + task.Subject + " held by " + f.hold}, nil
}

// plan reads the SKU record, drafts the reservation, has it proposed and
// approved. A done result ends the cart with claim c.
func (f *flow) plan() (c model.Claim, done bool, err error) {
	env, ctx, t := f.env, f.ctx, f.task
	rec, err := env.Context.ReadSubject(ctx, t.Subject)
	if errors.Is(err, model.ErrNotFound) {
		c, err = f.deny("unknown_sku", "no stock record for "+t.Subject)
		return c, true, err
	} else if err != nil {
		return c, true, err
	}
	if rec.Amount < t.Amount {
		c, err = f.deny("out_of_stock", strconv.FormatInt(rec.Amount, 10)+" units in stock")
		return c, true, err
	}
	draft := model.Action{Actor: t.Actor, Subject: rec.ID, Tenant: rec.Tenant, Purpose: t.Purpose, Amount: t.Amount,
		ExpectedVersion: rec.Version, TraceID: t.Trace}
	if f.a, err = env.Proposer.Propose(ctx, draft); err != nil {
		return c, true, err
	}
	if f.s.on(BindRequest) {
		a := f.a
		if a.Subject != t.Subject || a.Tenant != t.Tenant || a.Amount != t.Amount || a.Actor != t.Actor || a.Purpose != t.Purpose {
			c, err = f.deny("proposal_mismatch", "proposal names "+a.Subject+", the cart "+t.Subject)
			return c, true, err
		}
	}
	grant, err := env.Authority.Approve(ctx, t, f.a)
	if errors.Is(err, model.ErrNotFound) {
		c, err = f.deny("no_authority", "no live checkout grant")
		return c, true, err
	} else if err != nil {
		return c, true, err
	}
	f.a.CapabilityID, f.a.CapabilityExpiry = grant.ID, grant.Expiry
	return c, false, nil
}

// lookup returns the key of the step's committed request on the
// warehouse ledger, or "".
func (f *flow) lookup(tool, ref string) (string, error) {
	entries, err := f.env.Ledger.Readback(f.ctx, model.ReadbackQuery{ActionRef: ref})
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.Tool == tool {
			return e.Key, nil
		}
	}
	return "", nil
}

// step runs one step (tool) to a commit and returns the committed
// request's key, or a terminal claim with done set. resuming is true when
// a worker resumed into the step: an attempt may already have been sent.
func (f *flow) step(tool string, resuming bool) (key string, c model.Claim, done bool, err error) {
	env, ctx, t := f.env, f.ctx, f.task
	ref := t.ID + ":reserve"
	stage := stageReserving
	if tool == ToolConfirm {
		ref, stage = t.ID+":confirm", stageConfirming
	}
	act := f.a
	act.IdempotencyKey = ref
	if resuming && f.s.on(HoldLookup) {
		if k, err := f.lookup(tool, ref); err != nil || k != "" {
			return k, c, err != nil, err
		}
	}
	for try := 0; ; try++ {
		if f.s.on(RecheckAuthority) {
			g, err := env.Authority.Check(ctx, act.CapabilityID)
			if err != nil && !errors.Is(err, model.ErrNotFound) {
				return "", c, true, err
			}
			if err != nil || !g.Live(env.Now()) || act.Amount > g.Amount {
				c, err = f.deny("authority_not_live", "checkout grant "+act.CapabilityID+" is not live")
				return "", c, true, err
			}
		}
		if f.attempts >= 1+t.RetryBudget {
			c, err = f.stop("retry_budget_exhausted", tool+" unresolved after "+strconv.Itoa(f.attempts)+" attempts")
			return "", c, true, err
		}
		if f.deadlineAt-env.Now() < minAttemptTime {
			c, err = f.stop("deadline_exhausted", tool+" unresolved at the deadline")
			return "", c, true, err
		}
		f.attempts++
		if err := f.save(stage); err != nil {
			return "", c, true, err
		}
		key = ref
		if !f.s.on(StableKeys) {
			key = env.NewRequestID()
		}
		if f.s.planted && tool == ToolConfirm && try > 0 {
			// the planted bug: the confirm retry builds its request anew
			key = env.NewRequestID()
		}
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: tool, RequestKey: key, Action: act})
		if err != nil {
			return "", c, true, err
		}
		if res.Outcome == model.OutcomeCommitted && res.Class == model.ClassErrorInBody && f.s.on(TypedOutcomes) {
			res.Outcome = model.OutcomeRejected // a success envelope carrying an error: its body is the answer
		}
		switch {
		case res.Outcome == model.OutcomeCommitted:
			return key, c, false, nil
		case res.Outcome == model.OutcomeRejected && !f.s.on(TypedOutcomes):
			return key, c, false, nil // untyped: any answer but a timeout is done
		case res.Outcome == model.OutcomeRejected && res.Class == model.ClassRateLimited:
			env.Signals.Warn("rate_limited", "retry after "+strconv.FormatInt(int64(res.RetryAfter), 10)+" ms")
			if err := env.Sleep(ctx, res.RetryAfter); err != nil {
				return "", c, true, err
			}
			continue
		case res.Outcome == model.OutcomeRejected:
			c, err = f.deny("tool_rejected", tool+" rejected: "+res.Class+": "+res.Reason)
			return "", c, true, err
		}
		env.Signals.Warn("unknown_outcome", tool+" outcome unknown: "+res.Class)
		if f.s.on(HoldLookup) {
			if k, err := f.lookup(tool, ref); err != nil || k != "" {
				return k, c, err != nil, err
			}
		}
	}
}
