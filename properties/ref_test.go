package properties_test

import (
	"encoding/json"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// refOpts are the options of an exploration of the reference system:
// its paper fixture and typed profile, replayed by the faultline command,
// the random phase alone (these tests measure its draws; the default
// check's walk phase has tests of its own), with opts applied after.
func refOpts(opts ...properties.Option) []properties.Option {
	return append([]properties.Option{properties.WithConfig(copperfin.ConfigOfProfile(copperfin.ProfileTyped)),
		properties.WithReplayCommand("faultline replay %s"), properties.WithoutWalk()}, opts...)
}

// refSystem is the reference system's Definition with sys as its
// Configure (copperfin.Configured, or a variant of it).
func refSystem(sys func(model.Config) (model.Factory, error)) *model.Definition {
	def := copperfin.Definition()
	def.Configure = func(system json.RawMessage) (model.Factory, error) { return sys(model.Config{System: system}) }
	return def
}

func explore(sys func(model.Config) (model.Factory, error), opts ...properties.Option) (*properties.Report, error) {
	return properties.Explore(refSystem(sys), refOpts(opts...)...)
}

func check(t rapid.TB, sys func(model.Config) (model.Factory, error), opts ...properties.Option) {
	t.Helper()
	properties.CheckTB(t, nil, refSystem(sys), refOpts(opts...)...)
}

// explorePair takes no WithConfig: its sides are on and off.
func explorePair(sys func(model.Config) (model.Factory, error), on, off model.Config, seed uint64, draws int, opts ...properties.Option) (*properties.PairReport, error) {
	return properties.ExplorePair(refSystem(sys), on, off, seed, draws, opts...)
}

// ctl is the control set a reference config selects (0 when it selects
// none it can resolve).
func ctl(cfg model.Config) copperfin.Controls {
	cs, _ := copperfin.ControlsOf(cfg)
	return cs
}

func generator(sys func(model.Config) (model.Factory, error), opts ...properties.Option) (*rapid.Generator[*model.Schedule], error) {
	return properties.Generator(refSystem(sys), refOpts(opts...)...)
}
