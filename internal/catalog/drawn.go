package catalog

import (
	"fmt"
	"slices"

	"github.com/faultline/faultline/model"
)

// drawnEverywhere are the kinds outside the catalogue the default search
// draws on every fixture, wherever a run crosses tool.commit: the
// provider's server error, the connection's failure, and its permanent
// refusal (do_not_retry, a fleet kind drawn everywhere: one agent that
// retries it breaks retry_paced).
var drawnEverywhere = []string{"server_error", "network_error", "do_not_retry"}

// fixtureDeclares maps each declaration a kind may need
// (model.FaultSpec.Needs) to whether a fixture makes it.
var fixtureDeclares = map[string]func(fx *model.Fixture) bool{
	"at_least_once":       func(fx *model.Fixture) bool { return fx.AtLeastOnce },
	"granted_sources":     func(fx *model.Fixture) bool { return fx.GrantedSources },
	"readback_proxy":      func(fx *model.Fixture) bool { return fx.ReadbackProxy },
	"max_policy_age":      func(fx *model.Fixture) bool { return fx.MaxPolicyAge > 0 },
	"shared_credential":   func(fx *model.Fixture) bool { return fx.Fleet != nil && fx.Fleet.SharedCredential },
	"versioned_contracts": func(fx *model.Fixture) bool { return fx.VersionedContracts },
}

// Declarable reports whether some fixture can make the declaration need
// (model.FaultSpec.Needs).
func Declarable(need string) bool { return fixtureDeclares[need] != nil }

// DrawnByDefault reports whether the default search (a walk or an
// exploration whose WithKinds does not name sp.Kind) draws sp, a kind of
// model.CacheAndWorkerKinds or one that needs a declaration, on fx under
// cfg: it is the one rule properties draws by and coverage counts by
// (NotDrawnWhy says why not).
func DrawnByDefault(fx *model.Fixture, cfg model.Config, sp model.FaultSpec) bool {
	return NotDrawnWhy(fx, cfg, sp) == ""
}

// NotDrawnWhy returns "" when the default search draws sp on fx under cfg,
// else why not: server_error, network_error and do_not_retry are drawn
// everywhere; a
// kind that needs a declaration where fx makes it; a fleet kind on a
// fleet fixture, where a retry is load; a worker-scoped kind where one
// worker runs several tasks (a concurrent config with fewer workers than
// fx has tasks), the only workload where it can act; any other kind only
// when named.
func NotDrawnWhy(fx *model.Fixture, cfg model.Config, sp model.FaultSpec) string {
	switch {
	case slices.Contains(drawnEverywhere, sp.Kind):
		return ""
	case sp.Needs != "":
		if d := fixtureDeclares[sp.Needs]; d != nil && d(fx) {
			return ""
		}
		return fmt.Sprintf("drawn only where the fixture declares %s", sp.Needs)
	case sp.Fleet:
		if fx.Fleet != nil {
			return ""
		}
		return "a fleet kind, drawn only on a fleet fixture"
	case sp.WorkerScoped:
		if c := cfg.Concurrency; c != nil && c.Workers < len(fx.Tasks) {
			return ""
		}
		return "worker-scoped: no worker runs a second task (drawn only under a concurrent config with fewer workers than the fixture has tasks)"
	}
	return "drawn only when named (properties.WithKinds, --kinds)"
}
