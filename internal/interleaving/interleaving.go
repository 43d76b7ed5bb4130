// Package interleaving writes a concurrent run's interleaving (the task
// picked at each scheduling point) as people read it; model, cli and
// properties print it the same way.
package interleaving

import (
	"strconv"
	"strings"
)

// Format writes picks (task positions, one per scheduling
// point) in runs: "1x2 2x4 1" is task 1 twice, task 2 four times, then
// task 1 once.
func Format(picks []int) string {
	var b strings.Builder
	for i := 0; i < len(picks); {
		j := i
		for j < len(picks) && picks[j] == picks[i] {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(picks[i]))
		if j-i > 1 {
			b.WriteByte('x')
			b.WriteString(strconv.Itoa(j - i))
		}
		i = j
	}
	return b.String()
}
