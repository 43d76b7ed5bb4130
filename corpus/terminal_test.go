package corpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestExpectedTerminalStates: a schedule declares the terminal state each
// task is expected to end in (version 3); the reference system's task
// that the deadline ends is timed_out, so the corpus's deadline schedule
// expecting timed_out stays contained, and expecting completed is
// inconclusive naming the task, in its verdict and its summary. Version 3
// without expect_terminal, expect_terminal in version 2 and an unknown
// state are refused naming them.
func TestExpectedTerminalStates(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "reference", "corpus", "deadline-after-fresh-restart.json"))
	require.NoError(t, err)
	s, err := model.ParseSchedule(data)
	require.NoError(t, err)
	def := copperfin.Definition()
	res, err := def.Replay(s)
	require.NoError(t, err)
	require.Len(t, res.Claims, 1)
	assert.Equal(t, "timed_out", res.Claims[0].Terminal())
	assert.Empty(t, res.Unexpected)

	for _, tc := range []struct {
		expect, verdict string
		unexpected      []string
	}{
		{"timed_out", "contained_failure", nil},
		{"completed", "inconclusive", []string{"task refund-O-731 ended timed_out, the schedule expects completed"}},
		{"failed", "inconclusive", []string{"task refund-O-731 ended timed_out, the schedule expects failed"}},
	} {
		e := *s
		e.ExpectTerminal = []string{tc.expect}
		text := model.Format(&e)
		require.True(t, strings.HasPrefix(string(text), "{\n  \"version\": 3,"), string(text))
		back, err := model.ParseSchedule(text)
		require.NoError(t, err)
		assert.Equal(t, string(text), string(model.Format(back)))
		res, err := def.Replay(back)
		require.NoError(t, err)
		assert.Equal(t, model.RunVerdict(tc.verdict), res.RunVerdict, tc.expect)
		assert.Equal(t, tc.unexpected, res.Unexpected, tc.expect)
		if tc.unexpected != nil {
			assert.EqualError(t, res.Err(), "inconclusive: "+tc.unexpected[0])
			// the record names the task by its reference, as it redacts
			// every fixture identifier
			assert.Contains(t, res.Record().Summary, "not the terminal states the schedule expects: "+
				strings.Replace(tc.unexpected[0], "refund-O-731", "ref-db32399f", 1))
		}
	}
	for text, want := range map[string]string{
		`{"version": 3, "config": {"harness": {}, "system": {}}, "faults": []}`:                                   `unsupported version 3 without "expect_terminal"`,
		`{"version": 2, "config": {"harness": {}, "system": {}}, "faults": [], "expect_terminal": ["completed"]}`: `"expect_terminal" needs version 3 (this file is version 2)`,
		`{"version": 3, "config": {"harness": {}, "system": {}}, "faults": [], "expect_terminal": ["done"]}`:      `expect_terminal[0]: unknown terminal state "done" (valid: completed, failed, timed_out)`,
		`{"version": 3, "config": {"harness": {}, "system": {}}, "faults": [], "expect_terminal": []}`:            `"expect_terminal" is empty`,
	} {
		_, err := model.ParseSchedule([]byte(text))
		assert.ErrorContains(t, err, want, text)
	}
}
