package coverage_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/coverage"
	"github.com/faultline/faultline/reference/copperfin"
)

// times returns d with every count multiplied by n.
func times(d *coverage.Data, n int) *coverage.Data {
	out := d.Clone()
	out.Runs *= n
	out.NotAdjudicated *= n
	for _, e := range out.Keys {
		e.Visits *= n
		e.NotReached *= n
		e.NotFired *= n
		for i := range e.Counterexamples {
			e.Counterexamples[i].Count *= n
		}
	}
	for i := range out.Unattributed {
		out.Unattributed[i].Count *= n
	}
	for _, r := range out.Systems {
		r.Runs *= n
		r.Traced *= n
		r.Concurrent *= n
	}
	return out
}

// TestMergesBesideRecordersLoseNothing: 8 merges, 4 tracker flushes and 2
// whole-file writes race on one file, through the file and through a link
// to it. Every writer takes the same lock, so the final counts are exact:
// the last WriteFile resets the file to d, and every merge and flush that
// follows it adds d once. Each goroutine's lock is its own flock, so they
// exclude each other inside this one process.
func TestMergesBesideRecordersLoseNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cov.json")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("cov.json", link); err != nil {
		t.Fatal(err)
	}
	d := record(t, auditSchedules(t)...).Data()
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			path := p
			if i%2 == 1 {
				path = link
			}
			var err error
			if i < 8 {
				err = coverage.MergeIntoFile(path, d)
			} else {
				var tr *coverage.Tracker
				if tr, err = coverage.NewTracker(nil, copperfin.Definition()); err == nil {
					tr.Add(d)
					err = tr.FlushTo(path)
				}
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := coverage.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(times(d, 12), got); diff != "" {
		t.Fatalf("after 8 merges and 4 flushes (-want +got):\n%s", diff)
	}
	// a whole-file write takes the lock too: merges around it count from it
	if err := coverage.WriteFile(link, d); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		wg.Go(func() {
			if err := coverage.MergeIntoFile(p, d); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, _ = coverage.ReadFile(p); !cmp.Equal(times(d, 4), got) {
		t.Fatalf("after a write and 3 merges: runs %d, want %d", got.Runs, 4*d.Runs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 || ents[0].Name() != "cov.json" || ents[1].Name() != "cov.json.lock" || ents[2].Name() != "link.json" {
		t.Fatalf("directory holds %v, want the file, its one lock and the link", ents)
	}
}

// TestMergeRefusesOverflow: counts that would pass the largest int are
// refused with the count's name and both addends, and the file is left as
// it was (it would otherwise hold a negative count that Read refuses).
func TestMergeRefusesOverflow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cov.json")
	big := &coverage.Data{Runs: math.MaxInt, Keys: map[coverage.Key]*coverage.Entry{}}
	if err := coverage.WriteFile(p, big); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	err := coverage.MergeIntoFile(p, big)
	want := fmt.Sprintf(`merging into %s: "runs" would overflow: 9223372036854775807 + 9223372036854775807 is beyond the largest count, 9223372036854775807`, p)
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Fatalf("file changed:\n%s", after)
	}
	// a key's visits and a counterexample's count
	d := record(t, auditSchedules(t)...).Data()
	k := mustKey(t, "tool/effect/after_commit/isolated/ledger_readback")
	a := d.Clone()
	a.Keys[k].Visits = math.MaxInt - 1
	if err := coverage.CheckMerge(a, d); err == nil || !strings.HasPrefix(err.Error(), `keys["tool/effect/after_commit/isolated/ledger_readback"]."visits" would overflow: 9223372036854775806 + `) {
		t.Fatalf("visits: %v", err)
	}
	a = d.Clone()
	cx := a.Keys[k].Counterexamples
	if len(cx) == 0 {
		t.Fatal("the audit key has no counterexample")
	}
	cx[0].Count = math.MaxInt
	if err := coverage.CheckMerge(a, d); err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf(`keys["tool/effect/after_commit/isolated/ledger_readback"].counterexamples[%q]."count" would overflow: 9223372036854775807 + `, cx[0].Invariant)) {
		t.Fatalf("counterexample count: %v", err)
	}
	if err := coverage.CheckMerge(d, d); err != nil {
		t.Fatalf("ordinary merge refused: %v", err)
	}
}

// TestMergeErrorsNameTheFile: a merge that cannot lock or write names the
// user's file, never a temporary or lock file.
func TestMergeErrorsNameTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing", "cov.json")
	d := record(t, at(t, "timeout_after_commit", 5, copperfin.ProfileTyped)).Data()
	for name, err := range map[string]error{"merge": coverage.MergeIntoFile(p, d), "write": coverage.WriteFile(p, d)} {
		if err == nil || err.Error() != "locking "+p+": no such file or directory" {
			t.Errorf("%s: %v", name, err)
		}
	}
}
