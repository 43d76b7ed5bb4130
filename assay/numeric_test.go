package assay

import "testing"

// TestNumericDimensionsRefuse: each numeric dimension's levels, and the
// refusal of a value out of its range, word for word.
func TestNumericDimensionsRefuse(t *testing.T) {
	for _, c := range []struct {
		d      Dimension
		levels int
		err    string
	}{
		{PolicyVersions(1, 0), 2, "policy_version 0: give 1 or more"},
		{ContextCutoffs(0), 1, "context_cutoff_ms 0: give 1 or more (0 is the model's no-cutoff marker)"},
		{Loads(2, 101), 2, "load 101: give 1 to 100"},
		{Loads(0), 1, "load 0: give 1 to 100"},
		{RetryBudgets(-1), 1, "retry_budget -1: give 1 or more (0 is the model's default marker)"},
		{Deadlines(0), 1, "deadline_ms 0: give 1 or more"},
		{Deadlines(5, 10), 2, ""},
	} {
		got := ""
		if c.d.err != nil {
			got = c.d.err.Error()
		}
		if got != c.err || len(c.d.Levels) != c.levels {
			t.Errorf("%s: %d levels, error %q; want %d, %q", c.d.Name, len(c.d.Levels), got, c.levels, c.err)
		}
	}
	if v := Loads(1, 3).Levels[1].Value; v != "3" {
		t.Errorf("load level %q, want 3", v)
	}
}
