package httpfault_test

import (
	"encoding/json"
	"testing"

	"github.com/faultline/faultline/httpfault"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// TestJoinCheckProduction: the defended payer, through the joined
// transport over InProcess, passes a production campaign of every
// catalogue kind the transport renders and the provider's refusals
// outside the catalogue, each run in a synctest bubble on its clock.
func TestJoinCheckProduction(t *testing.T) {
	kinds := append(httpfault.Kinds(), "do_not_retry", "provider_outage", "credential_expired")
	properties.Check(t, payDefinition(defended), properties.WithKinds(kinds...), properties.WithoutWorldEvents())
}

// TestJoinExhaustiveFindsTheFreshKey: the exhaustive walk of one fault at
// a time, through the joined transport, finds the payer that retries under
// a fresh key: the first schedule that breaks effect_at_most_once is a lost
// reply of the first charge. (No run of this walk sleeps, so it needs no
// bubble.)
func TestJoinExhaustiveFindsTheFreshKey(t *testing.T) {
	def := payDefinition(jpayer{retries: 2, freshKey: true})
	def.Clock = nil
	walk, err := properties.Explore(def, properties.WithExhaustive(), properties.WithMaxFaults(1),
		properties.WithKinds("timeout_before_send", "timeout_after_commit"), properties.WithoutWorldEvents())
	if err != nil {
		t.Fatal(err)
	}
	rep := walk.Exhaustive
	cx := rep.Counterexample
	if !rep.Found || cx.Invariant != model.InvEffectAtMostOnce || cx.FaultKind != "timeout_after_commit" || cx.Event != model.EvToolCommit ||
		cx.FirstSeq != 3 || len(cx.Schedule.Faults) != 1 || cx.Schedule.Faults[0].Ordinal != 1 {
		t.Fatalf("report %+v, counterexample %+v", rep, cx)
	}
}

// payDefinition is the payer's definition with cfg, a fresh provider per
// run.
func payDefinition(cfg jpayer) *model.Definition {
	return &model.Definition{
		Name:     "payer",
		Fixtures: []model.Fixture{payFixture},
		Configure: func(json.RawMessage) (model.Factory, error) {
			p := &jpayments{}
			return func() model.System { return paySystem{p: p, cfg: cfg} }, nil
		},
		Builtin:    []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress, model.InvBudget},
		Invariants: []model.UserInvariant{traceJoined},
		Clock:      properties.BubbleClock,
	}
}
