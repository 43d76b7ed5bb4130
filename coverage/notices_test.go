package coverage_test

import (
	"testing"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/model"
	"github.com/faultline/faultline/reference/copperfin"
)

// TestNoticeUniverse: the kinds of the provider's notices add two
// reachable keys to the default universe's 40 (the catalogue's 38 and the
// two of the kinds outside it; the universe's size is the same
// 12,375), and the default universe skips them as it skips world events:
// a run of a notice kind records no visit there and no error, and one
// visit of its key in NoticeUniverse.
func TestNoticeUniverse(t *testing.T) {
	u := coverage.NoticeUniverse()
	if u.Size() != 12375 || len(u.Reachable()) != 42 || len(coverage.Default().Reachable()) != 40 {
		t.Fatalf("size %d, reachable %d (default %d)", u.Size(), len(u.Reachable()), len(coverage.Default().Reachable()))
	}
	want := map[string]string{
		"late_notice":        "tool/effect/after_checkpoint/isolated/ledger_readback",
		"reordered_notice":   "tool/effect/after_receipt/isolated/ledger_readback",
		"redelivered_notice": "tool/effect/after_receipt/isolated/ledger_readback",
		"lost_notice":        "tool/effect/after_receipt/isolated/ledger_readback",
	}
	for kind, key := range want {
		if k, ok := u.KindKey(kind); !ok || k.String() != key || coverage.Default().IsReachable(k) {
			t.Errorf("%s: key %v %v", kind, k, ok)
		}
	}
	s, err := model.SingleFault("lost_notice", copperfin.ConfigOfProfile(copperfin.ProfileTyped))
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.NewHarness(copperfin.Copperfin(), model.Options{}).Run(copperfin.Factory(0), s)
	if err != nil {
		t.Fatal(err)
	}
	def, notices := newTracker(t, nil), newTracker(t, u)
	if err := def.Record(res); err != nil {
		t.Fatal(err)
	}
	if err := notices.Record(res); err != nil {
		t.Fatal(err)
	}
	k, _ := u.KindKey("lost_notice")
	if d := def.Data(); d.Runs != 1 || len(d.Keys) != 0 {
		t.Errorf("default: runs %d, keys %d", d.Runs, len(d.Keys))
	}
	if d := notices.Data(); d.Runs != 1 || len(d.Keys) != 1 || d.Keys[k] == nil {
		t.Errorf("notices: runs %d, keys %v", d.Runs, d.Keys)
	}
}
