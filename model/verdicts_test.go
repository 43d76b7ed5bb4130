package model_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestBatchTypedRecoversWithACorrectDenial: on copperfin-batch the typed
// profile refunds O-731 and O-732 and denies the repeated request for
// O-731. The denial is the workload's correct outcome (the request was not
// entitled when its task started), so it does not cap the run verdict.
func TestBatchTypedRecoversWithACorrectDenial(t *testing.T) {
	res := runOn(t, copperfin.CopperfinBatch(), `{"version":1,"seed":"x","config":{"fixture":"copperfin-batch","profile":"typed"},"faults":[]}`)
	want := []model.TaskVerdict{
		{Task: "refund-O-731", Claim: model.ClaimRelease, RunVerdict: model.Recovered},
		{Task: "refund-O-732", Claim: model.ClaimRelease, RunVerdict: model.Recovered},
		{Task: "refund-O-731-again", Claim: model.ClaimDeny, RunVerdict: model.ContainedFailure, CorrectDenial: true},
	}
	if !slices.Equal(res.Tasks, want) {
		t.Errorf("tasks %+v, want %+v", res.Tasks, want)
	}
	if res.RunVerdict != model.Recovered || res.Verdict != model.ClaimDeny || !res.Held() {
		t.Errorf("run %s claim %s held %t, want recovered, deny, held", res.RunVerdict, res.Verdict, res.Held())
	}
	// the record names each task by its reference (redacted as every
	// fixture identifier is): refund-O-731, refund-O-732,
	// refund-O-731-again
	redacted := slices.Clone(want)
	for i, ref := range []string{"ref-db32399f", "ref-dc323b32", "ref-f7227eae"} {
		redacted[i].Task = ref
	}
	rec := res.Record()
	if rec.Version != 3 || !slices.Equal(rec.Tasks, redacted) {
		t.Errorf("record version %d tasks %+v", rec.Version, rec.Tasks)
	}

	// a denial a fault caused is contained and caps the run: revoking
	// the first task's capability at its grant leaves the first request
	// entitled at its start, so its denial is not the workload's
	res = runOn(t, copperfin.CopperfinBatch(), `{"version":1,"seed":"x","config":{"fixture":"copperfin-batch","profile":"typed"},`+
		`"faults":[{"event":"authority.grant","ordinal":1,"kind":"revoked_capability"}]}`)
	if res.RunVerdict != model.ContainedFailure || res.Tasks[0].RunVerdict != model.ContainedFailure || res.Tasks[0].CorrectDenial {
		t.Errorf("revoked first grant: run %s tasks %+v, want contained_failure with the first task's denial not correct", res.RunVerdict, res.Tasks)
	}

	// one task: the paper fixture's verdicts are unchanged
	res = runOn(t, copperfin.Copperfin(), `{"version":1,"seed":"x","config":{"profile":"typed"},"faults":[{"event":"authority.grant","ordinal":1,"kind":"revoked_capability"}]}`)
	if res.RunVerdict != model.ContainedFailure || len(res.Tasks) != 1 || res.Tasks[0] != (model.TaskVerdict{Task: "refund-O-731", Claim: model.ClaimDeny, RunVerdict: model.ContainedFailure}) {
		t.Errorf("copperfin revoked: run %s tasks %+v", res.RunVerdict, res.Tasks)
	}
}

// TestRunRecordVersion1Decodes: a version 1 record (no tasks) still
// decodes into RunRecord, to the same record without Tasks.
func TestRunRecordVersion1Decodes(t *testing.T) {
	res := runOn(t, copperfin.CopperfinBatch(), `{"version":1,"seed":"x","config":{"fixture":"copperfin-batch","profile":"typed"},"faults":[]}`)
	rec := res.Record()
	data, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "tasks")
	m["version"] = json.RawMessage("1")
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	var old model.RunRecord
	if err := json.Unmarshal(data, &old); err != nil {
		t.Fatal(err)
	}
	if old.Version != 1 || old.Tasks != nil || old.RunVerdict != rec.RunVerdict || old.Summary != rec.Summary || len(old.Timeline) != len(rec.Timeline) {
		t.Errorf("v1 record decoded to version %d tasks %v verdict %s", old.Version, old.Tasks, old.RunVerdict)
	}
	// the tasks refund-O-731, refund-O-732 and refund-O-731-again, by
	// their references
	if want := "Verdict: recovered (claim deny: refund already made by another request; tasks: ref-db32399f recovered (release), " +
		"ref-dc323b32 recovered (release), ref-f7227eae contained_failure (deny, a correct denial))."; !strings.Contains(rec.Summary, want) {
		t.Errorf("summary %q lacks %q", rec.Summary, want)
	}
}
