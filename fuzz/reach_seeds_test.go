package fuzz

import "testing"

// TestCompositionSeedsReachFaults holds the composition target's seeds to the
// campaign rule (its file is built by the fuzz farm, whose testing
// package cannot fail a target after its inputs ran): under the default
// setting, the corpus compositions reach some of their faults, and every
// one of them holds.
func TestCompositionSeedsReachFaults(t *testing.T) {
	d, err := NewDecoder(referenceDefinition(), referenceOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := loadSeeds(d, corpusDir, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.composition) == 0 {
		t.Fatal("no composition seeds")
	}
	start := d.reach.Counts()
	for _, b := range s.composition {
		if _, err := d.Check(d.Decode(b)); err != nil {
			t.Fatal(err)
		}
	}
	c := d.reach.Counts().Since(start)
	// (today the corpus's 39 compositions schedule 44 faults, every one
	// reached; the count follows the corpus, the rule does not)
	if c.Runs != int64(len(s.composition)) || c.Faults < c.Runs || c.Reached == 0 || c.Err() != nil {
		t.Fatalf("counts %+v over %d seeds: %v", c, len(s.composition), c.Err())
	}
}
