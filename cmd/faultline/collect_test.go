package main

import (
	"runtime/debug"
	"testing"
)

// TestCollectLazily: for an assay the collector runs at a heap of
// assayHeap plus a byte a trial, or at a lower memory limit already set,
// with the GOGC percentage off; restoring gives back both settings.
func TestCollectLazily(t *testing.T) {
	prevPercent := debug.SetGCPercent(150)
	prevLimit := debug.SetMemoryLimit(1 << 40)
	defer func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}()
	restore := collectLazily(200000)
	if got, want := debug.SetMemoryLimit(-1), int64(64<<20+200000); got != want {
		t.Errorf("memory limit %d during the assay, want %d", got, want)
	}
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("GC percent %d during the assay, want off (-1)", p)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("memory limit %d after the assay, want %d", got, int64(1<<40))
	}
	if p := debug.SetGCPercent(150); p != 150 {
		t.Errorf("GC percent %d after the assay, want 150", p)
	}
	// a lower limit set before (GOMEMLIMIT) is kept
	debug.SetMemoryLimit(32 << 20)
	restore = collectLazily(200000)
	if got := debug.SetMemoryLimit(-1); got != 32<<20 {
		t.Errorf("memory limit %d under a limit of 32 MiB, want it kept", got)
	}
	restore()
}
