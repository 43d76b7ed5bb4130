package properties_test

import (
	"pgregory.net/rapid"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
	"github.com/faultline/faultline/reference/copperfin"
)

// refOpts are the options of an exploration of the reference system:
// its paper fixture and typed profile, with opts applied after.
func refOpts(opts ...properties.Option) []properties.Option {
	return append([]properties.Option{properties.WithFixture(copperfin.Copperfin()),
		properties.WithConfig(copperfin.ConfigOfProfile(copperfin.ProfileTyped))}, opts...)
}

func explore(sys properties.System, opts ...properties.Option) (*properties.Report, error) {
	return properties.Explore(sys, refOpts(opts...)...)
}

func check(t rapid.TB, sys properties.System, opts ...properties.Option) {
	t.Helper()
	properties.Check(t, sys, refOpts(opts...)...)
}

// explorePair takes no WithConfig: its sides are on and off.
func explorePair(sys properties.System, on, off model.Config, seed uint64, draws int, opts ...properties.Option) (*properties.PairReport, error) {
	return properties.ExplorePair(sys, on, off, seed, draws, append([]properties.Option{properties.WithFixture(copperfin.Copperfin())}, opts...)...)
}

// ctl is the control set a reference config selects (0 when it selects
// none it can resolve).
func ctl(cfg model.Config) copperfin.Controls {
	cs, _ := copperfin.ControlsOf(cfg)
	return cs
}

func generator(sys properties.System, opts ...properties.Option) (*rapid.Generator[*model.Schedule], error) {
	return properties.Generator(sys, refOpts(opts...)...)
}
