//go:build race

package paper_test

// raceDetector reports whether the tests run under the race detector (go
// test -race). Under it, a test that would repeat a computation another
// test already ran under the detector (the same goroutines over another
// input or into another output format) leaves the repetition to go test
// ./..., which runs every test in full.
const raceDetector = true
