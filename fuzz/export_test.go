package fuzz

import (
	"errors"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// NewReferenceDecoder is NewDecoder over the reference system (the
// targets' system, under its typed profile), with opts applied after.
func NewReferenceDecoder(opts ...Option) (*Decoder, error) {
	return NewDecoder(referenceDefinition(), append(referenceOptions(), opts...)...)
}

// WithProfile selects a profile of the reference system.
func WithProfile(p copperfin.Profile) Option {
	return withSettings(func(s *copperfin.Settings) { *s = copperfin.Settings{Profile: p, Mutant: s.Mutant} })
}

// WithControls selects an explicit control set of the reference system.
func WithControls(cs copperfin.Controls) Option {
	return withSettings(func(s *copperfin.Settings) {
		*s = copperfin.Settings{Controls: cs, HasControls: true, Mutant: s.Mutant}
	})
}

// WithMutant selects a seeded defect of the reference system.
func WithMutant(name string) Option {
	return withSettings(func(s *copperfin.Settings) { s.Mutant = name })
}

// What the tests outside the package read of its internals.

const MaxOrdinal = maxOrdinal

type ReachCounts = reachCounts

func (d *Decoder) Reach() *reach              { return &d.reach }
func (d *Decoder) Config() model.Config       { return d.config }
func (d *Decoder) Fixture() model.Fixture     { return d.fixture }
func (d *Decoder) SystemName() string         { return d.def.Name }
func (d *Decoder) Crossed() []model.EventName { return append([]model.EventName(nil), d.crossed...) }
func (t *Target) Decoder() *Decoder           { return t.d }
func (d *Decoder) Shrink(s *model.Schedule) (*model.Schedule, *model.Result, error) {
	res, err := d.Check(s)
	if v := (*Violation)(nil); err != nil && !errors.As(err, &v) {
		return nil, nil, err
	}
	sh, err := d.shrink(s, res)
	if err != nil {
		return nil, nil, err
	}
	return sh.schedule, sh.result, nil
}

// NewViolation is the violation Check returns for s's run res on def's
// system, with WithReplayTest's test.
func NewViolation(s *model.Schedule, res *model.Result, def *model.Definition, test string) *Violation {
	return &Violation{Schedule: s, Result: res, def: def, replayTest: test}
}

// ReplayHint is the replay hint of a violation of s on def's system.
func ReplayHint(s *model.Schedule, runID string, def *model.Definition) string {
	return replayHint(s, runID, def, "")
}
