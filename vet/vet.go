// Package vet holds faultline's static analyzers: checks, built on
// golang.org/x/tools/go/analysis, for the fault-handling defects that
// exploration finds at run time, visible in source before a test runs.
//
//   - [RetryKey] (retrykey): a request or idempotency key that varies
//     across the attempts of a retry loop around a consequential call.
//   - [UnknownOutcome] (unknownoutcome): a branch on a consequential call's
//     outcome whose unknown case is missing or settled without a readback,
//     a hold or an idempotent retry.
//   - [WallClock] (wallclock): the wall clock or global randomness reached
//     from a model.System's Run without going through the Env.
//
// [Analyzers] lists them; [Check] runs them over packages and returns a
// [Report] of [Finding]s, each naming the fault kind that shows the same
// defect at run time. A finding is silenced, one at a time, by a
// "//faultline:ignore <reason>" comment on its line or the line above. A
// consequential call retrykey does not know is taught with a
// "//faultline:consequential" directive on its declaration or the
// -retrykey.consequential flag (docs/vet.md).
//
// Run them with "go vet -vettool=$(go env GOPATH)/bin/faultline-vet ./..."
// (cmd/faultline-vet) or with "faultline vet ./...". docs/vet.md describes
// what each analyzer checks, the calls and types it knows, and its
// findings on this repository.
package vet

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// modelPath is the import path of faultline's model package, whose Env,
// ToolCall, Action and ToolResult the analyzers know.
const modelPath = "github.com/faultline/faultline/model"

// Analyzers lists faultline's analyzers in a fixed order: retrykey,
// unknownoutcome, wallclock.
var Analyzers = []*analysis.Analyzer{RetryKey, UnknownOutcome, WallClock}

// faultKinds maps each analyzer's name to the run-time evidence of the
// same defect: the fault kind (or kinds) whose schedule shows it, or, for
// wallclock, the replay check that does.
var faultKinds = map[string]string{
	"retrykey":       "timeout_after_commit, tool_timeout",
	"unknownoutcome": "timeout_after_commit, tool_timeout",
	"wallclock":      "nondeterministic replay (faultline replay --twice)",
}

// resultType is one result type of a consequential call whose outcome
// field unknownoutcome checks for exhaustiveness: the named type Type of
// package Pkg, its field Field of the named type OutcomeType (declared in
// the same package), and the names of that type's constants for the three
// outcomes. Classifiers are the functions whose (first) result is such an
// outcome, computed from what an adapter's client saw: a call of one, or a
// variable every assignment of which is a call of one or a selection of
// Field, is checked as the field is.
type resultType struct {
	Pkg, Type, Field, OutcomeType string
	Committed, Rejected, Unknown  string
	Classifiers                   []callee
}

// Import paths of the adapters whose classifiers unknownoutcome knows.
const (
	mcpFaultPath  = "github.com/faultline/faultline/mcpfault"
	httpFaultPath = "github.com/faultline/faultline/httpfault"
	callFaultPath = "github.com/faultline/faultline/callfault"
	sqlFaultPath  = "github.com/faultline/faultline/sqlfault"
)

// resultTypes are the result types unknownoutcome knows: the Env's
// model.ToolResult, and the adapters' classifiers of their clients'
// answers into a model.Outcome: mcpfault.OutcomeOf (an
// *mcp.CallToolResult and error), httpfault.OutcomeOf (an *http.Response
// and error), callfault.OutcomeOf (a wrapped call's error) and
// sqlfault.OutcomeOf (an effect statement's or a Commit's error). An adapter
// with a typed outcome, or a classifier, adds its entry here.
var resultTypes = []resultType{
	{Pkg: modelPath, Type: "ToolResult", Field: "Outcome", OutcomeType: "Outcome",
		Committed: "OutcomeCommitted", Rejected: "OutcomeRejected", Unknown: "OutcomeUnknown",
		Classifiers: []callee{{mcpFaultPath, "", "OutcomeOf"}, {httpFaultPath, "", "OutcomeOf"}, {callFaultPath, "", "OutcomeOf"}, {sqlFaultPath, "", "OutcomeOf"}}},
}

