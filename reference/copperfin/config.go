package copperfin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/faultline/faultline/internal/strictjson"
	"github.com/faultline/faultline/model"
)

// Settings is the reference system's own part of a schedule's config
// (model.Config.System): a named profile or an explicit control set
// (exactly one), and optionally a seeded defect. In a schedule file:
//
//	"system": {"profile": "typed"}
//	"system": {"controls": ["bind_identity", "idempotency"], "mutant": "key_per_attempt"}
type Settings struct {
	Profile  Profile
	Controls Controls
	// HasControls is true when the settings name controls rather than a
	// profile.
	HasControls bool
	// Mutant names a seeded defect, one of Mutants ("" for none).
	Mutant string
}

type settingsJSON struct {
	Profile  *string   `json:"profile,omitempty"`
	Controls *[]string `json:"controls,omitempty"`
	Mutant   string    `json:"mutant,omitempty"`
}

// Resolve returns the control set the settings select, or an error naming
// an unknown profile.
func (s Settings) Resolve() (Controls, error) {
	if s.HasControls {
		return s.Controls, nil
	}
	return ProfileControls(s.Profile)
}

// String is "profile NAME" or "controls a,b,c" ("controls none" for the
// empty set), followed by ", mutant NAME" when one is set.
func (s Settings) String() string {
	out := "profile " + string(s.Profile)
	if s.HasControls {
		out = "controls " + s.Controls.String()
	}
	if s.Mutant != "" {
		out += ", mutant " + s.Mutant
	}
	return out
}

// JSON returns the settings as a config's system part, in canonical form
// (controls in AllControls order).
func (s Settings) JSON() json.RawMessage {
	var j settingsJSON
	j.Mutant = s.Mutant
	if s.HasControls {
		l := []string{}
		for _, c := range s.Controls.List() {
			l = append(l, string(c))
		}
		j.Controls = &l
	} else {
		p := string(s.Profile)
		j.Profile = &p
	}
	raw, err := model.SystemConfig(j)
	if err != nil {
		panic(fmt.Sprintf("copperfin: encoding settings: %v", err)) // plain data: cannot fail
	}
	return raw
}

// Config returns a model.Config whose system part is s and whose harness
// part is empty.
func (s Settings) Config() model.Config { return model.Config{System: s.JSON()} }

// ConfigOfProfile returns a config naming profile p.
func ConfigOfProfile(p Profile) model.Config { return Settings{Profile: p}.Config() }

// ConfigOfControls returns a config with an explicit control set.
func ConfigOfControls(cs Controls) model.Config {
	return Settings{Controls: cs, HasControls: true}.Config()
}

// WithMutant returns cfg with its system part naming the seeded defect
// mutant ("" for none), its harness part unchanged. It panics when cfg's
// system part is not the reference system's (programmer misuse: decode
// user input with ParseSettings).
func WithMutant(cfg model.Config, mutant string) model.Config {
	s, err := SettingsOf(cfg)
	if err != nil {
		panic(fmt.Sprintf("copperfin: WithMutant: %v", err))
	}
	s.Mutant = mutant
	cfg.System = s.JSON()
	return cfg
}

// SettingsOf decodes cfg's system part (ParseSettings).
func SettingsOf(cfg model.Config) (Settings, error) { return ParseSettings(cfg.SystemJSON()) }

// ParseSettings decodes a config's system part strictly: an unknown,
// misspelt or repeated key, a part naming both or neither of profile and
// controls, an unknown profile, an unknown or repeated control and an
// unknown mutant are errors that name it.
func ParseSettings(system json.RawMessage) (Settings, error) {
	var j settingsJSON
	if len(system) == 0 {
		system = json.RawMessage("{}")
	}
	if err := strictjson.Decode(system, &j); err != nil {
		return Settings{}, fmt.Errorf("config: %w", err)
	}
	var s Settings
	switch {
	case j.Profile != nil && j.Controls != nil:
		return Settings{}, errors.New(`config: give "profile" or "controls", not both`)
	case j.Profile != nil:
		if _, err := ProfileControls(Profile(*j.Profile)); err != nil {
			return Settings{}, fmt.Errorf("config: %w", err)
		}
		s = Settings{Profile: Profile(*j.Profile)}
	case j.Controls != nil:
		cs, err := ParseControls(*j.Controls)
		if err != nil {
			return Settings{}, fmt.Errorf("config: %w", err)
		}
		s = Settings{Controls: cs, HasControls: true}
	default:
		return Settings{}, errors.New(`config: needs "profile" or "controls"`)
	}
	if _, err := ParseMutant(j.Mutant); err != nil {
		return Settings{}, fmt.Errorf("config: %w", err)
	}
	s.Mutant = j.Mutant
	return s, nil
}

// Name is the reference system's name in its Definition.
const Name = "copperfin"

