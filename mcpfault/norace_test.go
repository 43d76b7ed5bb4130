//go:build !race

package mcpfault_test

// raceDetector reports whether the tests run under the race detector; see
// race_test.go.
const raceDetector = false