// keyField is a field of a named type that carries a request's
// idempotency key: retrykey checks what is stored in it inside a retry
// loop.
type keyField struct{ Pkg, Type, Field string }

// keyFields are the key fields retrykey knows: model.ToolCall.RequestKey
// and model.Action.IdempotencyKey.
var keyFields = []keyField{
	{modelPath, "ToolCall", "RequestKey"},
	{modelPath, "Action", "IdempotencyKey"},
}

// keyNames are the names, lower case without '-' and '_', under which a
// client's own request carries its idempotency key: retrykey checks what
// is stored under one in a map literal (mcp.Meta{"idempotencyKey": k},
// the _meta mcpfault and httpfault.JSONRPCKey read) and what a
// net/http.Header's Set or Add gives one ("Idempotency-Key", the header
// httpfault.HeaderKey reads by default).
var keyNames = []string{"idempotencykey"}

// mcpPath is the import path of the MCP SDK's client package.
const mcpPath = "github.com/modelcontextprotocol/go-sdk/mcp"

// callee names a function (Recv empty) or a method of the named type
// Recv (an interface or a concrete type) in package Pkg.
type callee struct{ Pkg, Recv, Name string }

// consequentialCalls are the calls that make an effect: model.ToolClient's
// Commit (env.Tool.Commit), and the clients production code sends a
// request through, whose key keyNames name: the MCP SDK's
// (*mcp.ClientSession).CallTool and net/http's (*http.Client).Do.
// Besides these, any call passed a model.ToolCall is consequential (it
// sends one), and so is a call of a function of the package that makes a
// consequential call.
var consequentialCalls = []callee{
	{modelPath, "ToolClient", "Commit"},
	{mcpPath, "ClientSession", "CallTool"},
	{"net/http", "Client", "Do"},
}

// readbackCalls are the independent readbacks of a provider's ledger that
// resolve an unknown outcome: model.LedgerReader's Readback
// (env.Ledger.Readback). Besides these, a call of any function or method
// whose name contains one of readbackNames is taken for a readback.
var readbackCalls = []callee{
	{modelPath, "LedgerReader", "Readback"},
}

// readbackNames are the words (matched in any case) that name a function
// or method as a readback of the provider's ledger in code that reads it
// through its own client (an HTTP GET, a read tool): "readback",
// "reconcile".
var readbackNames = []string{"readback", "reconcile"}

// isNamed reports whether t (or the type it points to) is the named type
// pkg.name.
func isNamed(t types.Type, pkg, name string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	o := n.Obj()
	return o.Pkg() != nil && o.Pkg().Path() == pkg && o.Name() == name
}

// calleeOf returns the function or method a call statically names, or nil
// (a call of a func value, a conversion, a builtin).
func calleeOf(info *types.Info, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = fn
	case *ast.SelectorExpr:
		id = fn.Sel
	case *ast.IndexExpr: // a generic function's instantiation
		return calleeOf(info, &ast.CallExpr{Fun: fn.X})
	case *ast.IndexListExpr:
		return calleeOf(info, &ast.CallExpr{Fun: fn.X})
	default:
		return nil
	}
	f, _ := info.Uses[id].(*types.Func)
	return f
}

// matches reports whether f is one of the callees in list: a method
// matches an entry naming its receiver's type, and a concrete method
// matches an interface entry when its type implements the interface.
func matches(f *types.Func, list []callee) bool {
	if f == nil || f.Pkg() == nil {
		return false
	}
	sig, _ := f.Type().(*types.Signature)
	for _, c := range list {
		if f.Name() != c.Name {
			continue
		}
		if c.Recv == "" {
			if sig.Recv() == nil && f.Pkg().Path() == c.Pkg {
				return true
			}
			continue
		}
		if sig == nil || sig.Recv() == nil {
			continue
		}
		rt := sig.Recv().Type()
		if isNamed(rt, c.Pkg, c.Recv) {
			return true
		}
		if iface := lookupInterface(f.Pkg(), c); iface != nil {
			if types.Implements(rt, iface) || types.Implements(types.NewPointer(derefType(rt)), iface) {
				return true
			}
		}
	}
	return false
}

