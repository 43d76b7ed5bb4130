package fuzz

import "github.com/faultline/faultline/reference/copperfin"

// NewReferenceDecoder is NewDecoder over the reference system (the
// targets' system, under its typed profile), with opts applied after.
func NewReferenceDecoder(opts ...Option) (*Decoder, error) {
	return NewDecoder(append(referenceOptions(), opts...)...)
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
