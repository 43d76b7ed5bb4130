// Package doors holds only a test: every door of faultline (properties,
// fuzz, cli, assay, coverage, model.Definition.Run and Replay) refuses
// the same bad Definitions with the words of model's one implementation of
// each rule, gives the same verdict on one correct and one buggy system,
// on the model path and as production code, and (each door that bubbles
// production code) finds a rerun that crossed other events nondeterministic,
// and draws, walks, audits and covers only the kinds a Definition's Enacts
// lists, refusing a kind outside it with the same words.
package doors
