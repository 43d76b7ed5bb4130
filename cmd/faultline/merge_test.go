package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/faultline/faultline/coverage"
)

// TestCoverageMergeConcurrent: 8 "coverage merge OUT OUT A" commands and a
// recorder's flush race on OUT. Each reads OUT under the lock every writer
// takes, so none loses another's update: OUT ends at exactly ten times A
// (the copy it started as, 8 merges, 1 flush).
func TestCoverageMergeConcurrent(t *testing.T) {
	a := auditFile(t)
	da := readCov(t, a)
	out := filepath.Join(t.TempDir(), "merged.json")
	if err := coverage.WriteFile(out, da); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if code, _, stderr := runCLI(t, "coverage", "merge", out, out, a); code != 0 {
				t.Errorf("merge: exit %d %s", code, stderr)
			}
		})
	}
	wg.Go(func() {
		tr := newTracker(nil)
		tr.Add(da)
		if err := tr.FlushTo(out); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	want := da
	for range 9 {
		want = coverage.Merge(want, da)
	}
	if diff := cmp.Diff(want, readCov(t, out)); diff != "" {
		t.Fatalf("OUT after 8 merges and a flush (-want +got):\n%s", diff)
	}
}

// TestCoverageMergeRefusesOverflow: counts that would wrap are bad input,
// named, and OUT is not written.
func TestCoverageMergeRefusesOverflow(t *testing.T) {
	big := writeFile(t, `{"version": 1, "runs": 9223372036854775807, "not_adjudicated": 0, "keys": {}}`)
	out := filepath.Join(t.TempDir(), "merged.json")
	code, _, stderr := runCLI(t, "coverage", "merge", out, big, big)
	if code != 2 || !strings.Contains(stderr, "merging "+big+`: "runs" would overflow: 9223372036854775807 + 9223372036854775807 is beyond the largest count`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("OUT written after a refused merge: %v", err)
	}
}
