package mcpfault_test

import (
	"testing"

	"github.com/faultline/faultline/examples/billing"
	"github.com/faultline/faultline/model"
)

// BenchmarkCheckMCP measures one check (a full harness run) through the
// adapter: a real MCP client and server over the SDK's in-memory
// transports, connected per run (the server is built once, its table
// emptied per run), on a clean schedule and on one with a
// timeout after the first commit (the agent retries under its stable
// key).
func BenchmarkCheckMCP(b *testing.B) {
	for _, c := range []struct {
		name   string
		faults []model.FaultEntry
	}{{"clean", nil}, {"one_fault", []model.FaultEntry{at("timeout_after_commit")}}} {
		b.Run(c.name, func(b *testing.B) {
			h := model.NewHarness(fixture, options())
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: "bench", Faults: c.faults}
			p := newProvider(true)
			b.ReportAllocs()
			for b.Loop() {
				p.rows = p.rows[:0] // a fresh table; the server is built once
				if _, err := h.Run(func() model.System { return system{p: p} }, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckModel is the model path beside it: the billing example's
// agent on the model's Env, on the same two schedules.
func BenchmarkCheckModel(b *testing.B) {
	for _, c := range []struct {
		name   string
		faults []model.FaultEntry
	}{{"clean", nil}, {"one_fault", []model.FaultEntry{at("timeout_after_commit")}}} {
		b.Run(c.name, func(b *testing.B) {
			h := model.NewHarness(billing.Fixture(), billing.Options())
			s := &model.Schedule{Version: model.ScheduleVersion, Seed: "bench", Config: billing.Config(0), Faults: c.faults}
			f := billing.Factory(0)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Run(f, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
