package httpfault_test

import (
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// BenchmarkCheckJoined measures one run of the payer through the joined
// transport over an in-process handler (clean, and with one
// timeout_after_commit; outside a bubble: testing/synctest takes a
// *testing.T, and these runs never sleep), beside the model path: one run of examples/billing on the
// model's Env.
func BenchmarkCheckJoined(b *testing.B) {
	lost := model.FaultEntry{Event: model.EvToolCommit, Ordinal: 1, Kind: "timeout_after_commit"}
	for _, bc := range []struct {
		name   string
		faults []model.FaultEntry
	}{{"clean", nil}, {"one-fault", []model.FaultEntry{lost}}} {
		b.Run("http/"+bc.name, func(b *testing.B) {
			h := model.NewHarness(payFixture, model.Options{Builtin: []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress, model.InvBudget}})
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: "bench", Faults: bc.faults}
			b.ReportAllocs()
			for b.Loop() {
				p := &jpayments{}
				if _, err := h.Run(func() model.System { return paySystem{p: p, cfg: defended} }, s); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("model/"+bc.name, func(b *testing.B) {
			h := model.NewHarness(billing.Fixture(), billing.Options())
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: "bench", Faults: bc.faults}
			factory := billing.Factory(0)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Run(factory, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
