//go:build race

package mcpfault_test

// raceDetector reports whether the tests run under the race detector (go
// test -race): TestExplore then leaves its exploration to go test ./... and
// its production check runs fewer checks.
const raceDetector = true
