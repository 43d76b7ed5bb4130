package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/model"
)

// HarnessKinds are the kinds the harness enacts itself on every path,
// production code's included: it crashes the worker (worker_crash after
// any crossing, worker_restart after a checkpoint write) and starts a
// fresh one, whatever adapters the system wraps.
var HarnessKinds = []string{"worker_restart", "worker_crash"}

// Enacted reports whether def's path can enact kind: every kind when
// def.Enacts is nil (the model path), else the kinds it lists and
// HarnessKinds. It is the one rule of the kinds every door draws and
// walks by default, audits and counts in coverage's universe.
func Enacted(def *model.Definition, kind string) bool {
	return def == nil || len(def.Enacts) == 0 || slices.Contains(def.Enacts, kind) || slices.Contains(HarnessKinds, kind)
}

// Enacts returns def.Enacts with HarnessKinds added, sorted; nil when
// def.Enacts is nil (every kind).
func Enacts(def *model.Definition) []string {
	if def == nil || len(def.Enacts) == 0 {
		return nil
	}
	out := append(slices.Clone(def.Enacts), HarnessKinds...)
	slices.Sort(out)
	return slices.Compact(out)
}

// CheckEnacted refuses a kind an option names (WithKinds, --kinds) that
// def's path cannot enact (Enacted): such a fault would be reached and
// never fire. The error names the kind and the kinds the path enacts.
func CheckEnacted(def *model.Definition, kinds []string) error {
	for _, k := range kinds {
		if !Enacted(def, k) {
			return fmt.Errorf("%q is a kind the path of %s cannot enact, so it could never fire: it enacts %s (model.Definition.Enacts, with %s, which the harness enacts on every path); leave the kind out, or add it to Enacts if an adapter enacts it",
				k, def.Name, strings.Join(Enacts(def), ", "), strings.Join(HarnessKinds, " and "))
		}
	}
	return nil
}
