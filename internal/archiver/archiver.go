// Package archiver is a small system of another domain than refunds, for
// the tests of fault placement and fuzzing: an agent that archives one
// document through a storage tool. It loads its checkpoint, writes
// exactly two checkpoints on a clean run (the request key and attempt
// before the call, the outcome after it; a retry writes one more before
// its call), refuses a checkpoint it cannot trust
// (missing though acknowledged, stale, corrupt, of another version), and
// retries an unknown outcome within the task's retry budget. Fixed, it reuses the saved request key on every
// retry; with its planted bug (FreshKeys) each retry takes a fresh key,
// so a timeout after the commit archives the document twice, which its
// invariant archived_once catches.
package archiver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/faultline/faultline/model"
)

// Tool is the storage tool the agent calls.
const Tool = "archive.put"

// InvArchivedOnce is the agent's own invariant: the archive holds at most
// one copy of the document.
const InvArchivedOnce = "archived_once"

// minAttemptTime is the time, in logical milliseconds, a call needs left
// before the deadline to be made.
const minAttemptTime model.Millis = 100

// workflowVersion is the version of the agent's checkpoints.
const workflowVersion = 1

// Agent archives the task's document. FreshKeys is the planted bug.
type Agent struct{ FreshKeys bool }

// Run archives the document, resuming from the stored checkpoint. It
// returns model.ErrWorkerCrashed (possibly wrapped) when the harness
// crashed it.
func (a Agent) Run(ctx context.Context, env model.Env, t model.Task) (model.Claim, error) {
	cp, resumed, err := env.Store.Load(ctx, t.ID)
	if err != nil {
		return model.Claim{}, err
	}
	switch {
	case !resumed && cp.Head > 0:
		return model.Claim{Verdict: model.ClaimHold, Reason: "an acknowledged checkpoint is missing"}, nil
	case resumed && (cp.WorkflowVersion != workflowVersion || model.Checksum(cp) != cp.Checksum || cp.Seq < cp.Head):
		return model.Claim{Verdict: model.ClaimHold, Reason: "the checkpoint cannot be trusted"}, nil
	}
	key, seq, attempts := "", 0, 0
	if resumed {
		if cp.State == "archived" {
			return model.Claim{Verdict: model.ClaimRelease, Reason: "archived before the restart"}, nil
		}
		key, seq, attempts = cp.Data["key"], cp.Seq, cp.Attempt
	}
	save := func(state string) error {
		seq++
		cp := model.Checkpoint{Task: t.ID, Seq: seq, WorkflowVersion: workflowVersion, State: state, Attempt: attempts,
			Data: map[string]string{"key": key}}
		if state == "archived" {
			cp.CompletedEffects = []string{key} // the record names the effect it made
		}
		return env.Store.Save(ctx, cp)
	}
	for {
		if attempts > t.RetryBudget {
			return model.Claim{Verdict: model.ClaimHold, Reason: "outcome unknown after every retry"}, nil
		}
		if key == "" || a.FreshKeys && attempts > 0 {
			key = env.NewRequestID()
		}
		// the attempt is recorded before the call, so a restarted worker
		// counts it against the budget
		attempts++
		if err := save("sending"); err != nil {
			return model.Claim{}, err
		}
		if t.Deadline > 0 && t.Started+t.Deadline-env.Now() < minAttemptTime {
			return model.Claim{Verdict: model.ClaimHold, Reason: "too close to the deadline to call the archive"}, nil
		}
		act := model.Action{Actor: t.Actor, Subject: t.Subject, Tenant: t.Tenant, Purpose: t.Purpose, IdempotencyKey: key, TraceID: t.Trace}
		res, err := env.Tool.Commit(ctx, model.ToolCall{Tool: Tool, RequestKey: key, Action: act})
		if err != nil {
			return model.Claim{}, err
		}
		switch res.Outcome {
		case model.OutcomeCommitted:
			if err := save("archived"); err != nil {
				return model.Claim{}, err
			}
			return model.Claim{Verdict: model.ClaimRelease, Reason: "archived " + t.Subject}, nil
		case model.OutcomeRejected:
			return model.Claim{Verdict: model.ClaimHold, Reason: "the archive refused the document"}, nil
		}
	}
}

// Fixture is the agent's workload: one document to archive (the harness's
// default two retries and 2,000 ms deadline).
func Fixture() model.Fixture {
	return model.Fixture{Name: "archive", Tasks: []model.Task{
		{ID: "archive-DOC-4", Actor: "archiver", Subject: "DOC-4", Tenant: "records", Purpose: "archive"},
	}}
}

// settings is the agent's own part of a schedule's config:
// {"bug": "fresh_keys"} plants the bug; {} is the fixed agent.
type settings struct {
	Bug string `json:"bug,omitempty"`
}

func parse(system json.RawMessage) (bool, error) {
	var s settings
	dec := json.NewDecoder(strings.NewReader(string(system)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return false, fmt.Errorf("config of archiver: %w", err)
	}
	switch s.Bug {
	case "":
		return false, nil
	case "fresh_keys":
		return true, nil
	}
	return false, fmt.Errorf("config of archiver: unknown bug %q (valid: fresh_keys)", s.Bug)
}

// Planted is the config's system part that plants the bug.
var Planted = json.RawMessage(`{"bug":"fresh_keys"}`)

// Definition describes the agent: its fixture, its config and its
// invariants (the budget and archived_once).
func Definition() *model.Definition {
	return &model.Definition{
		Name:     "archiver",
		Fixtures: []model.Fixture{Fixture()},
		Configure: func(system json.RawMessage) (model.Factory, error) {
			fresh, err := parse(system)
			if err != nil {
				return nil, err
			}
			return func() model.System { return Agent{FreshKeys: fresh} }, nil
		},
		Describe: func(system json.RawMessage) (string, error) {
			fresh, err := parse(system)
			if err != nil {
				return "", err
			}
			if fresh {
				return "bug fresh_keys", nil
			}
			return "fixed", nil
		},
		Builtin: []string{model.InvBudget},
		Invariants: []model.UserInvariant{{Name: InvArchivedOnce, Owner: "records", Oracle: "ledger_readback",
			Doc: "the archive holds at most one copy of the document",
			Check: func(v model.View) string {
				if n := len(v.Ledger()); n > 1 {
					return fmt.Sprintf("%d copies of the document archived", n)
				}
				return ""
			}}},
	}
}
