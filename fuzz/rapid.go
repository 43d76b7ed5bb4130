package fuzz

import (
	"encoding/json"
	"fmt"
	"sync/atomic"

	"pgregory.net/rapid"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// RapidProperty returns the property the rapid fuzz target checks through
// rapid.MakeFuzz: it draws one schedule from the exploration's generator
// (properties.Generator: one to min(MaxFaults, 16) kinds of the catalogue
// and world events, each at an event it fits that the run under the
// faults drawn before it crossed, at an ordinal up to that run's count,
// with drawn targets), under the decoder's config and fixture and for its
// system, and fails with Verify's *Failure message (the violated
// invariants, the schedule in canonical form and the replay command, then
// the schedule shrunk), as a native target's body does, when the run
// violates an invariant. The decoder's scope does not apply: the
// generator has its own placement. It returns an error when the generator
// cannot be built (a harness error on the clean run). When count is not
// nil, every check adds one to it, and a failure message ends with the
// number of checks the process had made (as the composition target's does).
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

// RapidGenerator returns the generator RapidProperty draws from. It draws
// without swarm draws (properties.WithoutSwarm): the fuzzer's own
// mutations vary the input, and a swarm's flags, one draw for every kind
// and site in scope, would come before the first fault in every input.
// The decoder's WithKinds limits its kinds; under a config with notices
// it draws the kinds of the provider's notices too.
func (d *Decoder) RapidGenerator() (*rapid.Generator[*model.Schedule], error) {
	// the decoder's system on its fixture, with no harness options of the
	// definition's: the draws depend on the sites alone
	def := &model.Definition{Name: d.def.Name, Fixtures: []model.Fixture{d.fixture},
		Configure: func(system json.RawMessage) (model.Factory, error) { return d.system.New(model.Config{System: system}) }}
	opts := []properties.Option{properties.WithConfig(d.config), properties.WithMaxFaults(min(d.maxFaults, 16)), properties.WithoutSwarm()}
	if d.kinds != nil {
		opts = append(opts, properties.WithKinds(d.kinds...))
	}
	gen, err := properties.Generator(def, opts...)
	if err != nil {
		return nil, fmt.Errorf("fuzz: the exploration's generator: %w", err)
	}
	return gen, nil
}
