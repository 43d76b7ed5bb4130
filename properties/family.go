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

// familyDrawn reports whether the default search draws the kind sp under
// set, where the fixture declares the workload it needs: forked_run where
// tasks are handed out at least once (Fixture.AtLeastOnce),
// deauthorised_evidence where grants can be withdrawn (GrantedSources),
// corrupted_readback where readbacks pass a path in front of the ledger
// (ReadbackProxy), policy_fetch_failed where a policy-age bound is stated
// (MaxPolicyAge), credential_expired on a fleet sharing one credential
// (Fleet.SharedCredential), spec_drift where providers version their
// contracts (VersionedContracts).
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
