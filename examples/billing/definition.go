package billing

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/model"
)

// BugNames names the planted bugs in a config, in the order of [Bugs].
var BugNames = []string{"fresh_key_per_retry", "blind_resume", "receipt_from_reply", "fresh_budget_on_resume", "charge_after_lost_checkpoint", "deny_over_charge"}

// Kinds are the catalogue kinds and world events in scope: those whose
// event the agent crosses (it reads an account, gets an approval,
// checkpoints, charges, reads back and records a receipt; it reads no
// policy or eligibility source, drafts no proposal, keeps no memory and
// fans out to no branch).
var Kinds = []string{
	"revoked_capability", "concurrent_version_change",
	"timeout_after_commit", "partial_success_response", "break_trace_lineage", "sandbox_denial", "timeout_before_send",
	"reject_before_commit", "malformed_response", "output_drift", "rate_limit", "tool_timeout", "budget_exhaustion",
	"false_success",
	"checkpoint_rollback", "worker_restart", "missing_checkpoint", "stale_checkpoint", "future_version_checkpoint", "corrupt_checkpoint",
	"drop_effect_receipt",
	"clock_advance", "capability_revocation", "state_version_change", "worker_crash",
}

// String returns the bugs' names joined by commas, or "none".
func (b Bugs) String() string {
	var l []string
	for i, n := range BugNames {
		if b&(1<<i) != 0 {
			l = append(l, n)
		}
	}
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ",")
}

// settings is the agent's own part of a schedule's config:
//
//	"system": {"bugs": ["fresh_key_per_retry"]}
type settings struct {
	Bugs []string `json:"bugs,omitempty"`
}

// Config returns the config that plants bugs ({} for none).
func Config(bugs Bugs) model.Config {
	var s settings
	for i, n := range BugNames {
		if bugs&(1<<i) != 0 {
			s.Bugs = append(s.Bugs, n)
		}
	}
	raw, _ := model.SystemConfig(s) // a struct always encodes to an object
	return model.Config{System: raw}
}

// parse decodes a config's system part strictly: an unknown key or bug is
// an error naming it.
func parse(system json.RawMessage) (Bugs, error) {
	var s settings
	dec := json.NewDecoder(strings.NewReader(string(system)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return 0, fmt.Errorf("config of billing: %w", err)
	}
	var bugs Bugs
	for _, n := range s.Bugs {
		i := slices.Index(BugNames, n)
		if i < 0 {
			return 0, fmt.Errorf("config of billing: unknown bug %q (valid: %s)", n, strings.Join(BugNames, ", "))
		}
		bugs |= 1 << i
	}
	return bugs, nil
}

// Definition describes the agent for every path (properties.Check, the
// fuzz target, coverage, its command line): its fixture, its config's
// system part ({"bugs": [...]}), its invariants, its named configurations
// (the correct agent, defended, and one per planted bug), the boundaries
// and keys it lacks (no memory, no branch, one task a worker) and the command
// that replays a schedule through TestExplore. It declares no controls:
// the agent's defences are its code.
func Definition() *model.Definition {
	return &model.Definition{
		Name:     "billing",
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
			return "bugs " + bugs.String(), err
		},
		Builtin:    Builtin,
		Invariants: Invariants(),
		Configs: []model.NamedConfig{{Name: "correct", System: Config(0).System, Defended: true},
			{Name: BugNames[0], System: Config(FreshKeyPerRetry).System}, {Name: BugNames[1], System: Config(BlindResume).System},
			{Name: BugNames[2], System: Config(ReceiptFromReply).System}},
		NotApplicable: []model.Boundary{"memory", "branch_join"},
		NotApplicableKeys: map[string]string{"identity/worker/*/*/*": "the fixture runs one task, so no later task of a worker " +
			"can inherit the ambient identity its start captured (ambient_identity_leak)"},
		ReplayCommand: "FAULTLINE_REPLAY=%s go test -run '^TestExplore$' ./examples/billing",
	}
}
