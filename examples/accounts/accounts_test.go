package accounts_test

import (
	"testing"

	"github.com/faultline/faultline/examples/accounts"
	"github.com/faultline/faultline/model"
)

var opts = model.Options{Builtin: []string{model.InvRightSubject, model.InvCurrentEntitlement, model.InvEffectAtMostOnce},
	Invariants: []model.UserInvariant{accounts.TenantOfRecord}}

func run(t *testing.T, c accounts.Closer, s *model.Schedule) *model.Result {
	t.Helper()
	res, err := model.NewHarness(accounts.Fixture(), opts).Run(func() model.System { return c }, s)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func violated(res *model.Result) []string {
	var out []string
	for _, inv := range res.Invariants {
		if !inv.Held {
			out = append(out, inv.Invariant+"@"+string(inv.Event))
		}
	}
	return out
}

// TestRevokedGrantKeptAliveByTheCache: northwind's grant is revoked after
// its approval while the check is answered by a sliding cache filled at
// the approval; the closer that acts on the answer closes U-17 under a
// revoked grant (current_entitlement); with MaxGrantAge the answer, 20 ms
// old, is re-validated at the issuer and the close is denied. The second
// task's grant is another: the cache serves it nothing.
func TestRevokedGrantKeptAliveByTheCache(t *testing.T) {
	s, err := model.SingleFault("sliding_grant_cache", model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, accounts.Closer{PerTask: true}, s)
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 {
		t.Fatalf("fault %+v", f)
	}
	if got := violated(res); len(got) != 1 || got[0] != "current_entitlement@tool.commit" {
		t.Errorf("undefended: violated %v", got)
	}
	if res.Tasks[0].Claim != model.ClaimUnsafe || res.Tasks[1].Claim != model.ClaimRelease {
		t.Errorf("undefended: tasks %+v", res.Tasks)
	}
	res = run(t, accounts.Closer{PerTask: true, MaxGrantAge: 5}, s)
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 || !f.Detected || !res.Held() || res.Terms.Effects != 1 {
		t.Errorf("bounded: %+v %v effects %d", res.Faults, violated(res), res.Terms.Effects)
	}
	if res.Tasks[0].Claim != model.ClaimDeny || res.Tasks[1].Claim != model.ClaimRelease {
		t.Errorf("bounded: tasks %+v", res.Tasks)
	}
}

// TestAdminLeakedAcrossTenants: one worker closes northwind's account and
// then contoso's; it captured northwind's admin when it started and hands
// it to the contoso task: the closer that reads its principal from the
// ambient context closes U-90 as admin-nw of northwind (right_subject and
// the example's tenant_of_record); PerTask re-derives the admin per task
// and holds. With two workers each runs one task and nothing leaks.
func TestAdminLeakedAcrossTenants(t *testing.T) {
	s, err := model.SingleFault("ambient_identity_leak", model.Config{Concurrency: &model.Concurrency{Workers: 1}})
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, accounts.Closer{}, s)
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 {
		t.Fatalf("fault %+v", f)
	}
	got := violated(res)
	if len(got) != 2 || got[0] != "right_subject@tool.commit" || got[1] != "tenant_of_record@tool.commit" {
		t.Errorf("undefended: violated %v", got)
	}
	if r, _ := res.Invariant("tenant_of_record"); r.Detail != "U-90 of contoso closed in tenant northwind by admin-nw" {
		t.Errorf("tenant_of_record: %+v", r)
	}
	res = run(t, accounts.Closer{PerTask: true}, s)
	if f := res.Faults[0]; !f.Reached || f.Fired != 1 || !res.Held() || res.Terms.Effects != 2 {
		t.Errorf("per task: %+v %v effects %d", res.Faults, violated(res), res.Terms.Effects)
	}
	s.Config.Concurrency.Workers = 2
	if f := run(t, accounts.Closer{}, s).Faults[0]; !f.Reached || f.Fired != 0 {
		t.Errorf("two workers: %+v", f)
	}
}
