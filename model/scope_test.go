package model_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestScopeIsWhatARunChecks: Definition.Scope lists, in order, exactly the
// invariants a run reports (Result.Invariants), on a fleet, with notices,
// with the built-in ones narrowed and with the system's own; an unknown
// fixture and invalid options are errors; FixtureNamed's fixtures count.
func TestScopeIsWhatARunChecks(t *testing.T) {
	def := copperfin.Definition()
	own := model.UserInvariant{Name: "own", Check: func(model.View) string { return "" }}
	typed := copperfin.ConfigOfProfile(copperfin.ProfileTyped)
	for _, c := range []struct {
		name    string
		fixture string
		notices bool
		opts    model.Options
		want    []string
	}{
		{"default", "", false, model.Options{}, []string{model.InvRecordedAgreesWithLedger, "retry_paced"}},
		{"fleet", "copperfin-fleet-3", false, model.Options{}, []string{model.InvRecordedAgreesWithLedger, model.InvNoRetryStorm, "retry_paced"}},
		{"notices", "", true, model.Options{}, []string{model.InvRecordedAgreesWithLedger, "retry_paced"}},
		{"compat", "", false, model.Options{Compat: true}, nil},
		{"fleet, notices, narrowed, own", "copperfin-fleet-3", true,
			model.Options{Builtin: []string{model.InvBudget}, Invariants: []model.UserInvariant{own}},
			[]string{model.InvBudget, model.InvRecordedAgreesWithLedger, model.InvNoRetryStorm, "retry_paced", "own"}},
		{"notice agreement named", "", true, model.Options{Builtin: []string{}, Invariants: []model.UserInvariant{own, model.NoticeAgreement()}},
			[]string{"retry_paced", "own", model.InvRecordedAgreesWithLedger}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := typed
			cfg.Fixture, cfg.Notices = c.fixture, c.notices
			got, err := def.Scope(cfg, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if c.opts.Builtin == nil {
				for _, inv := range model.Invariants {
					want = append(want, inv.Name)
				}
			}
			want = append(want, c.want...)
			if !slices.Equal(got, want) {
				t.Errorf("scope %v, want %v", got, want)
			}
			res, err := def.Run(&model.Schedule{Version: model.ScheduleVersion, Seed: "s", Config: cfg, Faults: []model.FaultEntry{}}, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, i := range res.Invariants {
				ran = append(ran, i.Invariant)
			}
			if !slices.Equal(got, ran) {
				t.Errorf("scope %v, the run checked %v", got, ran)
			}
		})
	}
	if _, err := def.Scope(model.Config{Fixture: "copperfin-fleet-1001"}, model.Options{}); err == nil || !strings.Contains(err.Error(), `unknown fixture "copperfin-fleet-1001"`) {
		t.Errorf("unknown fixture: %v", err)
	}
	if _, err := def.Scope(typed, model.Options{Builtin: []string{"happiness"}}); err == nil || !strings.Contains(err.Error(), `unknown built-in invariant "happiness"`) {
		t.Errorf("unknown invariant: %v", err)
	}
}
