// Package spare lets an exploration hand a run's Result back to the
// harness that made it, once it has read all it needs of it: the
// harness's next run then reuses the Result's storage instead of
// allocating its own (package model sets Result; properties calls it).
package spare

// Result, set by package model, hands res (a *model.Result) back to h
// (the *model.Harness whose last Run or LastOutcome returned it). The caller reads and
// keeps nothing of res afterwards: the next run overwrites it. Any other
// pair is ignored.
var Result func(h, res any)
