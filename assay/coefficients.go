package assay

import (
	"github.com/faultline/faultline/model"
)

// Coefficient is the fault-transfer coefficient of the paper ("The
// fault-transfer coefficient") for one fault kind i and invariant j under a
// profile and configuration:
//
//	T_ij = P(violation j | do(fault i)) − P(violation j | no fault)
//
// estimated over matched runs: every trial of the plan that drew kind i is
// an intervention run, and the same trial's configuration run with no fault
// is its matched baseline. T is in [−1,1]; the run counts are kept, since
// the coefficient localises transfer under the declared configuration only.
type Coefficient struct {
	Profile            string  `json:"profile"`
	Config             string  `json:"config"`
	Kind               string  `json:"kind"`
	Invariant          string  `json:"invariant"`
	Runs               int     `json:"runs"`
	Violations         int     `json:"violations"`
	BaselineRuns       int     `json:"baseline_runs"`
	BaselineViolations int     `json:"baseline_violations"`
	PFault             float64 `json:"p_fault"`
	PNoFault           float64 `json:"p_no_fault"`
	T                  float64 `json:"t"`
}

func coefficientsOf(profile, config, kind string, invariants []string, c *cell) []Coefficient {
	var out []Coefficient
	for _, inv := range invariants {
		co := Coefficient{Profile: profile, Config: config, Kind: kind, Invariant: inv,
			Runs: c.counts.Trials, Violations: c.violated[inv], BaselineRuns: c.baseRuns, BaselineViolations: c.baseViolated[inv]}
		if co.Runs > 0 {
			co.PFault = float64(co.Violations) / float64(co.Runs)
		}
		if co.BaselineRuns > 0 {
			co.PNoFault = float64(co.BaselineViolations) / float64(co.BaselineRuns)
		}
		co.T = co.PFault - co.PNoFault
		out = append(out, co)
	}
	return out
}

// Hold is an unresolved hold: trials of one kind whose claim was a hold
// made by the system (not a stop), with the ledger effects it left (an
// effect behind a hold needs reconciliation before the work is done).
type Hold struct {
	Profile string `json:"profile"`
	Config  string `json:"config"`
	Kind    string `json:"kind"`
	Trials  int    `json:"trials"`
	Reason  string `json:"reason"`
	Effects int    `json:"effects"`
}

func holdOf(profile, config, kind string, c *cell) *Hold {
	res := c.example
	if res == nil || res.Stopped != nil || len(res.Claims) == 0 {
		return nil
	}
	for _, cl := range res.Claims {
		if cl.Verdict == model.ClaimHold {
			return &Hold{Profile: profile, Config: config, Kind: kind, Trials: c.counts.Trials, Reason: cl.Reason, Effects: res.Terms.Effects}
		}
	}
	return nil
}
