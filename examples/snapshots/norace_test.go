//go:build !race

package snapshots_test

import "github.com/faultline/faultline/properties"

// raceDetector reports whether the tests run under the race detector.
const raceDetector = false

// raceOptions are TestCheck's options under the race detector alone.
var raceOptions []properties.Option
