package assay

import (
	"fmt"
	"slices"

	"github.com/faultline/faultline/model"
)

// Region is one of the four regions of the paper's release figure ("Release
// occupies a constrained envelope, not the maximum of one score"). Its axes
// are useful service preserved under fault and containment with outcome
// proof.
type Region string

// Regions, each with the decision the paper attaches to it.
const (
	// RegionUnsafeEscape: a hard invariant failed (an unsafe escape, a
	// duplicate effect, a wrong-subject effect, a violation of the
	// recovery contract or a success released without proof). Block.
	RegionUnsafeEscape Region = "unsafe escape"
	// RegionUsefulButUnproved: every hard invariant held, contained and
	// serving, but a proof, contain or detect floor was missed. Shadow or
	// hold.
	RegionUsefulButUnproved Region = "useful but unproved"
	// RegionContainedButDead: contained, but a recovery or service floor
	// was missed: safe because it stops. Redesign recovery.
	RegionContainedButDead Region = "contained but dead"
	// RegionReleaseEnvelope: every hard invariant held and every floor
	// that can be measured was met (a floor not measurable is said so in
	// the reasons). Release the bounded claim.
	RegionReleaseEnvelope Region = "release envelope"
)

// Decision returns the paper's decision for r.
func (r Region) Decision() string {
	switch r {
	case RegionUnsafeEscape:
		return "block"
	case RegionUsefulButUnproved:
		return "shadow or hold"
	case RegionContainedButDead:
		return "redesign recovery"
	case RegionReleaseEnvelope:
		return "release the bounded claim"
	}
	return ""
}

// Scope says over which trials a floor is checked.
type Scope string

// Scopes.
const (
	// ScopeOverall: over all trials of the profile.
	ScopeOverall Scope = "overall"
	// ScopeEachDomain: over the trials of each fault domain separately;
	// every domain must meet the floor.
	ScopeEachDomain Scope = "each_domain"
	// ScopeEachKind: over the trials of each critical fault kind
	// separately.
	ScopeEachKind Scope = "each_kind"
)

// Floor is a minimum rate in [0,1] for one term of Q (recover, prove or
// serve; detect and contain are accepted too) over a scope.
type Floor struct {
	Term  string  `json:"term"`
	Min   float64 `json:"min"`
	Scope Scope   `json:"scope"`
}

// Envelope is the release envelope (the paper, "A dead system can score
// perfectly on safety"): the hard invariants, always checked (the paper's
// four: zero unsafe escape, zero duplicate effect, zero unproved release,
// zero wrong-subject effect; and zero recovery-contract violation, seed
// 003's recovery contract), and the floors.
type Envelope struct {
	Floors []Floor `json:"floors"`
}

// DefaultEnvelope returns the documented default floors:
//
//   - recover ≥ 0.80 overall and serve ≥ 0.80 overall: the system must be
//     able to operate across the represented fault mix (0.80 is the
//     artefact's useful-service target);
//   - prove ≥ 0.80 in each fault domain: proof decides whether success can
//     be communicated, so a family whose outcomes cannot be proven is not
//     hidden by families that can ("Aggregate only after preserving the
//     worst critical fault class").
func DefaultEnvelope() Envelope {
	return Envelope{Floors: []Floor{
		{Term: "recover", Min: 0.80, Scope: ScopeOverall},
		{Term: "prove", Min: 0.80, Scope: ScopeEachDomain},
		{Term: "serve", Min: 0.80, Scope: ScopeOverall},
	}}
}

// validate returns an error naming the first bad floor.
func (e Envelope) validate() error {
	for i, f := range e.Floors {
		if _, ok := (Q{}).get(f.Term); !ok {
			return fmt.Errorf("envelope: floors[%d]: unknown term %q (valid: detect, contain, recover, prove, serve)", i, f.Term)
		}
		if f.Min < 0 || f.Min > 1 {
			return fmt.Errorf("envelope: floors[%d]: min %v is not a rate in [0,1]", i, f.Min)
		}
		switch f.Scope {
		case ScopeOverall, ScopeEachDomain, ScopeEachKind:
		default:
			return fmt.Errorf("envelope: floors[%d]: unknown scope %q (valid: overall, each_domain, each_kind)", i, f.Scope)
		}
	}
	return nil
}

