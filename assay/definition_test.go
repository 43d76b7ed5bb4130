package assay_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/faultline/faultline/assay"
	"github.com/faultline/faultline/examples/inventory"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestDefinitionWithoutArms: a system defined by a name, a fixture and a
// factory (model.Define: no controls to vary) gets signatures, placements
// and diagnoses over its one default configuration, and no pairs; a pair
// of it is refused, and so is production code (a Definition with a
// Clock).
func TestDefinitionWithoutArms(t *testing.T) {
	def := model.Define("plain", copperfin.Copperfin(), copperfin.Factory(0))
	st, err := assay.RunStudy(def, assay.StudyConfig{Trials: 200, Seed: 188, Compat: true, Envelope: assay.DefaultEnvelope()})
	if err != nil {
		t.Fatal(err)
	}
	if st.System != "plain" || len(st.Signatures) != 10 || len(st.Pairs) != 0 || len(st.Diagnoses) != 10 || len(st.Placements) != 1 ||
		st.Placements[0].Profile != "default" || st.Placements[0].Region != assay.RegionUnsafeEscape {
		t.Fatalf("%s: %d signatures, %d pairs, %d diagnoses, placements %+v", st.System, len(st.Signatures), len(st.Pairs), len(st.Diagnoses), st.Placements)
	}
	if s := st.Signatures[0]; s.Profile != "default" || s.Controls != "system {}" || s.Kind != "subject_swap" || s.Harms.WrongSubject != s.Trials {
		t.Errorf("first signature %+v", s)
	}
	for _, d := range st.Diagnoses {
		if d.Remediation != "" || len(d.Interrupting) != 0 || d.Why != "the system's controls cannot be varied (Definition.Arm): no matched run tried" {
			t.Errorf("%s diagnosis %+v", d.Kind, d)
		}
	}
	s, _ := model.SingleFault("subject_swap", model.Config{})
	if _, err := assay.ContrastOf(def, assay.Setup{}, s, nil, nil); !errors.Is(err, assay.ErrBadConfig) || !strings.Contains(err.Error(), "system plain has no Arm and Armed") {
		t.Errorf("a pair without arms: %v", err)
	}
	def.Clock = func() model.Millis { return 0 }
	if _, err := assay.Run(def, assay.Config{Trials: 1}); !errors.Is(err, assay.ErrBadConfig) || !strings.Contains(err.Error(), "production code") {
		t.Errorf("production code: %v", err)
	}
}

// TestConfigThatDoesNotApply: a named configuration the system refuses
// is bad configuration naming it, from its first run (Configure) or from
// Armed, whichever reads it first; the configurations before it ran.
func TestConfigThatDoesNotApply(t *testing.T) {
	plain := model.Define("plain", copperfin.Copperfin(), copperfin.Factory(0))
	plain.Configs = []model.NamedConfig{{Name: "good"}, {Name: "bad", System: json.RawMessage(`{"x":1}`)}}
	cfg := assay.StudyConfig{Trials: 20, Seed: 188, Compat: true, Envelope: assay.DefaultEnvelope()}
	_, err := assay.RunStudy(plain, cfg)
	if !errors.Is(err, assay.ErrBadConfig) || err.Error() != `bad assay configuration: configuration "bad" of plain: system plain takes no config of its own (got {"x":1})` {
		t.Errorf("plain: %v", err)
	}
	inv := inventory.Definition()
	inv.Configs = append(inv.Configs, model.NamedConfig{Name: "odd", System: json.RawMessage(`{"variant":"nope"}`)})
	_, err = assay.RunStudy(inv, cfg)
	if !errors.Is(err, assay.ErrBadConfig) || err.Error() != `bad assay configuration: configuration "odd" of inventory: config of inventory: unknown variant "nope" (valid: fixed, planted)` {
		t.Errorf("inventory: %v", err)
	}
}
