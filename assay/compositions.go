package assay

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// CompositionConfig says how composition pairs are explored: Draws
// compositions of two to MaxFaults faults per control (0 Draws: none),
// drawn from Seed (see properties.ExplorePair), for each control of the
// named configuration Config ("": the first Defended one of the
// definition's Configs).
type CompositionConfig struct {
	Seed      uint64 `json:"seed"`
	Draws     int    `json:"draws"`
	MaxFaults int    `json:"max_faults"`
	Config    string `json:"config,omitempty"`
	// Replay returns the commands that replay a witness saved as file
	// with the control off (exit 1) and on (exit 0, or 3 when the
	// control's path does not reach a fault of it); nil: the
	// definition's ReplayCommand for off, none for on.
	Replay func(control, file string) (off, on string) `json:"-"`
}

// CompositionPair is the composition witness of one control: an ordered
// composition of faults under which the configuration without the
// control violates an invariant and the configuration holds every one,
// reduced as a pair (properties.PairWitness), or the report that none was
// found in Draws compositions.
type CompositionPair struct {
	Control string `json:"control"`
	Profile string `json:"profile"`
	Seed    uint64 `json:"seed"`
	Draws   int    `json:"draws"`
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
	// ReplayOff and ReplayOn replay the witness saved as its file
	// (composition-CONTROL.json): off exits 1, on exits 0.
	ReplayOff string `json:"replay_off,omitempty"`
	ReplayOn  string `json:"replay_on,omitempty"`
}

// file is the name the dossier writes the witness schedule under:
// composition-CONTROL.json.
func (c CompositionPair) file() string { return "composition-" + c.Control + ".json" }

// CompositionPairs explores, for each control of cc's configuration,
// ordered compositions of faults for the pair "the configuration" against
// "the configuration without the control" on def in setup, and returns
// the witness of each, reduced as a pair, in the definition's control
// order. kinds limits the kinds drawn (nil: the whole catalogue and the
// world events; otherwise those kinds only, without world events). It is
// a pure function of its arguments. It returns an error wrapping
// ErrBadConfig for bad arguments, or a harness error.
func CompositionPairs(def *model.Definition, setup Setup, kinds []string, cc CompositionConfig) ([]CompositionPair, error) {
	sys, err := newSystem(def)
	if err != nil {
		return nil, err
	}
	if cc.Draws < 1 {
		return nil, fmt.Errorf("%w: composition pairs need at least 1 draw, got %d", ErrBadConfig, cc.Draws)
	}
	if !sys.canArm() {
		return nil, fmt.Errorf("%w: system %s has no Arm and Armed: its controls cannot be removed one by one", ErrBadConfig, def.Name)
	}
	var nc *model.NamedConfig
	for i := range def.Configs {
		c := &def.Configs[i]
		if c.Name == cc.Config || cc.Config == "" && c.Defended {
			nc = c
			break
		}
	}
	if nc == nil {
		return nil, fmt.Errorf("%w: system %s has no configuration %q for composition pairs (Definition.Configs)", ErrBadConfig, def.Name, cc.Config)
	}
	profs, err := sys.profiles([]model.NamedConfig{*nc})
	if err != nil {
		return nil, err
	}
	p := profs[0]
	setup = sys.setup(setup)
	// the pairs explore the setup's fixture, under def's invariants
	pd := *def
	pd.Fixtures = []model.Fixture{setup.Fixture}
	opts := []properties.Option{properties.WithHarnessOptions(def.Options(setup.Options)),
		properties.WithMaxFaults(cc.MaxFaults)}
	if kinds != nil {
		opts = append(opts, properties.WithKinds(kinds...), properties.WithoutWorldEvents())
	}
	on, err := sys.config(arm{cs: p.cs, mutant: p.mutant})
	if err != nil {
		return nil, err
	}
	out := []CompositionPair{}
	for _, c := range p.cs.list() {
		off, err := sys.config(arm{cs: p.cs.without(c), mutant: p.mutant})
		if err != nil {
			return nil, err
		}
		name := def.Controls[c]
		rep, err := properties.ExplorePair(&pd, on, off, cc.Seed, cc.Draws, opts...)
		if err != nil {
			return nil, fmt.Errorf("composition pair of %s: %w", name, err)
		}
		cp := CompositionPair{Control: name, Profile: p.name, Seed: cc.Seed, Draws: rep.Draws, Singles: rep.Singles, Found: rep.Found}
		if w := rep.Witness; w != nil {
			cp.Draw, cp.Schedule, cp.Invariant, cp.FirstSeq, cp.Event, cp.FaultKind, cp.OnVerdict = w.Draw, w.Off, w.Invariant, w.FirstSeq, w.Event, w.FaultKind, w.OnVerdict
			switch {
			case cc.Replay != nil:
				cp.ReplayOff, cp.ReplayOn = cc.Replay(name, cp.file())
			case strings.Contains(def.ReplayCommand, "%s"):
				cp.ReplayOff = fmt.Sprintf(def.ReplayCommand, cp.file())
			}
		}
		out = append(out, cp)
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
		replay := ""
		if p.ReplayOff != "" {
			replay = fmt.Sprintf("; replay: %s (exit 1)", p.ReplayOff)
			if p.ReplayOn != "" {
				// on holds every invariant; a fault its path no longer
				// reaches leaves the run inconclusive (exit 3)
				code := 0
				if p.OnVerdict == model.Inconclusive {
					code = 3
				}
				replay += fmt.Sprintf(", %s (exit %d)", p.ReplayOn, code)
			}
		}
		out = append(out, fmt.Sprintf("%s: draw %d of seed %d: [%s] violates %s after seq %d (%s, reached by %s) without it; %s holds (%s)%s",
			p.Control, p.Draw, p.Seed, faultsText(p.Schedule), p.Invariant, p.FirstSeq, p.Event, p.FaultKind, p.Profile, p.OnVerdict, replay))
	}
	return out
}
