//go:build race

package properties

// raceInternal is raceDetector (race_test.go) for the package's internal
// tests: they run under the race detector (go test -race).
const raceInternal = true