// lookupInterface finds the interface c.Pkg.c.Recv among the imports of
// the package declaring a method (or that package itself), or nil.
func lookupInterface(pkg *types.Package, c callee) *types.Interface {
	find := func(p *types.Package) *types.Interface {
		if p.Path() != c.Pkg {
			return nil
		}
		o, ok := p.Scope().Lookup(c.Recv).(*types.TypeName)
		if !ok {
			return nil
		}
		i, _ := o.Type().Underlying().(*types.Interface)
		return i
	}
	if i := find(pkg); i != nil {
		return i
	}
	for _, imp := range pkg.Imports() {
		if i := find(imp); i != nil {
			return i
		}
	}
	return nil
}

func derefType(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// envField reports whether call calls the func-typed field name of a
// model.Env (env.Now(), env.NewRequestID()).
func envField(info *types.Info, call *ast.CallExpr, names ...string) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	v, ok := info.Uses[sel.Sel].(*types.Var)
	if !ok || !v.IsField() {
		return false
	}
	tv, ok := info.Types[sel.X]
	if !ok || !isNamed(tv.Type, modelPath, "Env") {
		return false
	}
	for _, n := range names {
		if v.Name() == n {
			return true
		}
	}
	return false
}

// ignoreDirective is the comment that silences a finding.
const ignoreDirective = "//faultline:ignore"

// ignore is one //faultline:ignore comment.
type ignore struct {
	line   int
	reason string
}

// reporter reports an analyzer's findings, honouring the ignore comments.
type reporter struct {
	pass    *analysis.Pass
	ignores map[*token.File]map[int]ignore // by file, by line
	seen    map[token.Pos]bool
	// sent is retrykey's result, the call each finding's key is sent by
	// (nil for the other analyzers)
	sent sentCalls
}

func newReporter(pass *analysis.Pass) *reporter {
	r := &reporter{pass: pass, ignores: map[*token.File]map[int]ignore{}, seen: map[token.Pos]bool{}}
	for _, f := range pass.Files {
		tf := pass.Fset.File(f.Pos())
		if tf == nil {
			continue
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				rest, ok := strings.CutPrefix(c.Text, ignoreDirective)
				if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
					continue
				}
				if r.ignores[tf] == nil {
					r.ignores[tf] = map[int]ignore{}
				}
				line := tf.Line(c.Pos())
				r.ignores[tf][line] = ignore{line: line, reason: strings.TrimSpace(rest)}
			}
		}
	}
	return r
}

// report reports d unless an ignore comment with a reason sits on its line
// or the line above; a reasonless one is named in the message. A second
// finding at the same position is dropped.
func (r *reporter) report(d analysis.Diagnostic) {
	if r.seen[d.Pos] {
		return
	}
	r.seen[d.Pos] = true
	tf := r.pass.Fset.File(d.Pos)
	if tf != nil {
		line := tf.Line(d.Pos)
		for _, l := range []int{line, line - 1} {
			ig, ok := r.ignores[tf][l]
			if !ok {
				continue
			}
			if ig.reason != "" {
				return
			}
			d.Message += "; the //faultline:ignore on line " + strconv.Itoa(ig.line) + " gives no reason, so it does not silence this finding"
			break
		}
	}
	r.pass.Report(d)
}

// funcBodies maps the functions and methods declared in the package to
// their declarations.
func funcBodies(pass *analysis.Pass) map[*types.Func]*ast.FuncDecl {
	m := map[*types.Func]*ast.FuncDecl{}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
				m[fn] = fd
			}
		}
	}
	return m
}

// funcName names a declared function as the findings do: "name" for a
// function, "(T).name" or "(*T).name" for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return "(" + types.ExprString(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}
