package assay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// typedStudy runs 300 trials of the catalogue, seed 1, on the typed
// reference system under v.
func typedStudy(t *testing.T, v assay.Variation) *assay.Study {
	st, err := assay.RunStudy(refDef(), assay.StudyConfig{Name: "variation", Trials: 300, Seed: 1,
		Profiles: []model.NamedConfig{profileOf(copperfin.ProfileTyped)}, Variation: v})
	require.NoError(t, err)
	return st
}

// TestContextCutoffPolicyVersionLoad: the paper's step 8 beyond retry
// budget and deadline. A 10 ms context cutoff drops the approval the
// workflow keeps in its ephemeral context before it reads it back: even the
// fault-free run holds, and every kind drawn (24 of 28) serves nothing,
// subject_swap 0 of 25 with its Wilson interval; at 1000 ms it is kept.
// The typed workflow compares no policy version and dedupes repeated
// refunds by key, so policy version and load move no kind's figures.
// Out-of-range levels are refused.
func TestContextCutoffPolicyVersionLoad(t *testing.T) {
	st := typedStudy(t, assay.Variation{assay.ContextCutoffs(10, 1000)})
	assert.Equal(t, []string{"context_cutoff_ms=10", "context_cutoff_ms=1000"}, st.Configurations)
	claims := map[string]model.ClaimVerdict{}
	for _, b := range st.Baselines {
		claims[b.Config] = b.Claim
	}
	assert.Equal(t, map[string]model.ClaimVerdict{"context_cutoff_ms=10": "hold", "context_cutoff_ms=1000": "release"}, claims)
	varied := 0
	for _, w := range st.WorstConfigs {
		if !w.AllEqual {
			varied++
			assert.Equal(t, "context_cutoff_ms=10", w.Config, w.Kind)
			assert.Equal(t, 0, w.Q.Serve.Count, w.Kind)
		}
	}
	assert.Equal(t, 30, varied)
	assert.Len(t, st.WorstConfigs, 35)
	s := sigOf(t, st, "typed", "subject_swap", "context_cutoff_ms=10")
	assert.Equal(t, assay.Term{Count: 0, Trials: 10, Rate: 0, Interval: assay.Interval{Lo: 0, Hi: 0.2775327998628892}}, s.Q.Serve)

	for _, v := range []assay.Variation{{assay.PolicyVersions(12, 13)}, {assay.Loads(1, 3)}} {
		st := typedStudy(t, v)
		require.Len(t, st.WorstConfigs, 35)
		for _, w := range st.WorstConfigs {
			assert.True(t, w.AllEqual, "%s %s", st.Configurations, w.Kind)
		}
	}
	for _, bad := range []assay.Variation{{assay.PolicyVersions(0)}, {assay.ContextCutoffs(0)}, {assay.Loads(0)}, {assay.Loads(101)}} {
		_, err := assay.RunStudy(refDef(), assay.StudyConfig{Name: "bad", Trials: 1, Variation: bad})
		assert.ErrorIs(t, err, assay.ErrBadConfig)
	}
}
