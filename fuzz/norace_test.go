//go:build !race

package fuzz_test

// raceDetector reports whether the tests run under the race detector; see
// race_test.go.
const raceDetector = false
