package vet

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Finding is one analyzer finding, as "faultline vet --json" prints it.
type Finding struct {
	// Analyzer is "retrykey", "unknownoutcome" or "wallclock".
	Analyzer string `json:"analyzer"`
	// File is the file's path relative to the directory the check ran in
	// (slash-separated), or absolute when the file lies outside it.
	File string `json:"file"`
	// Line and Column are 1-based; Column counts bytes.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Function names the declared function the finding is in: "name",
	// "(T).name" or "(*T).name"; empty outside any function.
	Function string `json:"function,omitempty"`
	Message  string `json:"message"`
	// FaultKind is the run-time evidence of the same defect: the fault
	// kinds whose schedule shows it, or the replay check (docs/vet.md).
	FaultKind string `json:"fault_kind"`
	// Call is, for a retrykey finding, the consequential call the varying
	// key is sent by; the zero value (left out of the JSON) otherwise.
	Call CallSite `json:"call,omitzero"`
}

// CallSite is the consequential call a finding is about, and what links it
// to a run: File, Line and Column as in Finding; Callee the call's
// function as the source spells it ("env.Tool.Commit"); Tool the tool it
// calls (model.ToolCall.Tool, the timeline event's Tool and a fault
// entry's "tool") when the source fixes it: a string constant, or a
// variable a guard compares with one (if tool == ToolConfirm), "" when it
// cannot be told; Event the harness event the call crosses at run time
// ("tool.commit"), where a counterexample's fault sits.
type CallSite struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Callee string `json:"callee"`
	Tool   string `json:"tool,omitempty"`
	Event  string `json:"event"`
}

// Report is the result of a check: the version of this format (1), the
// number of packages analysed (a package's test files count with it) and
// the findings, ordered by file, line, column and analyzer.
type Report struct {
	Version  int       `json:"version"`
	Packages int       `json:"packages"`
	Findings []Finding `json:"findings"`
}

// InputError is bad input to Check: patterns that match no package, or a
// package that does not load or type-check.
type InputError struct{ Err error }

// Error is the wrapped error's message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *InputError) Unwrap() error { return e.Err }

// ErrNoPackages is wrapped by the InputError of patterns that match no
// package.
var ErrNoPackages = errors.New("no package matched")

// Options configures Check.
type Options struct {
	// Dir is the directory the patterns are resolved in ("" for the
	// current one); File paths are relative to it.
	Dir string
	// Tests includes the packages' test files, as go vet does.
	Tests bool
	// Analyzers to run; nil runs Analyzers.
	Analyzers []*analysis.Analyzer
}

// Check loads the packages patterns name (go list patterns: "./...") and
// runs the analyzers over them. It returns an *InputError for patterns
// that match no package, code that does not load or type-check, or a
// call -retrykey.consequential names that matches no function or method
// of the packages or their imports (it would teach nothing), and
// another error when the go command or an analyzer failed.
func Check(patterns []string, opts Options) (Report, error) {
	if len(patterns) == 0 {
		return Report{}, &InputError{errors.New("no package pattern given (try ./...)")}
	}
	as := opts.Analyzers
	if as == nil {
		as = Analyzers
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return Report{}, err
	}
	cfg := &packages.Config{Mode: packages.LoadSyntax, Dir: dir, Tests: opts.Tests}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return Report{}, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	if len(pkgs) == 0 {
		return Report{}, &InputError{fmt.Errorf("%w: %s", ErrNoPackages, strings.Join(patterns, " "))}
	}
	var problems []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if e.Pos == "" {
				problems = append(problems, e.Msg) // no position: Error would print "-: MSG"
			} else {
				problems = append(problems, e.Error())
			}
		}
	})
	if len(problems) > 0 {
		sort.Strings(problems)
		if len(problems) > 5 {
			problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
		}
		return Report{}, &InputError{fmt.Errorf("the packages do not load: %s", strings.Join(problems, "; "))}
	}
	for _, a := range as {
		if a == RetryKey {
			if err := unmatchedTaught(pkgs); err != nil {
				return Report{}, &InputError{err}
			}
		}
	}
	g, err := checker.Analyze(as, pkgs, nil)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Version: 1, Findings: []Finding{}}
	seen := map[Finding]bool{}
	counted := map[string]bool{}
	var failed []string
	for _, act := range g.Roots {
		if act.Err != nil {
			failed = append(failed, fmt.Sprintf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err))
			continue
		}
		if !strings.HasSuffix(act.Package.ID, ".test") { // not a generated test main
			counted[strings.TrimSuffix(act.Package.PkgPath, "_test")] = true
		}
		for _, d := range act.Diagnostics {
			f := finding(act, d, dir)
			if !seen[f] {
				seen[f] = true
				rep.Findings = append(rep.Findings, f)
			}
		}
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return Report{}, fmt.Errorf("analysis failed: %s", strings.Join(failed, "; "))
	}
	rep.Packages = len(counted)
	sort.Slice(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Analyzer < b.Analyzer
	})
	return rep, nil
}

func finding(act *checker.Action, d analysis.Diagnostic, dir string) Finding {
	fset := act.Package.Fset
	rel := func(file string) string {
		if r, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return file
	}
	pos := fset.Position(d.Pos)
	f := Finding{Analyzer: act.Analyzer.Name, File: rel(pos.Filename), Line: pos.Line, Column: pos.Column,
		Function: enclosing(act.Package.Syntax, d.Pos), Message: d.Message, FaultKind: faultKinds[act.Analyzer.Name]}
	if sent, ok := act.Result.(sentCalls); ok {
		if sc, ok := sent[d.Pos]; ok {
			cp := fset.Position(sc.pos)
			f.Call = CallSite{File: rel(cp.Filename), Line: cp.Line, Column: cp.Column, Callee: sc.callee, Tool: sc.tool, Event: sc.event}
		}
	}
	return f
}

// enclosing names the declared function holding pos, or "".
func enclosing(files []*ast.File, pos token.Pos) string {
	for _, f := range files {
		if pos < f.FileStart || pos > f.FileEnd {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Pos() <= pos && pos < fd.End() {
				return funcName(fd)
			}
		}
	}
	return ""
}
