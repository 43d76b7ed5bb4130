// Package httpfault is a stub of faultline's HTTP adapter: its classifier.
package httpfault

import (
	"net/http"

	"github.com/faultline/faultline/model"
)

func OutcomeOf(resp *http.Response, err error) model.Outcome { return model.OutcomeUnknown }