// Definition returns the reference system's description for the paths
// that need more than a factory: its fixtures (Copperfin, the default,
// and CopperfinBatch), its config's system part (Settings) and its
// description, its nine controls, its defence table (Defences, and
// MutantFor as Defect), its arms (Arm, Armed: an explicit control set and
// a seeded defect) and its named configurations, the profiles baseline,
// typed (marked defended) and fail_closed. The built-in invariants are all
// in scope. Each call returns a fresh value.
func Definition() *model.Definition {
	names := make([]string, len(AllControls))
	for i, c := range AllControls {
		names[i] = string(c)
	}
	// its named configurations are its profiles; typed is expected to
	// hold every invariant under every single fault. fail_closed is not:
	// it denies refunds the provider made (deny_on_warning after a lost
	// reply, a rollback or a dropped receipt), which
	// recorded_agrees_with_ledger reports; the paper calls it safe but dead
	configs := make([]model.NamedConfig, len(Profiles))
	for i, p := range Profiles {
		configs[i] = model.NamedConfig{Name: string(p), System: Settings{Profile: p}.JSON(), Defended: p == ProfileTyped}
	}
	return &model.Definition{
		Name:     Name,
		Configs:  configs,
		Fixtures: []model.Fixture{Copperfin(), CopperfinBatch(), CopperfinTenants(), CopperfinFleet(FleetAgents)},
		// a fleet of another size, copperfin-fleet-N, by name
		FixtureNamed: FixtureNamed,
		Configure:    configure,
		Describe: func(system json.RawMessage) (string, error) {
			s, err := ParseSettings(system)
			if err != nil {
				return "", err
			}
			return s.String(), nil
		},
		Controls: names,
		Defences: func(kind string) []string {
			nominated, _ := Defences(kind)
			out := make([]string, len(nominated))
			for i, c := range nominated {
				out[i] = string(c)
			}
			return out
		},
		Arm: func(controls []string, mutant string) (json.RawMessage, error) {
			cs, err := ParseControls(controls)
			if err != nil {
				return nil, err
			}
			if _, err := ParseMutant(mutant); err != nil {
				return nil, err
			}
			return Settings{Controls: cs, HasControls: true, Mutant: mutant}.JSON(), nil
		},
		Armed: func(system json.RawMessage) ([]string, string, error) {
			cs, mutant, err := resolved(system)
			if err != nil {
				return nil, "", err
			}
			l := cs.List()
			names := make([]string, len(l))
			for i, c := range l {
				names[i] = string(c)
			}
			return names, mutant, nil
		},
		Defect: MutantFor,
	}
}

// configure builds the reference system from a config's system part.
func configure(system json.RawMessage) (model.Factory, error) {
	cs, mutant, err := resolved(system)
	if err != nil {
		return nil, err
	}
	return NewFactory(cs, mutant)
}

// lastResolved keeps the controls and mutant of the system part configure
// read last: exploration configures the same part for every check, and
// decoding it was a thirteenth of a check. It holds values, not a
// factory, so every call still builds a factory of its own.
var lastResolved struct {
	sync.Mutex
	system   string
	cs       Controls
	mutant   string
	resolved bool
}

// resolved returns the controls and mutant system names, decoding it
// unless it is the part resolved last.
func resolved(system json.RawMessage) (Controls, string, error) {
	lastResolved.Lock()
	if lastResolved.resolved && lastResolved.system == string(system) {
		cs, m := lastResolved.cs, lastResolved.mutant
		lastResolved.Unlock()
		return cs, m, nil
	}
	lastResolved.Unlock()
	s, err := ParseSettings(system)
	if err != nil {
		return 0, "", err
	}
	cs, err := s.Resolve()
	if err != nil {
		return 0, "", err
	}
	lastResolved.Lock()
	lastResolved.system, lastResolved.cs, lastResolved.mutant, lastResolved.resolved = string(system), cs, s.Mutant, true
	lastResolved.Unlock()
	return cs, s.Mutant, nil
}

// Configured returns the factory of the reference system under cfg's
// system part: Definition().Factory.
func Configured(cfg model.Config) (model.Factory, error) { return configure(cfg.SystemJSON()) }

// Describe names cfg as people read it: the settings (Settings.String),
// then the harness part's overrides ("profile typed, retry_budget 1, join
// best_effort"). A system part that is not the reference system's is
// shown as JSON (model.Config.String).
func Describe(cfg model.Config) string {
	s, err := Definition().DescribeConfig(cfg)
	if err != nil {
		return cfg.String()
	}
	return s
}

// MutantOf returns the seeded defect cfg's system part names ("" for none,
// or when the system part is not the reference system's). It reads the
// part only when it mentions a mutant, so it is cheap on a hot path.
func MutantOf(cfg model.Config) string {
	if !bytes.Contains(cfg.System, []byte(`"mutant"`)) {
		return ""
	}
	s, err := SettingsOf(cfg)
	if err != nil {
		return ""
	}
	return s.Mutant
}

// ControlsOf returns the control set cfg's system part selects, or the
// error ParseSettings or Resolve returns.
func ControlsOf(cfg model.Config) (Controls, error) {
	s, err := SettingsOf(cfg)
	if err != nil {
		return 0, err
	}
	return s.Resolve()
}
