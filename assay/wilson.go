package assay

import (
	"fmt"
	"math"
)

// z95 is the standard normal quantile for a two-sided 95 % interval,
// Φ⁻¹(0.975).
const z95 = 1.959963984540054

// Interval is a two-sided confidence interval for a proportion; both bounds
// are rates in [0,1].
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// wilson returns the 95 % Wilson score interval for k successes in n
// trials (Wilson 1927; Newcombe 1998, method 3), without continuity
// correction: centre ± z·sqrt(p(1−p)/n + z²/4n²), over 1 + z²/n, with
// centre = p + z²/2n. Unlike the Wald interval it stays inside [0,1] and
// is not degenerate at k = 0 or k = n, where release evidence lives. n = 0
// gives [0,1]: no evidence. An error for n < 0, k < 0 or k > n.
func wilson(k, n int) (Interval, error) {
	return wilsonZ(k, n, z95)
}

func wilsonZ(k, n int, z float64) (Interval, error) {
	if n < 0 || k < 0 || k > n {
		return Interval{}, fmt.Errorf("wilson interval: need 0 <= k <= n, got k=%d n=%d", k, n)
	}
	if n == 0 {
		return Interval{0, 1}, nil
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	iv := Interval{Lo: math.Max(0, centre-half), Hi: math.Min(1, centre+half)}
	if k == 0 {
		iv.Lo = 0
	}
	if k == n {
		iv.Hi = 1
	}
	return iv, nil
}
