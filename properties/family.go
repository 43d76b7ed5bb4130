package properties

import (
	"slices"

	"github.com/faultline/faultline/internal/catalog"

	"github.com/faultline/faultline/model"
)

// familyKinds are the kinds outside model.Catalogue() that need a
// workload the fixture declares (model.FaultSpec.Needs): forked_run,
// deauthorised_evidence, corrupted_readback and spec_drift of the paper's
// fault families, policy_fetch_failed, credential_expired; placed when
// WithKinds names them or where the fixture declares it (familyDrawn).
var familyKinds = func() []model.FaultSpec {
	var out []model.FaultSpec
	for _, k := range []string{"forked_run", "deauthorised_evidence", "corrupted_readback", "policy_fetch_failed", "credential_expired", "spec_drift"} {
		sp, err := model.Spec(k)
		if err != nil {
			panic(err)
		}
		if !catalog.Declarable(sp.Needs) {
			panic("properties: kind " + k + " needs " + sp.Needs + ", which no fixture declares")
		}
		out = append(out, sp)
	}
	return out
}()

// isFamilyKind reports whether kind is one of familyKinds.
func isFamilyKind(kind string) bool {
	return slices.ContainsFunc(familyKinds, func(sp model.FaultSpec) bool { return sp.Kind == kind })
}

// familyDrawn reports whether the default search draws the kind sp of
// familyKinds under set: where the fixture makes the declaration sp needs
// (sp.Needs; catalog.DrawnByDefault).
func familyDrawn(set *settings, sp model.FaultSpec) bool {
	return sp.Needs != "" && catalog.DrawnByDefault(&set.fixture, set.config, sp)
}
