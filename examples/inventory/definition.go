package inventory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// Settings is the agent's own part of a schedule's config: the controls
// enabled (every one when Controls is nil) and the variant ("fixed" when
// empty). In a schedule file:
//
//	"system": {"controls": ["stable_keys", "hold_lookup"], "variant": "planted"}
type Settings struct {
	Controls *[]string `json:"controls,omitempty"`
	Variant  string    `json:"variant,omitempty"`
}

// parseSettings decodes a config's system part strictly; an unknown key
// (another system's, say a "profile") is an error naming it.
func parseSettings(system json.RawMessage) (Controls, Variant, error) {
	var s Settings
	dec := json.NewDecoder(strings.NewReader(string(system)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return 0, "", fmt.Errorf("config of inventory: %w", err)
	}
	cs := Defended
	if s.Controls != nil {
		var err error
		if cs, err = parseControlsOf(*s.Controls); err != nil {
			return 0, "", err
		}
	}
	v := Fixed
	if s.Variant != "" {
		v = Variant(s.Variant)
		if v != Fixed && v != Planted {
			return 0, "", fmt.Errorf("config of inventory: unknown variant %q (valid: fixed, planted)", s.Variant)
		}
	}
	return cs, v, nil
}

// parseControlsOf is ParseControls with the error a config gets: a name
// that is not one of the agent's controls is named as such.
func parseControlsOf(names []string) (Controls, error) {
	for _, n := range names {
		if _, ok := bit(Control(n)); !ok {
			valid := make([]string, len(AllControls))
			for i, c := range AllControls {
				valid[i] = string(c)
			}
			return 0, fmt.Errorf("control %q is not a control of inventory (valid: %s)", n, strings.Join(valid, ", "))
		}
	}
	cs, err := ParseControls(names)
	if err != nil {
		return 0, errors.New(strings.TrimPrefix(err.Error(), "inventory: "))
	}
	return cs, nil
}

// Definition describes the agent for the paths that need more than a
// factory (replay, fuzzing, the run record): its fixture, its config's
// system part (Settings; {} is every control, the fixed variant), its
// invariants ([Builtin] and [Invariants]), its six controls and how a
// config arms them (Arm, Armed: the release evidence of package assay).
func Definition() *model.Definition {
	names := make([]string, len(AllControls))
	for i, c := range AllControls {
		names[i] = string(c)
	}
	return &model.Definition{
		Name:     "inventory",
		Fixtures: []model.Fixture{Fixture()},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			cs, v, err := parseSettings(system)
			if err != nil {
				return nil, err
			}
			return Factory(cs, v), nil
		},
		Describe: func(system json.RawMessage) (string, error) {
			cs, v, err := parseSettings(system)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("controls %s, variant %s", cs, v), nil
		},
		Builtin:    Builtin,
		Invariants: Invariants(),
		Controls:   names,
		// coverage: one cart a run, so no later task of a worker inherits
		// the identity its start captured
		NotApplicableKeys: map[string]string{"identity/worker/*/*/*": "the fixture runs one task (cart-7), so no later task of a worker " +
			"can inherit the ambient identity its start captured (ambient_identity_leak)"},
		// an audit runs every fault kind under each: the agent with every
		// control (expected to hold), with none, and the planted bug (both
		// reported)
		Configs: []model.NamedConfig{
			{Name: "defended", System: json.RawMessage(`{}`), Defended: true},
			{Name: "undefended", System: json.RawMessage(`{"controls":[]}`)},
			{Name: "planted", System: json.RawMessage(`{"variant":"planted"}`)},
		},
		Defences: func(kind string) []string {
			switch kind {
			case "tool_timeout", "timeout_after_commit", "malformed_response", "output_drift", "worker_crash":
				return []string{string(StableKeys), string(HoldLookup)}
			case "reject_before_commit", "sandbox_denial", "rate_limit", "timeout_before_send":
				return []string{string(TypedOutcomes)}
			case "stale_checkpoint", "missing_checkpoint", "future_version_checkpoint", "corrupt_checkpoint":
				return []string{string(CheckpointCheck)}
			case "subject_swap":
				return []string{string(BindRequest)}
			case "revoked_capability", "capability_revocation", "clock_advance":
				return []string{string(RecheckAuthority)}
			}
			return nil
		},
		// the sides of a counterfactual pair (package assay): a control set
		// and the variant, "planted" or "" (fixed)
		Arm: func(controls []string, variant string) (json.RawMessage, error) {
			if _, err := parseControlsOf(controls); err != nil {
				return nil, err
			}
			controls = append([]string{}, controls...) // [] is no control; null would be every one
			return json.Marshal(Settings{Controls: &controls, Variant: variant})
		},
		Armed: func(system json.RawMessage) ([]string, string, error) {
			cs, v, err := parseSettings(system)
			if err != nil {
				return nil, "", err
			}
			var names []string
			for _, c := range AllControls {
				if cs.Has(c) {
					names = append(names, string(c))
				}
			}
			if v == Fixed {
				return names, "", nil
			}
			return names, string(v), nil
		},
	}
}
