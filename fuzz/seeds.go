package fuzz

import (
	"fmt"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
)

// seeds are the seed inputs of the targets that start from the corpus
// (all but the rapid target), read from it.
type seeds struct {
	// composition: every corpus schedule that is a composition of the
	// decoder's scope, encoded, plus the empty input and one fault per
	// site up to the fault limit (one byte a fault, or under
	// WithModifiers the site's bytes and a modifier byte of 0).
	composition [][]byte
	// files: the raw bytes of every corpus file, schedule or
	// counterexample, and the canonical form of every schedule.
	files [][]byte
	// notes say which corpus schedules were left out of composition and
	// why.
	notes []string
}

// loadSeeds reads dir and builds the seeds for d. With skipViolating, a
// corpus schedule whose run under d's config and system already violates
// an invariant is a known counterexample, not a starting point: it is left
// out of the composition seeds (and named in notes), so that fuzzing
// explores from the compositions that hold.
func loadSeeds(d *Decoder, dir string, skipViolating bool) (*seeds, error) {
	c, err := corpus.Load(dir)
	if err != nil {
		return nil, err
	}
	out := &seeds{}
	candidates := [][]byte{{}}
	from := []string{"the empty input"}
	// under WithModifiers each site's byte is followed by a modifier
	// byte of 0 (none): the same plain faults
	var all []byte
	for i := range min(len(d.sites), d.maxFaults) {
		if d.width == 2 {
			all = append(all, byte(i>>8))
		}
		all = append(all, byte(i))
		if d.mods != nil {
			all = append(all, 0)
		}
	}
	if d.stride() == 1 || d.mods != nil {
		candidates = append(candidates, all)
		from = append(from, fmt.Sprintf("the byte seed %x", all))
	}
	for _, s := range c.Seeds {
		out.files = append(out.files, s.Raw)
	}
	for _, e := range c.Counterexamples {
		out.files = append(out.files, e.Raw)
	}
	names := make([]string, 0, len(c.Seeds)+len(c.Counterexamples))
	for _, s := range c.Seeds {
		names = append(names, s.Path)
	}
	for _, e := range c.Counterexamples {
		if e.Counterexample.Schedule != nil {
			names = append(names, e.Path)
		}
	}
	for i, s := range c.Schedules() {
		out.files = append(out.files, model.Format(s))
		b, err := d.Encode(s)
		if err != nil {
			out.notes = append(out.notes, fmt.Sprintf("%s: not a composition of scope %s: %v", names[i], d.scope, err))
			continue
		}
		candidates = append(candidates, b)
		from = append(from, names[i])
	}
	for i, b := range candidates {
		if skipViolating {
			if _, err := d.Check(d.Decode(b)); err != nil {
				out.notes = append(out.notes, fmt.Sprintf("%s: already violates an invariant under %s (system %s): a known counterexample, not a seed", from[i], d.describe(d.config), d.def.Name))
				continue
			}
		}
		out.composition = append(out.composition, b)
	}
	return out, nil
}
