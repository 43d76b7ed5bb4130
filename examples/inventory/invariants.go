package inventory

import (
	"fmt"

	"github.com/faultline/faultline/model"
)

// Names of the inventory's own invariants.
const (
	// InvNoOversell: the units held by reservations of a SKU never exceed
	// its stock (the SKU record's Amount).
	InvNoOversell = "no_oversell"
	// InvConfirmHasHold: every confirm follows a reservation of the same
	// cart, SKU and units on the warehouse ledger.
	InvConfirmHasHold = "confirm_has_hold"
	// InvConfirmedOnce: a cart is confirmed at most once.
	InvConfirmedOnce = "confirmed_once"
	// InvCheckoutConfirmed: a checkout (a release claim) is made only when
	// the warehouse ledger holds the cart's confirm.
	InvCheckoutConfirmed = "checkout_confirmed"
	// InvLiveAuthority: every reservation or confirm is committed while
	// the cart's checkout grant is live and covers its units.
	InvLiveAuthority = "live_authority"
)

// Builtin names the built-in invariants that apply to the agent: effects
// on the cart's bound SKU, warehouse, actor and purpose (right_subject); no
// checkout without an effect and no effect under an unapproved grant
// (no_invented_progress); attempts and deadline within budget across
// restarts (budget); nothing consequential after an invalid checkpoint
// (resume_from_checkpoint). The others it leaves out:
// effect_at_most_once (one effect per tool of a task) its own
// confirmed_once and no_oversell say in the cart's terms, its own
// live_authority and checkout_confirmed stand where
// current_entitlement and provable_outcome would (a grant covering each
// step's units, a confirm in the ledger), and join_preserved needs a
// fan-out the agent does not have.
var Builtin = []string{model.InvRightSubject, model.InvNoInventedProgress, model.InvBudget, model.InvResumeFromCheckpoint}

// Invariants returns the inventory's own invariants, each a predicate over
// the run's View that reads the warehouse ledger (written by the harness's
// provider, never by the agent) and the World's records.
func Invariants() []model.UserInvariant {
	return []model.UserInvariant{
		{Name: InvNoOversell, Owner: "inventory", Oracle: "ledger_readback",
			Doc: "units held by reservations of a SKU never exceed its stock", Check: noOversell},
		{Name: InvConfirmHasHold, Owner: "inventory", Oracle: "ledger_readback",
			Doc: "every confirm follows a reservation of the same cart, SKU and units", Check: confirmHasHold},
		{Name: InvConfirmedOnce, Owner: "inventory", Oracle: "ledger_readback",
			Doc: "a cart is confirmed at most once", Check: confirmedOnce},
		{Name: InvCheckoutConfirmed, Owner: "checkout", Oracle: "ledger_readback",
			Doc: "a checkout is claimed only when the ledger holds the cart's confirm", Check: checkoutConfirmed},
		{Name: InvLiveAuthority, Owner: "authority", Oracle: "capability_record",
			Doc: "every step is committed under a live checkout grant covering its units", Check: liveAuthority},
	}
}

// HarnessOptions are the model.Options to test the agent with: the
// built-in invariants in [Builtin], its own [Invariants], and a retry
// budget of 3 (four tool-call attempts for two steps).
func HarnessOptions() model.Options {
	return model.Options{Builtin: Builtin, Invariants: Invariants(), RetryBudget: 3}
}

func noOversell(v model.View) string {
	held := map[string]int64{}
	for _, e := range v.Ledger() {
		if e.Tool != ToolReserve {
			continue
		}
		held[e.Subject] += e.Amount
		if rec, ok := v.Subject(e.Subject); ok && held[e.Subject] > rec.Amount {
			return fmt.Sprintf("%d units of %s held, %d in stock", held[e.Subject], e.Subject, rec.Amount)
		}
	}
	return ""
}

func confirmHasHold(v model.View) string {
	l := v.Ledger()
	for i, e := range l {
		if e.Tool != ToolConfirm {
			continue
		}
		found := false
		for _, r := range l[:i] {
			found = found || r.Tool == ToolReserve && r.Task == e.Task && r.Subject == e.Subject && r.Amount == e.Amount
		}
		if !found {
			return fmt.Sprintf("confirm %s of %s has no reservation before it", e.Key, e.Task)
		}
	}
	return ""
}

func confirmedOnce(v model.View) string {
	n := map[string]int{}
	for _, e := range v.Ledger() {
		if e.Tool == ToolConfirm {
			if n[e.Task]++; n[e.Task] > 1 {
				return fmt.Sprintf("%s confirmed %d times", e.Task, n[e.Task])
			}
		}
	}
	return ""
}

func checkoutConfirmed(v model.View) string {
	c, claimed := v.Claim()
	if !claimed || c.Verdict != model.ClaimRelease {
		return ""
	}
	t := v.Task()
	for _, e := range v.Ledger() {
		if e.Tool == ToolConfirm && e.Task == t.ID {
			return ""
		}
	}
	return "checkout of " + t.ID + " claimed without a confirm on the ledger"
}

// liveAuthority checks, at each tool call, the effects committed during
// it (their commit time is the current clock): the cart's grant must be
// live then and cover the units.
func liveAuthority(v model.View) string {
	if v.Event() != model.EvToolCommit {
		return ""
	}
	t := v.Task()
	for _, e := range v.Ledger() {
		if e.At != v.Clock() || e.Task != t.ID {
			continue
		}
		g, ok := v.Capability(t.Capability)
		switch {
		case !ok:
			return "no checkout grant " + t.Capability
		case !g.Live(v.Clock()):
			return fmt.Sprintf("%s committed while grant %s is not live", e.Tool, g.ID)
		case e.Amount > g.Amount:
			return fmt.Sprintf("%s of %d units exceeds grant %s", e.Tool, e.Amount, g.ID)
		}
	}
	return ""
}
