package assay

import "github.com/faultline/faultline/model"

// Internals the external tests check.
var (
	ReadDossier    = readDossier
	SpecTriggers   = specTriggers
	EventBoundary  = eventBoundary
	ProgressStep   = progressStep
	Critical       = critical
	TallySignature = (*Tally).signatures
	TallyTrials    = (*Tally).trials
)

const (
	DefaultConfig  = defaultConfig
	DossierVersion = dossierVersion
)

// DossierFaults returns specs with def's defences.
func DossierFaults(def *model.Definition, specs []model.FaultSpec) []DossierFault {
	s, err := newSystem(def)
	if err != nil {
		panic(err)
	}
	return s.dossierFaults(specs)
}

// Diagnose diagnoses res, a counterexample run of def in setup, with the
// controls of roles.
func Diagnose(def *model.Definition, setup Setup, roles map[string]Remediation, res *model.Result) (Diagnosis, error) {
	s, err := newSystem(def)
	if err != nil {
		return Diagnosis{}, err
	}
	setup = s.setup(setup)
	h := model.NewHarness(setup.Fixture, def.Options(setup.Options))
	run := func(_ arm, sched *model.Schedule) (*model.Result, error) { return s.runOn(h, sched) }
	return s.diagnose(run, roles, res, "", defaultConfig, 0)
}

// Add counts one trial's terms.
func (c *Counts) Add(t model.Terms) { c.add(t) }