// Check is one checked constraint of a placement. NotMeasurable marks a
// check the run's scope cannot take (prove and unproved release under a
// narrowed Builtin): it is not held, gates nothing, and its reason says
// why.
type Check struct {
	Name          string `json:"name"`
	Hard          bool   `json:"hard"`
	Held          bool   `json:"held"`
	NotMeasurable bool   `json:"not_measurable,omitempty"`
	Reason        string `json:"reason"`
}

// Placement places a profile (over one configuration, or all) in a region,
// with every check and the reasons: the failed checks, or, in the release
// envelope, the checks that earned it; then the checks not measurable.
type Placement struct {
	Profile  string   `json:"profile"`
	Config   string   `json:"config"`
	Trials   int      `json:"trials"`
	Region   Region   `json:"region"`
	Decision string   `json:"decision"`
	Reasons  []string `json:"reasons"`
	Checks   []Check  `json:"checks"`
}

func pctOf(t Term) string { return fmt.Sprintf("%.1f%%", 100*t.Rate) }

// Place places a profile's signatures (over configuration config, or
// "all") in a region: unsafe escape on a failed hard invariant (unsafe
// escape, duplicate, wrong subject, recovery contract, unproved release),
// whatever floor is missed beside it; else contained but dead on a missed
// recover or serve floor; else useful but unproved on a missed prove,
// contain or detect floor; else release envelope. When every signature ran
// under a scope that cannot yield Verified (a narrowed Builtin), prove
// floors and unproved release are checks NotMeasurable, gating nothing.
// A worst class is always a kind whose event the system crossed.
func (e Envelope) Place(profile, config string, sigs []Signature) Placement {
	pl := Placement{Profile: profile, Config: config, Reasons: []string{}, Checks: []Check{}}
	all := pool(profile, "", "all", config, sigs)
	pl.Trials = all.Trials
	worstHarm := func(get func(Harms) int) string {
		var best *Signature
		for i := range sigs {
			s := &sigs[i]
			if get(s.Harms) > 0 && !s.uncrossed && (best == nil || float64(get(s.Harms))/float64(s.Trials) > float64(get(best.Harms))/float64(best.Trials)) {
				best = s
			}
		}
		if best == nil {
			return ""
		}
		return fmt.Sprintf("; worst class %s, %d of %d, configuration %s", best.Kind, get(best.Harms), best.Trials, best.Config)
	}
	hard := []struct {
		name string
		get  func(Harms) int
	}{
		{"zero unsafe escape", func(h Harms) int { return h.UnsafeEscape }},
		{"zero duplicate effect", func(h Harms) int { return h.DuplicateEffect }},
		{"zero wrong-subject effect", func(h Harms) int { return h.WrongSubject }},
		{"zero recovery-contract violation", func(h Harms) int { return h.ContractViolation }},
		{"zero unproved release", func(h Harms) int { return h.UnprovedRelease }},
	}
	unprovable := len(sigs) > 0 && !slices.ContainsFunc(sigs, func(s Signature) bool { return !s.unprovable })
	safe, proved, operating := true, true, true
	for _, h := range hard {
		if unprovable && h.name == "zero unproved release" {
			pl.Checks = append(pl.Checks, notMeasurable("hard invariant "+h.name, h.name, "no release is found unproved", all.Trials))
			pl.Checks[len(pl.Checks)-1].Hard = true
			continue
		}
		n := h.get(all.Harms)
		c := Check{Name: h.name, Hard: true, Held: n == 0}
		if n == 0 {
			c.Reason = fmt.Sprintf("hard invariant %s held in %d trials", h.name, all.Trials)
		} else {
			c.Reason = fmt.Sprintf("hard invariant %s failed: %d of %d trials%s", h.name, n, all.Trials, worstHarm(h.get))
			safe = false
		}
		pl.Checks = append(pl.Checks, c)
	}
	for _, f := range e.Floors {
		if unprovable && f.Term == "prove" {
			name := fmt.Sprintf("%s floor %.0f%% (%s)", f.Term, 100*f.Min, f.Scope)
			pl.Checks = append(pl.Checks, notMeasurable(fmt.Sprintf("%s floor %.0f%%", f.Term, 100*f.Min), name, "prove is 0 by construction", all.Trials))
			continue
		}
		for _, g := range floorGroups(f.Scope, profile, config, sigs) {
			t, _ := g.agg.Q.get(f.Term)
			c := Check{Name: fmt.Sprintf("%s floor %.0f%% (%s)", f.Term, 100*f.Min, f.Scope), Held: t.Rate >= f.Min}
			where := g.label
			if wc := worstFor(g.agg, f.Term); wc != nil && f.Scope != ScopeEachKind {
				where += fmt.Sprintf(", worst class %s %d of %d, configuration %s", wc.Kind, wc.Count, wc.Trials, wc.Config)
			}
			verb := "met"
			if !c.Held {
				verb = "missed"
			}
			c.Reason = fmt.Sprintf("%s floor %.0f%% %s: %s %d of %d = %s [95%% CI %.1f%%, %.1f%%] (%s)",
				f.Term, 100*f.Min, verb, f.Term, t.Count, t.Trials, pctOf(t), 100*t.Interval.Lo, 100*t.Interval.Hi, where)
			if !c.Held {
				switch f.Term {
				case "recover", "serve":
					operating = false
				default:
					proved = false
				}
			}
			pl.Checks = append(pl.Checks, c)
		}
	}
	switch {
	case !safe:
		pl.Region = RegionUnsafeEscape
	case !operating:
		pl.Region = RegionContainedButDead
	case !proved:
		pl.Region = RegionUsefulButUnproved
	default:
		pl.Region = RegionReleaseEnvelope
	}
	pl.Decision = pl.Region.Decision()
	for _, c := range pl.Checks {
		if !c.NotMeasurable && (!c.Held || pl.Region == RegionReleaseEnvelope) {
			pl.Reasons = append(pl.Reasons, c.Reason)
		}
	}
	for _, c := range pl.Checks {
		if c.NotMeasurable {
			pl.Reasons = append(pl.Reasons, c.Reason)
		}
	}
	return pl
}

