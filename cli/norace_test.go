//go:build !race

package cli_test

import "testing"

// raceDetector reports whether the tests run under the race detector; see
// race_test.go.
const raceDetector = false

// oneGoroutine skips t under the race detector only; see race_test.go.
func oneGoroutine(*testing.T) {}
