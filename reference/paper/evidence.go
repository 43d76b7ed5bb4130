package paper

import (
	"fmt"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// Stop is the blast radius the audit and the dossier declare before
// their runs (the paper, step 4): at most two ledger effects, at most
// three fault firings (budget_exhaustion fires on each of the 1 + 2
// attempts the largest retry budget allows), an abort when duplicate
// effects exceed one, and an expiry at 10,000 logical ms. No trial of a
// represented single fault meets them; unbounded_retry, in the pair of
// budget_exhaustion, is stopped by max_faults at its fourth firing, after
// the oracle has recorded the budget violation.
var Stop = model.Stop{MaxEffects: 2, MaxFaults: 3, Abort: "duplicate_effects", AbortAbove: 1, Expiry: 10000}

// Roles is the remediation class of each of the paper's seven controls:
// authority checks at effect time narrow authority; idempotent retry and
// independent readback add recovery; an evidence gate on release changes
// the architecture of the release path. deny_on_warning and
// notice_reconcile are not offered as remediations.
var Roles = map[string]assay.Remediation{
	string(copperfin.BindIdentity):       assay.NarrowAuthority,
	string(copperfin.PreEffectAuthority): assay.NarrowAuthority,
	string(copperfin.RefreshContext):     assay.NarrowAuthority,
	string(copperfin.StatePrecondition):  assay.NarrowAuthority,
	string(copperfin.Idempotency):        assay.AddRecovery,
	string(copperfin.EffectReadback):     assay.AddRecovery,
	string(copperfin.EvidenceGate):       assay.ChangeArchitecture,
}

// Variation is the variation study of the audit and the dossier: retry
// budgets 1 and 2 and deadlines 340 and 2000 logical ms. Under typed, 340
// ms is shorter than the workflow's two slowest recoveries (a resume
// after a checkpoint rollback ends at 352 ms; a rate-limited retry waits
// 100 ms and no longer fits) and longer than every other path (332 ms);
// 2000 ms is the model's default.
func Variation() assay.Variation {
	return assay.Variation{assay.RetryBudgets(1, 2), assay.Deadlines(340, 2000)}
}

// Compositions is the composition exploration of the audit and the
// dossier: seed 1, 10000 compositions of two or three faults for each
// control of typed (one to two seconds of runs per control on one core),
// with the faultline command's replay lines.
func Compositions() assay.CompositionConfig {
	return assay.CompositionConfig{Seed: 1, Draws: 10000, MaxFaults: 3, Config: string(copperfin.ProfileTyped),
		Replay: func(control, file string) (string, string) {
			return fmt.Sprintf("faultline replay --profile typed --without %s %s", control, file),
				fmt.Sprintf("faultline replay --profile typed %s", file)
		}}
}

// EvidenceConfig is what the audit and the dossier gather on the
// reference system (copperfin.Definition): the Copperfin fixture with
// Stop, the three profiles, AuditTrials trials with seed AuditSeed over
// the whole catalogue, Variation, assay.DefaultEnvelope, Compositions and
// Roles.
func EvidenceConfig() assay.EvidenceConfig {
	return assay.EvidenceConfig{Base: assay.Setup{Options: model.Options{Stop: Stop}, Fixture: copperfin.Copperfin()},
		Trials: AuditTrials, Seed: AuditSeed, Variation: Variation(), Envelope: assay.DefaultEnvelope(),
		Compositions: Compositions(), Roles: Roles}
}
