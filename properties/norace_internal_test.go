//go:build !race

package properties

// raceInternal reports whether the internal tests run under the race
// detector; see race_internal_test.go.
const raceInternal = false
