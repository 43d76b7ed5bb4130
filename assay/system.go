package assay

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// ctls is a control set of a system: bit i is the system's i-th control
// (model.Definition.Controls), so sets compare and sort as numbers.
type ctls uint64

func (cs ctls) has(i int) bool     { return cs&(1<<uint(i)) != 0 }
func (cs ctls) with(i int) ctls    { return cs | 1<<uint(i) }
func (cs ctls) without(i int) ctls { return cs &^ (1 << uint(i)) }

// list returns the indexes of cs's controls in order.
func (cs ctls) list() []int {
	var out []int
	for i := 0; i < 64 && cs>>uint(i) != 0; i++ {
		if cs.has(i) {
			out = append(out, i)
		}
	}
	return out
}

// system is a Definition as the evidence instruments use it: its controls
// indexed, its arms built and read through Arm and Armed.
type system struct {
	def   *model.Definition
	index map[string]int
}

// newSystem checks def for the assay: a definition model.Definition.Check
// accepts, of a model-path system (no Clock) with at most 64 controls.
func newSystem(def *model.Definition) (*system, error) {
	if err := def.Check(model.Config{}, model.Options{}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	if def.Clock != nil {
		return nil, fmt.Errorf("%w: system %s is production code (Definition.Clock is set); the assay runs model-path systems", ErrBadConfig, def.Name)
	}
	if len(def.Controls) > 64 {
		return nil, fmt.Errorf("%w: system %s declares %d controls; the assay handles at most 64", ErrBadConfig, def.Name, len(def.Controls))
	}
	s := &system{def: def, index: map[string]int{}}
	for i, c := range def.Controls {
		s.index[c] = i
	}
	return s, nil
}

// canArm reports whether the system's controls can be varied (Arm and
// Armed are set).
func (s *system) canArm() bool { return s.def.Arm != nil && s.def.Armed != nil }

// parse returns the set of the named controls, or an error naming one that
// is not the system's.
func (s *system) parse(names []string) (ctls, error) {
	var cs ctls
	for _, n := range names {
		i, ok := s.index[n]
		if !ok {
			return 0, fmt.Errorf("%w: control %q is not one of system %s's Controls (%s)", ErrBadConfig, n, s.def.Name, strings.Join(s.def.Controls, ", "))
		}
		cs = cs.with(i)
	}
	return cs, nil
}

// names returns the controls of cs in the system's order.
func (s *system) names(cs ctls) []string {
	out := []string{}
	for _, i := range cs.list() {
		out = append(out, s.def.Controls[i])
	}
	return out
}

// str is cs's controls joined by commas, or "none".
func (s *system) str(cs ctls) string {
	if cs == 0 {
		return "none"
	}
	return strings.Join(s.names(cs), ",")
}

// armed returns the controls and seeded defect of a config's system part
// (none when the system cannot be armed).
func (s *system) armed(sys json.RawMessage) (ctls, string, error) {
	if !s.canArm() {
		return 0, "", nil
	}
	if len(sys) == 0 {
		sys = json.RawMessage("{}")
	}
	names, mutant, err := s.def.Armed(sys)
	if err != nil {
		return 0, "", fmt.Errorf("%w: system %s: %v", ErrBadConfig, s.def.Name, err)
	}
	cs, err := s.parse(names)
	return cs, mutant, err
}

// defences returns the controls of the system that defend against kind
// (Definition.Defences, limited to Controls) and its seeded defect.
func (s *system) defences(kind string) (nominated []int, mutant string) {
	if s.def.Defences != nil {
		for _, c := range s.def.Defences(kind) {
			if i, ok := s.index[c]; ok {
				nominated = append(nominated, i)
			}
		}
	}
	if s.def.Defect != nil && s.canArm() {
		mutant = s.def.Defect(kind)
	}
	return nominated, mutant
}

// profile is one named configuration a study runs: its system part, and
// its controls and seeded defect when the system can be armed.
type profile struct {
	name   string
	system json.RawMessage
	cs     ctls
	mutant string
}

// profiles resolves named configurations (nil: the definition's Configs,
// or the one default {}) through Armed; a config the system refuses
// surfaces from its first run (configError).
func (s *system) profiles(ncs []model.NamedConfig) ([]profile, error) {
	if ncs == nil {
		ncs = s.def.Configs
	}
	if len(ncs) == 0 {
		ncs = []model.NamedConfig{{Name: defaultConfig}}
	}
	out := make([]profile, len(ncs))
	for i, nc := range ncs {
		sys := nc.System
		if len(sys) == 0 {
			sys = json.RawMessage("{}")
		}
		var cs ctls
		var m string
		if s.canArm() {
			names, mutant, err := s.def.Armed(sys)
			if err != nil {
				return nil, configError(nc.Name, s.def.Name, err)
			}
			if cs, err = s.parse(names); err != nil {
				return nil, err
			}
			m = mutant
		}
		out[i] = profile{name: nc.Name, system: sys, cs: cs, mutant: m}
	}
	return out, nil
}

// configError is the error of the named configuration name of system sys
// that the system refused (Armed, or Configure on its first run).
func configError(name, sys string, err error) error {
	return fmt.Errorf("%w: configuration %q of %s: %v", ErrBadConfig, name, sys, err)
}

// errFactory is a run's config that the system's Configure refused.
type errFactory struct {
	sys string
	err error
}

func (e *errFactory) Error() string {
	return fmt.Sprintf("%v: system %s: %v", ErrBadConfig, e.sys, e.err)
}
func (e *errFactory) Unwrap() error { return ErrBadConfig }

// arm is one side of a matched pair: a control set and a seeded defect
// ("" for none); raw, when set, is the system part itself (a system that
// cannot be armed runs its named configurations only).
type arm struct {
	cs     ctls
	mutant string
	raw    json.RawMessage
}

// config returns the config of a's system part.
func (s *system) config(a arm) (model.Config, error) {
	if a.raw != nil || !s.canArm() {
		return model.Config{System: a.raw}, nil
	}
	raw, err := s.def.Arm(s.names(a.cs), a.mutant)
	if err != nil {
		return model.Config{}, fmt.Errorf("%w: system %s: %v", ErrBadConfig, s.def.Name, err)
	}
	return model.Config{System: raw}, nil
}
