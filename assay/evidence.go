package assay

import (
	"errors"

	"github.com/faultline/faultline/model"
)

// EvidenceConfig declares the release evidence to gather: the base setup,
// the named configurations (profiles), the trial plan, the configurations
// of the variation study, the release envelope, the composition pairs and
// the remediation roles of the controls.
type EvidenceConfig struct {
	Base Setup
	// Profiles are the named configurations studied (nil: the
	// definition's Configs).
	Profiles  []model.NamedConfig
	Trials    int
	Seed      int64
	Compat    bool
	Variation Variation
	Envelope  Envelope
	// Compositions is the composition-pair exploration (zero Draws: none;
	// with Compat, over the paper's ten kinds without world events).
	Compositions CompositionConfig
	// Roles are StudyConfig.Roles.
	Roles map[string]Remediation
}

// Evidence is the release evidence of a configured system: the base study
// (the base setup only: the figures the release placement rests on) and
// the variation study (the same plan with each trial's configuration
// drawn from the Variation, the paper's step 8), which reports the worst
// configuration of each critical fault.
type Evidence struct {
	Base      *Study `json:"base"`
	Variation *Study `json:"variation"`
	// Compositions are the composition witnesses (see CompositionPairs);
	// empty when none were explored.
	Compositions []CompositionPair `json:"composition_pairs"`
}

// Gather runs both studies of cfg on def; with no Variation the variation
// study is the base study under its own name (run once). It returns an
// error wrapping ErrBadConfig for a bad config or definition, or a harness
// error.
func Gather(def *model.Definition, cfg EvidenceConfig) (*Evidence, error) {
	return gather(def, cfg, nil)
}

// gather is Gather with observe seeing each distinct run of both studies
// (from two goroutines: observe must be safe for concurrent use).
func gather(def *model.Definition, cfg EvidenceConfig, observe func(*model.Result)) (*Evidence, error) {
	sc := StudyConfig{Name: "base", Base: cfg.Base, Profiles: cfg.Profiles, Trials: cfg.Trials,
		Seed: cfg.Seed, Compat: cfg.Compat, Envelope: cfg.Envelope, Roles: cfg.Roles, observe: observe}
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
		if len(cfg.Variation) > 0 {
			vary, verr = RunStudy(def, vc)
		}
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
		base := cfg.Base
		base.Options.Compat = base.Options.Compat || cfg.Compat
		comps, cerr = CompositionPairs(def, base, kinds, cfg.Compositions)
	}()
	ref, err := RunStudy(def, sc)
	<-done
	if err := errors.Join(err, verr, cerr); err != nil {
		return nil, err
	}
	if vary == nil {
		// no variation declared: its one configuration is the base's, so
		// the base study's figures are the variation study's (one run of
		// each trial, one error line)
		v := *ref
		v.Name = vc.Name
		vary = &v
	}
	return &Evidence{Base: ref, Variation: vary, Compositions: comps}, nil
}
