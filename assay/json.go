package assay

import (
	"bytes"
	"encoding/json"
	"io"
)

// boundary is the closing line of the evidence's Markdown.
const boundary = "Interpretation boundary: this is evidence about represented faults in a synthetic configured system, not proof of production safety."

// writeJSON writes v as indented JSON with a trailing newline and without
// HTML escaping.
func writeJSON(w io.Writer, v any) error {
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
