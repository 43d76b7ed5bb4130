package properties

import (
	"slices"

	"github.com/faultline/faultline/model"
)

// familyKinds are the kinds outside model.Catalogue() that need a
// workload the fixture declares (forked_run, deauthorised_evidence,
// corrupted_readback and spec_drift of the paper's fault families,
// policy_fetch_failed, credential_expired), placed when WithKinds names
// them or where the fixture declares it (familyDrawn).
var familyKinds = func() []model.FaultSpec {
	var out []model.FaultSpec
	for _, k := range []string{"forked_run", "deauthorised_evidence", "corrupted_readback", "policy_fetch_failed", "credential_expired", "spec_drift"} {
		sp, err := model.Spec(k)
		if err != nil {
			panic(err)
		}
		out = append(out, sp)
	}
	return out
}()

// isFamilyKind reports whether kind is one of familyKinds.
func isFamilyKind(kind string) bool {
	return slices.ContainsFunc(familyKinds, func(sp model.FaultSpec) bool { return sp.Kind == kind })
}

// familyDrawn reports whether the default search draws the family kind
// sp under set: forked_run on a fixture whose tasks are handed out at
// least once (model.Fixture.AtLeastOnce), where a run can fork;
// deauthorised_evidence on one whose sources are read under grants that
// can be withdrawn (model.Fixture.GrantedSources); corrupted_readback on
// one whose readbacks pass through a path in front of the ledger
// (model.Fixture.ReadbackProxy); policy_fetch_failed on
// one that states a policy-age bound (model.Fixture.MaxPolicyAge), where
// policy_fresh is checked; credential_expired on a fleet whose workers
// share one credential (model.Fleet.SharedCredential); spec_drift on one
// whose providers version their contracts (model.Fixture.VersionedContracts).
func familyDrawn(set *settings, sp model.FaultSpec) bool {
	switch sp.Kind {
	case "forked_run":
		return set.fixture.AtLeastOnce
	case "deauthorised_evidence":
		return set.fixture.GrantedSources
	case "corrupted_readback":
		return set.fixture.ReadbackProxy
	case "policy_fetch_failed":
		return set.fixture.MaxPolicyAge > 0
	case "credential_expired":
		return set.fixture.Fleet != nil && set.fixture.Fleet.SharedCredential
	case "spec_drift":
		return set.fixture.VersionedContracts
	}
	return false
}
