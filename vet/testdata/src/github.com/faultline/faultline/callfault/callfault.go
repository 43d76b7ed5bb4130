// Package callfault is a stub of faultline's call wrapper: its classifier.
package callfault

import "github.com/faultline/faultline/model"

func OutcomeOf(err error) model.Outcome { return model.OutcomeUnknown }
