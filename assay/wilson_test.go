package assay

import (
	"math"
	"testing"
)

// TestWilsonNewcombe checks the published 95 % Wilson score intervals of
// Newcombe (1998), Table II, method 3, for his four examples, to the four
// decimals he prints, and the bounds' behaviour at 0 and n.
func TestWilsonNewcombe(t *testing.T) {
	cases := []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0.0000, 0.1611},
		{1, 29, 0.0061, 0.1718},
	}
	for _, c := range cases {
		iv, err := wilson(c.k, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if math.Round(iv.Lo*1e4)/1e4 != c.lo || math.Round(iv.Hi*1e4)/1e4 != c.hi {
			t.Errorf("%d/%d: [%.6f, %.6f], Newcombe [%.4f, %.4f]", c.k, c.n, iv.Lo, iv.Hi, c.lo, c.hi)
		}
	}
	// symmetry: k of n mirrors n-k of n
	a, _ := wilson(3, 40)
	b, _ := wilson(37, 40)
	if math.Abs(a.Lo-(1-b.Hi)) > 1e-12 || math.Abs(a.Hi-(1-b.Lo)) > 1e-12 {
		t.Errorf("not symmetric: %+v %+v", a, b)
	}
	if iv, _ := wilson(200, 200); iv.Hi != 1 || math.Round(iv.Lo*1e4)/1e4 != 0.9812 {
		t.Errorf("200/200: %+v", iv)
	}
	if iv, _ := wilson(0, 0); iv != (Interval{0, 1}) {
		t.Errorf("0/0: %+v", iv)
	}
	for _, bad := range [][2]int{{-1, 5}, {6, 5}, {0, -1}} {
		if _, err := wilson(bad[0], bad[1]); err == nil {
			t.Errorf("wilson(%d, %d): want an error", bad[0], bad[1])
		}
	}
}
