package vet_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
)

// sharedRun is one analysistest.Run of an analyzer over several packages
// of the test data: the packages and their dependencies (the standard
// library's net/http among them) are loaded and type-checked once for
// the tests that each look at one of them.
type sharedRun struct {
	analyzer *analysis.Analyzer
	patterns []string

	once    sync.Once
	results []*analysistest.Result
	errs    []string // what analysistest reported: missing or unexpected diagnostics
}

func (r *sharedRun) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// result runs the analysis once and returns pkg's result; the mismatches
// analysistest found in pkg's files (or in no package's) are reported on t.
func (r *sharedRun) result(t *testing.T, pkg string) *analysistest.Result {
	t.Helper()
	for _, e := range r.unmet(pkg) {
		t.Error(e)
	}
	for _, res := range r.results {
		if res.Pass.Pkg.Path() == pkg {
			return res
		}
	}
	t.Fatalf("no result for %s among %v", pkg, r.patterns)
	return nil
}

// unmet runs the analysis once and returns the mismatches analysistest
// found in pkg's files or in no package's.
func (r *sharedRun) unmet(pkg string) []string {
	r.once.Do(func() { r.results = analysistest.Run(r, analysistest.TestData(), r.analyzer, r.patterns...) })
	var out []string
	for _, e := range r.errs {
		owner := ""
		for _, p := range r.patterns {
			if strings.HasPrefix(e, p+"/") || strings.Contains(e, "/"+p+"/") || strings.Contains(e, " "+p+"/") {
				owner = p
			}
		}
		if owner == "" || owner == pkg {
			out = append(out, e)
		}
	}
	return out
}
