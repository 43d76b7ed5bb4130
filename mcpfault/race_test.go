//go:build race

package mcpfault_test

// raceDetector reports whether the tests run under the race detector (go
// test -race): TestExplore's production check then runs fewer checks.
const raceDetector = true