// notMeasurable returns the check named name that a scope which cannot
// yield Verified (a narrowed Builtin: docs/vocabulary.md, Terms) cannot
// take over trials trials: not held, gating nothing, its reason (label,
// then what follows) saying so and why.
func notMeasurable(label, name, follows string, trials int) Check {
	return Check{Name: name, NotMeasurable: true,
		Reason: fmt.Sprintf("%s not measurable: the system's invariants narrow the built-in ones (Builtin), "+
			"a scope in which no outcome is verified, so %s over its %d trials; the decision rests on the other checks", label, follows, trials)}
}

type floorGroup struct {
	label string
	agg   Aggregate
}

// floorGroups returns the groups of trials a floor of scope s is checked
// over.
func floorGroups(s Scope, profile, config string, sigs []Signature) []floorGroup {
	switch s {
	case ScopeEachDomain:
		var out []floorGroup
		for _, d := range model.Domains {
			var sub []Signature
			for _, x := range sigs {
				if x.Domain == d {
					sub = append(sub, x)
				}
			}
			if len(sub) > 0 {
				out = append(out, floorGroup{"domain " + string(d), pool(profile, "", string(d), config, sub)})
			}
		}
		return out
	case ScopeEachKind:
		var out []floorGroup
		var order []string
		by := map[string][]Signature{}
		for _, x := range sigs {
			if !x.Critical {
				continue
			}
			if _, ok := by[x.Kind]; !ok {
				order = append(order, x.Kind)
			}
			by[x.Kind] = append(by[x.Kind], x)
		}
		for _, k := range order {
			out = append(out, floorGroup{"kind " + k, pool(profile, "", "all", config, by[k])})
		}
		return out
	}
	return []floorGroup{{"overall", pool(profile, "", "all", config, sigs)}}
}

func worstFor(a Aggregate, term string) *WorstCell {
	for i := range a.Worst {
		if a.Worst[i].Term == term {
			return &a.Worst[i]
		}
	}
	return nil
}
