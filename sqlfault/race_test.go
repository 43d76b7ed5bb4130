//go:build race

package sqlfault_test

// raceDetector reports whether the tests run under the race detector (go
// test -race): TestCheckProduction then runs fewer checks.
const raceDetector = true
