package paper

import (
	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// KindRow is one fault kind's single-fault run under a profile: the oracle's
// terms and the invariants it violated. A run is a pure function of its
// schedule, so one run per kind is the whole answer for that kind.
type KindRow struct {
	Kind     string       `json:"kind"`
	Domain   model.Domain `json:"domain"`
	Terms    model.Terms  `json:"terms"`
	Violated []string     `json:"violated"`
	// Reached is false when the fault's event never occurred, so the kind
	// was not tested in this row.
	Reached bool `json:"reached"`
	// Result is the full run the row was judged from (for coverage).
	Result *model.Result `json:"-"`
}

// ProfileAudit is the audit of one profile: a row per catalogue kind (per
// paper mode with compat) and an assay over the same kinds.
type ProfileAudit struct {
	Profile  copperfin.Profile  `json:"profile"`
	Controls copperfin.Controls `json:"-"`
	Rows     []KindRow          `json:"rows"`
	// Correlated are the runs of each correlation modifier of the
	// catalogue (copperfin.Correlated, one copperfin.CorrelatedSchedule
	// each), kept apart from Rows: they visit the coverage keys of the
	// correlations and are not single-fault findings. None with compat.
	Correlated []KindRow `json:"-"`
	// Notices are the runs of each kind of the provider's notices
	// (NoticeRows), kept apart like Correlated; set only when asked for
	// ("faultline audit --notices").
	Notices []KindRow     `json:"-"`
	Assay   *assay.Report `json:"-"`
}

// AuditTrials and AuditSeed are the assay settings of Audit.
const (
	AuditTrials = 2000
	AuditSeed   = 188
)

// Audit runs the reference system under each profile across the whole
// catalogue (with compat, the paper's ten modes only, as
// "--compat paper188"): every kind once as a single-fault schedule, and an
// assay of AuditTrials trials with seed AuditSeed over the same kinds. It
// returns an error for an unknown profile or a harness error.
func Audit(profiles []copperfin.Profile, compat bool) ([]ProfileAudit, error) {
	var out []ProfileAudit
	h := model.NewHarness(copperfin.Copperfin(), model.Options{Compat: compat})
	for _, p := range profiles {
		cs, err := copperfin.ProfileControls(p)
		if err != nil {
			return nil, err
		}
		pa := ProfileAudit{Profile: p, Controls: cs}
		for _, spec := range model.Catalogue() {
			if compat && !spec.Paper {
				continue
			}
			s, err := model.SingleFault(spec.Kind, copperfin.ConfigOfControls(cs))
			if err != nil {
				return nil, err
			}
			res, err := h.Run(copperfin.Factory(cs), s)
			if err != nil {
				return nil, err
			}
			row := KindRow{Kind: spec.Kind, Domain: spec.Domain, Terms: res.Terms, Violated: []string{}, Reached: res.Faults[0].Reached && res.Faults[0].Fired > 0, Result: res}
			for _, inv := range res.Invariants {
				if !inv.Held {
					row.Violated = append(row.Violated, inv.Invariant)
				}
			}
			pa.Rows = append(pa.Rows, row)
		}
		if !compat {
			if pa.Correlated, err = correlatedRows(cs); err != nil {
				return nil, err
			}
		}
		pa.Assay, err = assay.Run(copperfin.Definition(), assay.Config{Profile: string(p), System: copperfin.ConfigOfControls(cs).System,
			Trials: AuditTrials, Seed: AuditSeed, Compat: compat})
		if err != nil {
			return nil, err
		}
		out = append(out, pa)
	}
	return out, nil
}

// NoticeRows runs each kind of the provider's notices (model.NoticeKinds)
// under controls cs on its copperfin.NoticeSchedule: runs with notices,
// which visit the kinds' coverage keys (coverage.NoticeUniverse). It
// returns an error for a harness error.
func NoticeRows(cs copperfin.Controls) ([]KindRow, error) {
	var out []KindRow
	h := model.NewHarness(copperfin.Copperfin(), model.Options{})
	for _, spec := range model.NoticeKinds() {
		s, err := copperfin.NoticeSchedule(spec.Kind, copperfin.ConfigOfControls(cs))
		if err != nil {
			return nil, err
		}
		res, err := h.Run(copperfin.Factory(cs), s)
		if err != nil {
			return nil, err
		}
		f := res.Faults[len(res.Faults)-1]
		row := KindRow{Kind: spec.Kind, Domain: spec.Domain, Terms: res.Terms, Violated: []string{}, Reached: f.Reached && f.Fired > 0, Result: res}
		for _, inv := range res.Invariants {
			if !inv.Held {
				row.Violated = append(row.Violated, inv.Invariant)
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// correlatedRows runs each correlation modifier of the catalogue under
// controls cs on its CorrelatedSchedule's fixture.
func correlatedRows(cs copperfin.Controls) ([]KindRow, error) {
	var out []KindRow
	for _, ck := range copperfin.Correlated() {
		s, err := copperfin.CorrelatedSchedule(ck.Kind, ck.Correlation, copperfin.ConfigOfControls(cs))
		if err != nil {
			return nil, err
		}
		fx, err := copperfin.FixtureNamed(s.Config.Fixture)
		if err != nil {
			return nil, err
		}
		res, err := model.NewHarness(fx, model.Options{}).Run(copperfin.Factory(cs), s)
		if err != nil {
			return nil, err
		}
		spec, err := model.Spec(ck.Kind)
		if err != nil {
			return nil, err
		}
		row := KindRow{Kind: ck.Kind, Domain: spec.Domain, Terms: res.Terms, Violated: []string{}, Reached: res.Faults[0].Reached && res.Faults[0].Fired > 0, Result: res}
		for _, inv := range res.Invariants {
			if !inv.Held {
				row.Violated = append(row.Violated, inv.Invariant)
			}
		}
		out = append(out, row)
	}
	return out, nil
}
