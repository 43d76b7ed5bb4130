package assay

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// CompositionConfig says how composition pairs are explored: Draws
// compositions of two to MaxFaults faults per control (0 Draws: none),
// drawn from Seed (see properties.ExplorePair).
type CompositionConfig struct {
	Seed      uint64 `json:"seed"`
	Draws     int    `json:"draws"`
	MaxFaults int    `json:"max_faults"`
}

// Default composition exploration of the audit and the dossier: seed 1,
// 10000 compositions of two or three faults per control (one to two
// seconds of runs per control on one core).
const (
	CompositionSeed      uint64 = 1
	CompositionDraws     int    = 10000
	CompositionMaxFaults int    = 3
)

// DefaultCompositions is the composition exploration of
// DefaultEvidenceConfig.
func DefaultCompositions() CompositionConfig {
	return CompositionConfig{Seed: CompositionSeed, Draws: CompositionDraws, MaxFaults: CompositionMaxFaults}
}

// CompositionPair is the composition witness of one paper control: an
// ordered composition of faults under which the typed profile without the
// control violates an invariant and the typed profile holds every one,
// reduced as a pair (properties.PairWitness), or the report that none was
// found in Draws compositions.
type CompositionPair struct {
	Control copperfin.Control `json:"control"`
	Profile string            `json:"profile"`
	Seed    uint64            `json:"seed"`
	Draws   int               `json:"draws"`
	// Singles counts the drawn compositions whose pair reduced to one
	// fault (the catalogue's single-fault pairs cover those).
	Singles int  `json:"singles"`
	Found   bool `json:"found"`
	// Draw is the 1-based draw that found the witness; Schedule the
	// reduced schedule under the control-off config; Invariant the
	// invariant it violates, FirstSeq and Event where, FaultKind the
	// fault that reached it; OnVerdict the control-on run's verdict.
	Draw      int              `json:"draw,omitempty"`
	Schedule  *model.Schedule  `json:"schedule,omitempty"`
	Invariant string           `json:"invariant,omitempty"`
	FirstSeq  int              `json:"first_seq,omitempty"`
	Event     model.EventName  `json:"event,omitempty"`
	FaultKind string           `json:"fault_kind,omitempty"`
	OnVerdict model.RunVerdict `json:"on_verdict,omitempty"`
	// ReplayOff and ReplayOn replay the witness saved as FILE: off exits
	// 1 (an invariant violated), on exits 0.
	ReplayOff string `json:"replay_off,omitempty"`
	ReplayOn  string `json:"replay_on,omitempty"`
}

// File is the name the dossier writes the witness schedule under:
// composition-CONTROL.json.
func (c CompositionPair) File() string { return "composition-" + string(c.Control) + ".json" }

// CompositionPairs explores, for each of the paper's controls
// (copperfin.PaperControls), ordered compositions of faults for the pair
// "typed" against "typed without the control" on sys in setup, and
// returns the witness of each, reduced as a pair, in control order.
// kinds limits the kinds drawn (nil: the whole catalogue and the world
// events; otherwise those kinds only, without world events). It is a pure
// function of its arguments. It returns an error for bad arguments or a
// harness error.
func CompositionPairs(sys System, setup Setup, kinds []string, cc CompositionConfig) ([]CompositionPair, error) {
	if cc.Draws < 1 {
		return nil, fmt.Errorf("%w: composition pairs need at least 1 draw, got %d", ErrBadConfig, cc.Draws)
	}
	psys := func(cfg model.Config) (model.Factory, error) {
		cs, err := copperfin.ControlsOf(cfg)
		if err != nil {
			return nil, err
		}
		return sys.factory(cs, copperfin.MutantOf(cfg))
	}
	def := &model.Definition{Name: copperfin.Name, Fixtures: []model.Fixture{setup.Fixture},
		Configure: func(system json.RawMessage) (model.Factory, error) { return psys(model.Config{System: system}) }}
	opts := []properties.Option{properties.WithHarnessOptions(setup.Options),
		properties.WithMaxFaults(cc.MaxFaults)}
	if kinds != nil {
		opts = append(opts, properties.WithKinds(kinds...), properties.WithoutWorldEvents())
	}
	typed, _ := copperfin.ProfileControls(copperfin.ProfileTyped)
	out := []CompositionPair{}
	for _, c := range copperfin.PaperControls {
		rep, err := properties.ExplorePair(def, copperfin.ConfigOfControls(typed), copperfin.ConfigOfControls(typed.Without(c)), cc.Seed, cc.Draws, opts...)
		if err != nil {
			return nil, fmt.Errorf("composition pair of %s: %w", c, err)
		}
		p := CompositionPair{Control: c, Profile: string(copperfin.ProfileTyped), Seed: cc.Seed, Draws: rep.Draws, Singles: rep.Singles, Found: rep.Found}
		if w := rep.Witness; w != nil {
			p.Draw, p.Schedule, p.Invariant, p.FirstSeq, p.Event, p.FaultKind, p.OnVerdict = w.Draw, w.Off, w.Invariant, w.FirstSeq, w.Event, w.FaultKind, w.OnVerdict
			p.ReplayOff = fmt.Sprintf("faultline replay --profile typed --without %s %s", c, p.File())
			p.ReplayOn = fmt.Sprintf("faultline replay --profile typed %s", p.File())
		}
		out = append(out, p)
	}
	return out, nil
}

// faultsText is a schedule's faults in one line: "event#ordinal kind" (and
// "=target"), in schedule order.
func faultsText(s *model.Schedule) string {
	parts := make([]string, len(s.Faults))
	for i, f := range s.Faults {
		parts[i] = fmt.Sprintf("%s#%d %s", f.Event, f.Ordinal, f.Kind)
		if f.Target != "" {
			parts[i] += "=" + f.Target
		}
	}
	return strings.Join(parts, ", ")
}

// compositionNotes describes the composition pairs for people.
func compositionNotes(cps []CompositionPair) []string {
	var out []string
	for _, p := range cps {
		if !p.Found {
			out = append(out, fmt.Sprintf("%s: no composition witness in %d draws from seed %d (%d single-fault pairs passed over)", p.Control, p.Draws, p.Seed, p.Singles))
			continue
		}
		out = append(out, fmt.Sprintf("%s: draw %d of seed %d: [%s] violates %s after seq %d (%s, reached by %s) without it; typed holds (%s); replay: %s (exit 1), %s (exit 0)",
			p.Control, p.Draw, p.Seed, faultsText(p.Schedule), p.Invariant, p.FirstSeq, p.Event, p.FaultKind, p.OnVerdict, p.ReplayOff, p.ReplayOn))
	}
	return out
}
