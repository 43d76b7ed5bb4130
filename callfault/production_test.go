package callfault_test

import (
	"encoding/json"
	"testing"

	"github.com/faultline/faultline/callfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestWrapCheckProduction: the defended biller, through a wrapped call,
// passes a production campaign of every kind at tool.commit and the
// provider's refusals outside the catalogue, each run in a synctest
// bubble on its clock.
func TestWrapCheckProduction(t *testing.T) {
	def := &model.Definition{
		Name:     "biller",
		Fixtures: []model.Fixture{billFixture},
		Configure: func(json.RawMessage) (model.Factory, error) {
			l := &ledgerSvc{}
			return func() model.System { return billSystem{l: l, cfg: defended, spec: spec} }, nil
		},
		Builtin:    []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress, model.InvBudget},
		Invariants: []model.UserInvariant{traceJoined},
		Clock:      properties.BubbleClock,
	}
	properties.Check(t, def, properties.WithKinds(append(callfault.Kinds(), "do_not_retry", "provider_outage", "credential_expired")...), properties.WithoutWorldEvents())
}
