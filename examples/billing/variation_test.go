package billing_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// billingStudy runs 300 trials of the catalogue, seed 1, on the correct
// agent and the fresh_key_per_retry bug under v.
func billingStudy(t *testing.T, v assay.Variation) *assay.Study {
	st, err := assay.RunStudy(billing.Definition(), assay.StudyConfig{Name: "variation", Trials: 300, Seed: 1,
		Profiles: []model.NamedConfig{{Name: "correct", System: billing.Config(0).System, Defended: true},
			{Name: "fresh_key_per_retry", System: billing.Config(billing.FreshKeyPerRetry).System}},
		Variation: v})
	require.NoError(t, err)
	return st
}

// TestVariationLoadPolicyCutoff: the paper's step 8 over the agent. Load 3
// repeats its invoice task three times (three charges in the fault-free
// run, one at load 1), yet no fault's figures move with it: a fault at its
// ordinal meets the first invoice, the others are charged once each. The
// agent reads no policy and keeps no ephemeral context, so policy version
// and context cutoff move nothing either: every kind's rates are equal
// across the configurations, each with its Wilson interval.
func TestVariationLoadPolicyCutoff(t *testing.T) {
	st := billingStudy(t, assay.Variation{assay.Loads(1, 3)})
	assert.Equal(t, []string{"load=1", "load=3"}, st.Configurations)
	effects := map[string]int{}
	for _, b := range st.Baselines {
		effects[b.Profile+" "+b.Config] = b.Effects
	}
	assert.Equal(t, map[string]int{"correct load=1": 1, "correct load=3": 3, "fresh_key_per_retry load=1": 1, "fresh_key_per_retry load=3": 3}, effects)
	requireAllEqual(t, st, 70)
	var s *assay.Signature
	for i := range st.Signatures {
		if x := &st.Signatures[i]; x.Profile == "fresh_key_per_retry" && x.Kind == "timeout_after_commit" && x.Config == "load=3" {
			s = x
		}
	}
	require.NotNil(t, s)
	// the bug charges twice after a lost reply, at every load: 0 of 4
	// recovered, with its 95 % Wilson interval
	assert.Equal(t, assay.Term{Count: 0, Trials: 4, Rate: 0, Interval: assay.Interval{Lo: 0, Hi: 0.4898908364545973}}, s.Q.Recover)

	st = billingStudy(t, assay.Variation{assay.PolicyVersions(12, 13), assay.ContextCutoffs(10, 1000)})
	assert.Equal(t, []string{"policy_version=12 context_cutoff_ms=10", "policy_version=12 context_cutoff_ms=1000",
		"policy_version=13 context_cutoff_ms=10", "policy_version=13 context_cutoff_ms=1000"}, st.Configurations)
	requireAllEqual(t, st, 70)
}

// requireAllEqual asserts st has n worst configurations, every one equal
// across the configurations.
func requireAllEqual(t *testing.T, st *assay.Study, n int) {
	t.Helper()
	require.Len(t, st.WorstConfigs, n)
	for _, w := range st.WorstConfigs {
		assert.True(t, w.AllEqual, "%s %s", w.Profile, w.Kind)
	}
}
