package properties_test

import (
	"encoding/json"
	"slices"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// define is the Definition of a test system: sys builds its factory from
// a run's config, and fx are its fixtures, the first the default.
func define(sys func(model.Config) (model.Factory, error), fx ...model.Fixture) *model.Definition {
	return &model.Definition{Name: "test_system", Fixtures: fx,
		Configure: func(system json.RawMessage) (model.Factory, error) { return sys(model.Config{System: system}) }}
}

// fixed is a system that takes no config: f for every run.
func fixed(f model.Factory) func(model.Config) (model.Factory, error) {
	return func(model.Config) (model.Factory, error) { return f, nil }
}

// ref is the reference system's Definition with fx as its first fixtures
// (the first the default), then its own others.
func ref(fx ...model.Fixture) *model.Definition {
	def := copperfin.Definition()
	out := slices.Clone(fx)
	for _, f := range def.Fixtures {
		if !slices.ContainsFunc(fx, func(g model.Fixture) bool { return g.Name == f.Name }) {
			out = append(out, f)
		}
	}
	def.Fixtures = out
	return def
}

// exhaustive is Explore's exhaustive walk of def, its walk's report.
func exhaustive(def *model.Definition, opts ...properties.Option) (*properties.ExhaustiveReport, error) {
	rep, err := properties.Explore(def, append(append([]properties.Option{}, opts...), properties.WithExhaustive())...)
	if err != nil {
		return nil, err
	}
	return rep.Exhaustive, nil
}

// sysdef is the Definition of a test system whose workload the test
// gives with WithFixtureValue: its own fixture is a placeholder.
func sysdef(sys func(model.Config) (model.Factory, error)) *model.Definition {
	return define(sys, model.Fixture{Name: "placeholder", Tasks: []model.Task{{ID: "placeholder"}}})
}
