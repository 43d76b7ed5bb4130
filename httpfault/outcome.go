package httpfault

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/faultline/faultline/model"
)

// OutcomeOf classifies what an HTTP client saw for a consequential
// request ((*http.Client).Do's response and error) by DefaultResult's
// rules: rejected for an error saying nothing was sent (ErrSandboxDenied,
// ErrRefused, ErrScheme), a 4xx, or a 2xx whose JSON object carries a
// non-null "error" or an "ok" of false (a success envelope carrying an
// error); committed for another 2xx whose body reads and, opening JSON,
// decodes; unknown otherwise (a *TimeoutError, a net error, no response,
// an undecodable 2xx body, a 1xx, 3xx or 5xx). It puts back a reader over
// the 2xx body it read. Unknown never means "did not happen": read back.
func OutcomeOf(resp *http.Response, err error) model.Outcome {
	if err != nil {
		for _, e := range []error{ErrSandboxDenied, ErrRefused, ErrScheme} {
			if errors.Is(err, e) {
				return model.OutcomeRejected
			}
		}
		return model.OutcomeUnknown
	}
	if resp == nil {
		return model.OutcomeUnknown
	}
	switch s := resp.StatusCode; {
	case s >= 400 && s <= 499:
		return model.OutcomeRejected
	case s < 200 || s > 299:
		return model.OutcomeUnknown
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		return model.OutcomeCommitted
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return model.OutcomeUnknown
	}
	if t := strings.TrimSpace(string(body)); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && !json.Valid(body) {
		return model.OutcomeUnknown
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil {
		if e := obj["error"]; len(e) > 0 && string(e) != "null" || string(obj["ok"]) == "false" {
			return model.OutcomeRejected
		}
	}
	return model.OutcomeCommitted
}
