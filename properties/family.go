package properties

import (
	"slices"

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
		if fixtureDeclares[sp.Needs] == nil {
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

// fixtureDeclares maps each declaration a kind may need
// (model.FaultSpec.Needs) to whether a fixture makes it.
var fixtureDeclares = map[string]func(fx *model.Fixture) bool{
	"at_least_once":       func(fx *model.Fixture) bool { return fx.AtLeastOnce },
	"granted_sources":     func(fx *model.Fixture) bool { return fx.GrantedSources },
	"readback_proxy":      func(fx *model.Fixture) bool { return fx.ReadbackProxy },
	"max_policy_age":      func(fx *model.Fixture) bool { return fx.MaxPolicyAge > 0 },
	"shared_credential":   func(fx *model.Fixture) bool { return fx.Fleet != nil && fx.Fleet.SharedCredential },
	"versioned_contracts": func(fx *model.Fixture) bool { return fx.VersionedContracts },
}

// familyDrawn reports whether the default search draws the kind sp under
// set: where the fixture makes the declaration sp needs (sp.Needs).
func familyDrawn(set *settings, sp model.FaultSpec) bool {
	d := fixtureDeclares[sp.Needs]
	return d != nil && d(&set.fixture)
}
