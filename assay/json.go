package assay

import (
	"io"

	"github.com/faultline/faultline/internal/jsonout"
)

// boundary is the closing line of the evidence's Markdown.
const boundary = "Interpretation boundary: this is evidence about represented faults in a synthetic configured system, not proof of production safety."

// writeJSON writes v as indented JSON with a trailing newline and without
// HTML escaping.
func writeJSON(w io.Writer, v any) error { return jsonout.Write(w, v) }
