package payouts

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/faultline/faultline/model"
)

// Trusting is the config's system part of the agent with TrustNotices
// planted; {} (or nil) is the correct agent.
var Trusting = json.RawMessage(`{"bug":"trust_notices"}`)

// Definition describes the payout agent for the harness, the explorers
// and the fuzz targets: its fixture, and its config's system part,
// {"bug":"trust_notices"} for TrustNotices or {} for the correct agent.
// Its invariants are the built-in ones; recorded_agrees_with_ledger is
// checked in every run whose provider sends notices (Config.Notices).
func Definition() *model.Definition {
	return &model.Definition{
		Name:     "payouts",
		Fixtures: []model.Fixture{Fixture()},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			bugs, err := parse(system)
			if err != nil {
				return nil, err
			}
			return Factory(bugs), nil
		},
		Describe: func(system json.RawMessage) (string, error) {
			bugs, err := parse(system)
			if err != nil {
				return "", err
			}
			if bugs&TrustNotices != 0 {
				return "bug trust_notices", nil
			}
			return "correct", nil
		},
		Configs: []model.NamedConfig{{Name: "correct", System: json.RawMessage(`{}`), Defended: true},
			{Name: "trust_notices", System: Trusting}},
	}
}

// parse decodes a system part: {} or {"bug":"trust_notices"}; any other
// field or bug is an error naming it.
func parse(system json.RawMessage) (Bugs, error) {
	if len(system) == 0 {
		return 0, nil
	}
	var c struct {
		Bug string `json:"bug"`
	}
	dec := json.NewDecoder(bytes.NewReader(system))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return 0, fmt.Errorf("config of payouts: %w", err)
	}
	switch c.Bug {
	case "":
		return 0, nil
	case "trust_notices":
		return TrustNotices, nil
	}
	return 0, fmt.Errorf("config of payouts: unknown bug %q (valid: trust_notices)", c.Bug)
}
