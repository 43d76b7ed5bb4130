package linearize

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

// porcupine's Unknown, and any result it might add later, is never a pass.
func TestVerdictOf(t *testing.T) {
	for in, want := range map[porcupine.CheckResult]Verdict{
		porcupine.Ok:      Ok,
		porcupine.Illegal: Illegal,
		porcupine.Unknown: Unknown,
		"":                Unknown,
		"Timeout":         Unknown,
	} {
		if got := verdictOf(in); got != want {
			t.Errorf("verdictOf(%q) = %s, want %s", in, got, want)
		}
	}
}
