// Package sqlfault is a stub of faultline's database/sql adapter: its
// classifier.
package sqlfault

import "github.com/faultline/faultline/model"

func OutcomeOf(err error) model.Outcome { return model.OutcomeUnknown }
