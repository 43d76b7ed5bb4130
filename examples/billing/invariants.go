package billing

import (
	"fmt"

	"github.com/faultline/faultline/model"
)

// Names of the agent's own invariants.
const (
	// InvChargedOnce: the provider's ledger holds at most one charge per
	// invoice.
	InvChargedOnce = "charged_once"
	// InvPaidHasReceipt: an invoice is claimed paid only when the ledger
	// holds its charge and the evidence ledger holds that charge's receipt.
	InvPaidHasReceipt = "paid_has_receipt"
	// InvChargeApproved: every charge is committed while the invoice's
	// approval is live and covers its amount.
	InvChargeApproved = "charge_approved"
)

// Builtin names the built-in invariants that hold in the agent's world:
// charges for the invoice's own account, tenant, actor and purpose
// (right_subject); no claim of a payment the ledger does not hold and no
// checkpoint naming one (no_invented_progress); attempts and deadline
// within budget across restarts (budget); nothing consequential after an
// invalid checkpoint (resume_from_checkpoint). The other four hold for it
// too; its own invariants state their rules in billing's terms
// (charge_approved, charged_once, paid_has_receipt), so that a
// counterexample names what broke in them.
var Builtin = []string{model.InvRightSubject, model.InvNoInventedProgress, model.InvBudget, model.InvResumeFromCheckpoint}

// Invariants returns the agent's own invariants. Each reads the provider's
// ledger (written by the harness's provider, never by the agent), the
// evidence ledger and the approval's current record.
func Invariants() []model.UserInvariant {
	return []model.UserInvariant{
		{Name: InvChargedOnce, Owner: "billing", Oracle: "ledger_readback",
			Doc: "the ledger holds at most one charge per invoice", Check: chargedOnce},
		{Name: InvPaidHasReceipt, Owner: "billing", Oracle: "receipt",
			Doc: "an invoice is claimed paid only with its charge's receipt on the evidence ledger", Check: paidHasReceipt},
		{Name: InvChargeApproved, Owner: "billing", Oracle: "capability_record",
			Doc: "every charge is committed under a live approval covering its amount", Check: chargeApproved},
	}
}

// Options are the model.Options to test the agent with: [Builtin] and
// [Invariants], the harness's default budgets (two retries, 2,000 ms).
func Options() model.Options {
	return model.Options{Builtin: Builtin, Invariants: Invariants()}
}

func chargedOnce(v model.View) string {
	n := 0
	for _, e := range v.Ledger() {
		if e.Tool == ToolCharge && e.Task == v.Task().ID {
			if n++; n > 1 {
				return fmt.Sprintf("%s charged %d times", e.Task, n)
			}
		}
	}
	return ""
}

func paidHasReceipt(v model.View) string {
	c, claimed := v.Claim()
	if !claimed || c.Verdict != model.ClaimRelease {
		return ""
	}
	t := v.Task()
	for _, e := range v.Ledger() {
		if e.Tool != ToolCharge || e.Task != t.ID {
			continue
		}
		for _, x := range v.Evidence() {
			if x.Kind == "receipt" && x.Task == t.ID && x.ReceiptID == e.ReceiptID {
				return ""
			}
		}
		return fmt.Sprintf("%s claimed paid without receipt %s on the evidence ledger", t.ID, e.ReceiptID)
	}
	return t.ID + " claimed paid without a charge on the ledger"
}

// chargeApproved checks, at each tool call, the charges committed during
// it (their commit time is the current clock).
func chargeApproved(v model.View) string {
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
			return "no approval " + t.Capability
		case !g.Live(v.Clock()):
			return fmt.Sprintf("charge %s committed while approval %s is not live", e.Key, g.ID)
		case e.Amount > g.Amount:
			return fmt.Sprintf("charge of %d exceeds approval %s", e.Amount, g.ID)
		}
	}
	return ""
}
