package assay

import (
	"errors"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// DefaultStop is the blast radius the audit and the dossier declare before
// their runs (the paper, step 4): at most two ledger effects (the largest
// transfer a represented single fault makes is one duplicate), at most
// three fault firings (a persistent fault fires on every attempt:
// budget_exhaustion fires on each of the 1 + 2 attempts the largest retry
// budget allows), an abort when duplicate effects exceed one, and an expiry
// at 10,000 logical ms. No trial of a represented single fault meets them,
// so they bound the runs without changing a figure; a run that met one
// would stop and be counted in Study.Stops. A seeded defect that retries
// without bound (unbounded_retry, in the counterfactual pair of
// budget_exhaustion) is stopped by max_faults at its fourth firing, after
// the oracle has recorded the budget violation at that crossing.
var DefaultStop = model.Stop{MaxEffects: 2, MaxFaults: 3, Abort: model.AbortDuplicateEffects, AbortAbove: 1, Expiry: 10000}

// EvidenceConfig declares the release evidence to gather: the system, the
// base setup, the profiles, the trial plan, the configurations of the
// variation study and the release envelope.
type EvidenceConfig struct {
	System    System
	Base      Setup
	Profiles  []copperfin.Profile
	Trials    int
	Seed      int64
	Compat    bool
	Variation Variation
	Envelope  Envelope
	// Compositions is the composition-pair exploration (zero Draws: none;
	// with Compat, over the paper's ten kinds without world events).
	Compositions CompositionConfig
}

// DefaultEvidenceConfig is what the audit and the dossier gather: the
// reference system on the Copperfin fixture with DefaultStop, the three
// profiles, AuditTrials trials with seed AuditSeed over the whole
// catalogue, DefaultVariation, DefaultEnvelope and DefaultCompositions.
func DefaultEvidenceConfig() EvidenceConfig {
	return EvidenceConfig{System: Reference(), Base: Setup{Options: model.Options{Stop: DefaultStop}, Fixture: copperfin.Copperfin()},
		Profiles: append([]copperfin.Profile(nil), copperfin.Profiles...), Trials: AuditTrials, Seed: AuditSeed,
		Variation: DefaultVariation(), Envelope: DefaultEnvelope(), Compositions: DefaultCompositions()}
}

// Evidence is the release evidence of a configured system: the reference
// study (the base setup only: the figures the release placement rests on)
// and the variation study (the same plan with each trial's configuration
// drawn from the Variation, the paper's step 8), which reports the worst
// configuration of each critical fault.
type Evidence struct {
	Reference *Study `json:"reference"`
	Variation *Study `json:"variation"`
	// Compositions are the composition witnesses of the paper's controls
	// (see CompositionPairs); empty when none were explored.
	Compositions []CompositionPair `json:"composition_pairs"`
}

// Gather runs both studies of cfg. It returns an error wrapping
// ErrBadConfig for a bad config, or a harness error.
func Gather(cfg EvidenceConfig) (*Evidence, error) {
	sc := StudyConfig{Name: "reference", System: cfg.System, Base: cfg.Base, Profiles: cfg.Profiles, Trials: cfg.Trials,
		Seed: cfg.Seed, Compat: cfg.Compat, Envelope: cfg.Envelope}
	vc := sc
	vc.Name, vc.Variation = "variation", cfg.Variation
	// The two studies share nothing mutable (each has its own harnesses),
	// so they run side by side; each is deterministic on its own.
	var vary *Study
	var verr, cerr error
	comps := []CompositionPair{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		vary, verr = RunStudy(vc)
		if verr != nil || cfg.Compositions.Draws == 0 {
			return
		}
		var kinds []string
		if cfg.Compat {
			for _, spec := range model.Catalogue() {
				if spec.Paper {
					kinds = append(kinds, spec.Kind)
				}
			}
		}
		comps, cerr = CompositionPairs(cfg.System, cfg.Base, kinds, cfg.Compositions)
	}()
	ref, err := RunStudy(sc)
	<-done
	if err := errors.Join(err, verr, cerr); err != nil {
		return nil, err
	}
	return &Evidence{Reference: ref, Variation: vary, Compositions: comps}, nil
}
