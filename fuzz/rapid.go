package fuzz

import (
	"encoding/json"
	"fmt"
	"sync/atomic"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// RapidProperty returns the property of a rapid fuzz target
// (rapid.MakeFuzz): one schedule drawn from RapidGenerator under the
// decoder's config, verified as a target's input is (Verify). The scope
// does not apply: the generator has its own placement. When count is not
// nil, every check adds one to it and a failure ends with its total.
func (d *Decoder) RapidProperty(count *atomic.Int64) (func(*rapid.T), error) {
	gen, err := d.RapidGenerator()
	if err != nil {
		return nil, err
	}
	return func(t *rapid.T) {
		s := gen.Draw(t, "schedule")
		err := d.Verify(s)
		if count == nil {
			if err != nil {
				t.Fatalf("%v", err)
			}
			return
		}
		n := count.Add(1)
		if err != nil {
			t.Fatalf("%v(this process had checked %d compositions)", err, n)
		}
	}, nil
}

// RapidGenerator returns the generator RapidProperty draws from: the
// exploration's (properties.Generator) without swarm draws, whose flags
// would come before the first fault of every input, limited to WithKinds's
// kinds and, under a config with notices, drawing their kinds too.
func (d *Decoder) RapidGenerator() (*rapid.Generator[*model.Schedule], error) {
	// the decoder's system on its fixture, with no harness options of the
	// definition's: the draws depend on the sites alone
	def := &model.Definition{Name: d.def.Name, Fixtures: []model.Fixture{d.fixture},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			return d.def.Factory(model.Config{System: system})
		}}
	opts := []properties.Option{properties.WithConfig(d.config), properties.WithMaxFaults(min(d.maxFaults, 16))}
	if d.kinds != nil {
		opts = append(opts, properties.WithKinds(d.kinds...))
	}
	gen, err := properties.Generator(def, opts...)
	if err != nil {
		return nil, fmt.Errorf("fuzz: the exploration's generator: %w", err)
	}
	return gen, nil
}
