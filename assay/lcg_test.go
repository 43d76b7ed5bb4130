package assay

import "testing"

func TestLCG(t *testing.T) {
	l := newLCG(188)
	// state1 = 1664525*188 + 1013904223 = 1326834923
	if got := l.random(); got != 1326834923.0/4294967296.0 {
		t.Fatalf("first draw %v", got)
	}
	if a, b := newLCG(-1), newLCG(4294967295); a.random() != b.random() {
		t.Fatal("seed -1 must wrap to 2^32-1 as the artefact's seed & 0xFFFFFFFF does")
	}
}
