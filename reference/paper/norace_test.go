//go:build !race

package paper_test

// raceDetector reports whether the tests run under the race detector; see
// race_test.go.
const raceDetector = false
