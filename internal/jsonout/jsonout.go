// Package jsonout writes the JSON that faultline's reports print: indented
// by two spaces, without HTML escaping, with a trailing newline.
package jsonout

import (
	"bytes"
	"encoding/json"
	"io"
)

// Write writes v to w as one indented JSON value and a newline; nothing
// is written when v does not encode.
func Write(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
