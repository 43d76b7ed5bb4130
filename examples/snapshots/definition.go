package snapshots

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/faultline/faultline/examples/snapshots/app"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/properties"
)

// Purpose is the purpose the service records on every deletion, and the
// tasks' purpose.
const Purpose = "expire_snapshots"

// Actor is the janitor's name: its MCP client announces it, the service
// records it on every deletion, and every task is the janitor's.
const Actor = "snapshot-janitor"

// Tenant is the project the volumes belong to.
const Tenant = "proj-1"

// day is a day in milliseconds.
const day = 24 * 60 * 60 * 1000

// Inventory is the service's inventory at the start of every run, expiries
// in milliseconds from that start: per volume, one expired snapshot, one
// that expires days later (no run lasts that long), and (vol-a) one
// already in the recycle bin. So a correct sweep makes exactly one
// deletion per volume, whatever its waits.
var Inventory = []app.Snapshot{
	{ID: "a-1", Volume: "vol-a", ExpiresMs: -day, State: app.StateAvailable},
	{ID: "a-2", Volume: "vol-a", ExpiresMs: day, State: app.StateAvailable},
	{ID: "a-3", Volume: "vol-a", ExpiresMs: -2 * day, State: app.StateBinned},
	{ID: "b-1", Volume: "vol-b", ExpiresMs: -3_600_000, State: app.StateAvailable},
	{ID: "b-2", Volume: "vol-b", ExpiresMs: 2 * day, State: app.StateAvailable},
}

// Fixture is the nightly sweep: one task per volume, run one after the
// other against one service and one checkpoint database.
func Fixture() model.Fixture {
	task := func(vol string) model.Task {
		return model.Task{ID: "sweep-" + vol, Actor: Actor, Subject: vol, Tenant: Tenant, Purpose: Purpose}
	}
	return model.Fixture{Name: "nightly", Tasks: []model.Task{task("vol-a"), task("vol-b")}}
}

// Builtin are the core's invariants that apply to the janitor:
// right_subject (every deletion is of a snapshot of the swept volume, by
// the janitor, for its purpose), effect_at_most_once (one deletion per
// sweep: each volume holds one expired snapshot, so a second effect in a
// sweep is a purge or a wrong deletion) and no_invented_progress (no
// sweep claims a deletion the service does not hold).
var Builtin = []string{model.InvRightSubject, model.InvEffectAtMostOnce, model.InvNoInventedProgress}

// InvOnlyExpiredDeleted is the janitor's own invariant.
const InvOnlyExpiredDeleted = "only_expired_deleted"

// Invariants are the janitor's own invariants: only_expired_deleted,
// every deletion in the service's table was of a snapshot expired at the
// time of the deletion (on the service's clock), and never of one already
// in the recycle bin (a purge).
func Invariants() []model.UserInvariant {
	expiry := map[string]int64{}
	binned := map[string]bool{}
	for _, s := range Inventory {
		expiry[s.ID] = s.ExpiresMs
		binned[s.ID] = s.State != app.StateAvailable
	}
	return []model.UserInvariant{{
		Name: InvOnlyExpiredDeleted, Owner: "storage", Oracle: "ledger_readback",
		Doc: "every deletion in the service's table was of an expired snapshot, and none purged one from the recycle bin",
		Check: func(v model.View) string {
			seen := map[string]bool{}
			for _, e := range v.Ledger() {
				exp, ok := expiry[e.ActionRef]
				switch {
				case !ok:
					return "deleted unknown snapshot " + e.ActionRef
				case exp > int64(e.At):
					return fmt.Sprintf("deleted %s at %d ms, before its expiry at %d ms", e.ActionRef, e.At, exp)
				case seen[e.ActionRef] || binned[e.ActionRef]:
					return fmt.Sprintf("purged %s from the recycle bin (deletion %s under key %s)", e.ActionRef, e.ReceiptID, e.Key)
				}
				seen[e.ActionRef] = true
			}
			return ""
		},
	}}
}

// settings is the janitor's part of a schedule's config:
//
//	"system": {"bug": true}
type settings struct {
	Bug bool `json:"bug,omitempty"`
}

// Config returns the config that plants the bug (app.Options
// FreshKeyOnRetry) or not ({}).
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
		return s, fmt.Errorf("config of snapshots: %w (valid: {\"bug\": true|false})", err)
	}
	return s, nil
}

// Definition describes the janitor for every path: its fixture, its
// config ({"bug": true} plants the bug), its invariants, its two named
// configurations, and its clock (properties.BubbleClock: every run is in
// a synctest bubble). Each run gets a World of its own (its database file
// in dir, a test's t.TempDir(), and the options its config selects), and
// each worker of the run the System newSystem makes over that World: the
// test's glue, which wires the adapters around the janitor's clients.
func Definition(dir string, newSystem func(w *World) model.System) *model.Definition {
	return &model.Definition{
		Name:     "snapshots",
		Fixtures: []model.Fixture{Fixture()},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			s, err := parse(system)
			if err != nil {
				return nil, err
			}
			w := NewWorld(dir, app.Options{FreshKeyOnRetry: s.Bug})
			return func() model.System { return newSystem(w) }, nil
		},
		Describe: func(system json.RawMessage) (string, error) {
			s, err := parse(system)
			if s.Bug {
				return "bug fresh_key_on_retry", err
			}
			return "bug none", err
		},
		Builtin:    Builtin,
		Invariants: Invariants(),
		Clock:      properties.BubbleClock,
		Configs: []model.NamedConfig{{Name: "correct", System: Config(false).System, Defended: true},
			{Name: "fresh_key_on_retry", System: Config(true).System}},
	}
}

// Claim is what a sweep tells its user: a release when it deleted and
// confirmed every expired snapshot it found, a hold when a deletion is
// unresolved or there was nothing to delete.
func Claim(rep app.Report) model.Claim {
	switch {
	case len(rep.Unresolved) > 0:
		return model.Claim{Verdict: model.ClaimHold, Reason: fmt.Sprintf("unresolved deletions: %v", rep.Unresolved)}
	case len(rep.Deleted) > 0:
		// the release rests on the service's receipt of its last deletion
		return model.Claim{Verdict: model.ClaimRelease, Reason: fmt.Sprintf("deleted %v, kept %d", rep.Deleted, rep.Kept),
			Receipt: rep.Receipts[len(rep.Receipts)-1]}
	}
	return model.Claim{Verdict: model.ClaimHold, Reason: fmt.Sprintf("nothing expired, kept %d", rep.Kept)}
}
