package assay

import (
	"fmt"
	"strings"
	"sync"

	"github.com/faultline/faultline/internal/catalog"

	"github.com/faultline/faultline/model"
)

// Tally counts the trials of one assay run ([Run]) per fault kind, as a
// study counts its trials, so that the run is placed in a [Region] of the
// [Envelope] as [RunStudy] places a profile: for the same profile, trials
// and seed over all five domains, the placements are equal (a test checks
// it). Give [Tally.Observe] as [Config.Observe]. A Tally is safe for
// concurrent use and keeps counts per fault kind, not every run.
type Tally struct {
	profile  string
	controls string
	mu       sync.Mutex
	cells    map[string]*cell
}

// NewTally returns an empty tally for trials under the named controls,
// labelled profile in its signatures and placement ("typed", or "custom"
// for an explicit control list, as [Config.Profile]).
func NewTally(profile string, controls []string) *Tally {
	label := strings.Join(controls, ",")
	if label == "" {
		label = "none"
	}
	return &Tally{profile: profile, controls: label, cells: map[string]*cell{}}
}

// Observe counts one trial's judged outcome: a single-fault run (as [Run]
// observes them). It has the shape of [Config.Observe]. It returns an
// error, and counts nothing, for a nil result, a result without exactly
// one fault report, or a fault kind outside the catalogue (a world event
// has no signature). res is not changed; only the first result of each
// kind is kept (as a study's cell keeps its example).
func (t *Tally) Observe(res *model.Result) error {
	if res == nil {
		return fmt.Errorf("tally: nil result")
	}
	if len(res.Faults) != 1 {
		return fmt.Errorf("tally: run %s has %d fault reports; a signature counts single-fault trials", res.RunID, len(res.Faults))
	}
	kind := res.Faults[0].Kind
	spec, err := model.Spec(kind)
	if err != nil || spec.World {
		return fmt.Errorf("tally: fault kind %q is not in the fault catalogue", kind)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.cells[kind]
	if c == nil {
		c = &cell{}
		t.cells[kind] = c
	}
	c.add(res)
	return nil
}

// trials returns the number of trials counted.
func (t *Tally) trials() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, c := range t.cells {
		n += c.counts.Trials
	}
	return n
}

// signatures returns the signature of every kind counted, in the order a
// study lists them: domains in the paper's order, kinds in catalogue order
// within a domain, under the one configuration "default".
func (t *Tally) signatures() []Signature {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Signature
	for _, d := range model.Domains {
		for _, k := range catalog.Kinds(d, false) {
			c := t.cells[k]
			if c == nil || c.counts.Trials == 0 {
				continue
			}
			spec, _ := model.Spec(k)
			out = append(out, signatureOf(t.profile, t.controls, defaultConfig, spec, c, false))
		}
	}
	return out
}

// Place places the counted trials in a region of e, over configuration
// "all", with every check and the reasons ([Envelope.Place]). A tally of
// zero trials holds every hard invariant vacuously and meets no floor; its
// placement says so in its reasons ("0 trials"). It does not validate e.
func (t *Tally) Place(e Envelope) Placement {
	return e.Place(t.profile, "all", t.signatures())
}
