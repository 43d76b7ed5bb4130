package properties

import "errors"

// ErrNondeterministic is wrapped by the error of an exploration whose
// system under test gave two results for one schedule: a check that
// broke an invariant held when run again (a clock, global randomness or
// state shared across runs reached the system). Match it with errors.Is.
var ErrNondeterministic = errors.New("the system under test is not deterministic")
