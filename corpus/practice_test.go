package corpus_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/corpus"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// practiceConfig is the policy of the practice's local harness run ("one
// retry, 2s deadline, all_required branch join") on the reference system's
// batch fixture, typed.
func practiceConfig(t *testing.T) model.Config {
	var cfg model.Config
	require.NoError(t, cfg.UnmarshalJSON([]byte(`{"harness": {"fixture": "copperfin-batch", "retry_budget": 1, "deadline_ms": 2000, "join": "all_required"}, "system": {"profile": "typed"}}`)))
	return cfg
}

// TestImportPracticeExample converts the example schedule of the harness
// practice ("Agent Harness Fault Injection", its section "Deterministic
// Injection Schedule", copied verbatim into testdata) into the versioned
// schedule kept beside it, which the strict reader reads back byte for
// byte and which replays on the reference system twice to the same
// timeline: every fault reached and fired, every invariant held, the
// first task held on its failed required branch, the other two released.
func TestImportPracticeExample(t *testing.T) {
	src, err := os.ReadFile("testdata/harness-practice-example.json")
	require.NoError(t, err)
	_, err = model.ParseSchedule(src)
	require.Error(t, err, "the strict reader refuses the practice's shape")

	s, err := corpus.ImportPractice(src, copperfin.Definition(), practiceConfig(t), map[string]string{"search": copperfin.Tool})
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/harness-practice-example.schedule.json")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(model.Format(s)))
	back, err := model.ParseSchedule(want)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(model.Format(back)))

	def := copperfin.Definition()
	res, err := def.Replay(back)
	require.NoError(t, err)
	again, err := def.Replay(back)
	require.NoError(t, err)
	assert.Equal(t, model.Normalize(res.Timeline.Events()), model.Normalize(again.Timeline.Events()))
	assert.Equal(t, model.RunVerdict("contained_failure"), res.RunVerdict)
	assert.Equal(t, model.ClaimVerdict("hold"), res.Verdict)
	require.Len(t, res.Faults, 3)
	for _, f := range res.Faults {
		assert.True(t, f.Reached && f.Fired > 0, f.ID)
	}
	for _, inv := range res.Invariants {
		assert.True(t, inv.Held, inv.Invariant)
	}
	var claims []string
	for _, tv := range res.Tasks {
		claims = append(claims, tv.Task+" "+string(tv.Claim))
	}
	assert.Equal(t, []string{"refund-O-731 hold", "refund-O-732 release", "refund-O-731-again release"}, claims)
}

// TestImportPracticeRefusals: unknown fields, events and kinds are named
// all at once; a versioned file and a branch the system never runs are
// refused naming them.
func TestImportPracticeRefusals(t *testing.T) {
	cfg := practiceConfig(t)
	_, err := corpus.ImportPractice([]byte(`{"seed": "s", "when": 1, "faults": [{"event": "tool.send", "ordinal": 1, "kind": "explode", "colour": "red"}]}`), nil, cfg, nil)
	require.Error(t, err)
	assert.Equal(t, `practice schedule: unknown faults[0] event "tool.send", faults[0] field "colour", faults[0] kind "explode", field "when" (docs/formats.md lists the names it converts)`, err.Error())
	_, err = corpus.ImportPractice([]byte(`{"faults": [{"event": "memory.read", "ordinal": 1, "kind": "memory_loss", "branch": "summarize"}]}`), nil, cfg, nil)
	assert.EqualError(t, err, `practice schedule: faults[0]: "branch" "summarize" goes with kind partial_failure, not "memory_loss"`)
	_, err = corpus.ImportPractice([]byte(`{"version": 2, "faults": []}`), nil, cfg, nil)
	assert.ErrorContains(t, err, `it has a "version"`)
	_, err = corpus.ImportPractice([]byte(`{"faults": [{"event": "branch.join", "ordinal": 1, "kind": "partial_failure", "branch": "translate"}]}`), copperfin.Definition(), cfg, nil)
	assert.EqualError(t, err, `practice schedule: faults[0]: the fault-free run of copperfin has no branch "translate" before branch.join #1`)
	_, err = corpus.ImportPractice([]byte(`{"faults": [{"event": "worker.start", "ordinal": 1, "kind": "restart"}]}`), copperfin.Definition(), cfg, nil)
	assert.EqualError(t, err, `practice schedule: faults[0]: the fault-free run of copperfin writes no checkpoint before worker.start #1`)
}
