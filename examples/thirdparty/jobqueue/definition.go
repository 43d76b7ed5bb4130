package jobqueue

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/faultline/faultline/examples/thirdparty/jobqueue/payouts"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// Actor, Tenant and Purpose are the payout worker's, on every task and
// every payout.
const (
	Actor   = "payout-worker"
	Tenant  = "acme"
	Purpose = "payout"
)

// Fixture is the nightly payouts: one job per account, run one after the
// other against one database and one provider.
func Fixture() model.Fixture {
	task := func(id, acct string, amount int64) model.Task {
		return model.Task{ID: id, Actor: Actor, Subject: acct, Tenant: Tenant, Purpose: Purpose, Amount: amount}
	}
	return model.Fixture{Name: "nightly", Tasks: []model.Task{task("job-1", "acct-1", 100), task("job-2", "acct-2", 250)}}
}

// settings is the worker's part of a schedule's config:
//
//	"system": {"bug": true}
type settings struct {
	Bug bool `json:"bug,omitempty"`
}

// Config returns the config that plants the bug (payouts.Options
// BlindResume) or not ({}).
func Config(bug bool) model.Config {
	raw, _ := model.SystemConfig(settings{Bug: bug}) // a struct always encodes to an object
	return model.Config{System: raw}
}

// parse decodes a config's system part strictly.
func parse(system json.RawMessage) (settings, error) {
	var s settings
	if len(system) == 0 {
		return s, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(system)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("config of jobqueue: %w (valid: {\"bug\": true|false})", err)
	}
	return s, nil
}

// Definition describes the payout worker for every path: its fixture,
// its config ({"bug": true} plants the blind resume), the built-in
// invariants effect_at_most_once (one payout per job) and
// no_invented_progress (no job claimed paid that the provider did not
// pay), and its clock (properties.BubbleClock). Each run gets a World of
// its own (its database file in dir); each worker process of the run is
// the System newSystem makes over that World.
func Definition(dir string, newSystem func(w *World) model.System) *model.Definition {
	return &model.Definition{
		Name:     "jobqueue",
		Fixtures: []model.Fixture{Fixture()},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			s, err := parse(system)
			if err != nil {
				return nil, err
			}
			w := NewWorld(dir, payouts.Options{BlindResume: s.Bug})
			return func() model.System { return newSystem(w) }, nil
		},
		Describe: func(system json.RawMessage) (string, error) {
			s, err := parse(system)
			if s.Bug {
				return "bug blind_resume", err
			}
			return "bug none", err
		},
		Builtin: []string{model.InvEffectAtMostOnce, model.InvNoInventedProgress},
		Clock:   properties.BubbleClock,
		Configs: []model.NamedConfig{{Name: "correct", System: Config(false).System, Defended: true},
			{Name: "blind_resume", System: Config(true).System}},
	}
}
