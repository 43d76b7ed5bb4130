package properties

import "github.com/faultline/faultline/model"

// WithoutReduction is withoutReduction, for the tests: the walk runs every
// list of placements as generated.
func WithoutReduction() Option { return withoutReduction() }

// WithVisit is withVisit, for the tests: f sees each schedule the walk
// runs, in enumeration order.
func WithVisit(f func(*model.Schedule)) Option { return withVisit(f) }
