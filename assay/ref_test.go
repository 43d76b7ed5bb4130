package assay_test

import (
	"encoding/json"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// refDef is the reference system's definition, the system most tests study.
var refDef = copperfin.Definition

// names returns the names of cs's controls.
func names(cs copperfin.Controls) []string {
	out := []string{}
	for _, c := range cs.List() {
		out = append(out, string(c))
	}
	return out
}

// sysOf is the system part of a config with the controls cs.
func sysOf(cs copperfin.Controls) json.RawMessage { return copperfin.ConfigOfControls(cs).System }

// profileOf is the named configuration of a reference profile, as
// copperfin.Definition declares it.
func profileOf(p copperfin.Profile) model.NamedConfig {
	return model.NamedConfig{Name: string(p), System: copperfin.Settings{Profile: p}.JSON(), Defended: p != copperfin.ProfileBaseline}
}

// wrapped returns the reference definition named name whose factory, for
// controls cs and seeded defect mutant, is wrap's.
func wrapped(name string, wrap func(cs copperfin.Controls, mutant string) (model.Factory, error)) *model.Definition {
	def := refDef()
	def.Name = name
	def.Configure = func(system json.RawMessage) (model.Factory, error) {
		s, err := copperfin.ParseSettings(system)
		if err != nil {
			return nil, err
		}
		cs, err := s.Resolve()
		if err != nil {
			return nil, err
		}
		return wrap(cs, s.Mutant)
	}
	return def
}

// cl returns the names of controls.
func cl(cs ...copperfin.Control) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}
