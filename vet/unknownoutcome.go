package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// UnknownOutcome reports a branch on a consequential call's outcome with
// no sound path for the unknown outcome.
var UnknownOutcome = &analysis.Analyzer{
	Name: "unknownoutcome",
	Doc: `report a branch on a tool's outcome that does not resolve "unknown"

A consequential call has three outcomes: committed, rejected and unknown
(a timeout, a lost reply, an undecodable body). Unknown never means "did
not happen": it is resolved by an independent readback of the provider's
ledger, or the task holds for reconciliation. unknownoutcome is an
exhaustiveness check over the three outcomes of the result types it knows
(model.ToolResult's Outcome: model.OutcomeCommitted, model.OutcomeRejected,
model.OutcomeUnknown). The outcome is the field (res.Outcome), a call of an
adapter's classifier of what its client saw (mcpfault.OutcomeOf,
httpfault.OutcomeOf, callfault.OutcomeOf, sqlfault.OutcomeOf), or a
variable every assignment of which is one of those. It looks at

  - a switch on the outcome;
  - a tagless switch, or an if/else-if chain, whose every condition
    compares the outcome with == or != (joined by ||); a lone if
    with no else is a branch on the outcome only when its condition takes
    the unknown outcome along with another (res.Outcome != committed),
    and a condition that tests anything else (&&, a call) puts the chain
    out of scope.

The model package itself (the harness, whose simulated provider is the
ground truth) is not checked.

It reports the branch when the unknown outcome

  - has no case and no default: it falls out of the branch as if settled;
  - shares its case with model.OutcomeRejected (or Committed), or falls to
    the default case, or has a case of its own,

and that case neither reads the provider's ledger back (a call of
model.LedgerReader's Readback, env.Ledger.Readback, or of a function,
method or func value whose name contains "readback" or "reconcile" in any
case, directly or through functions of the same package), nor holds (a use of model.ClaimHold,
likewise), nor retries idempotently (continues a loop whose every key
stays the same across attempts, as retrykey sees it): such a case retries
blind or treats the outcome as a failure (or a success). No fix is suggested: what resolves the outcome depends on
the provider.

At run time a timeout_after_commit schedule (the effect committed, the
reply lost) or a tool_timeout schedule shows the same defect.`,
	Run: runUnknownOutcome,
}

// outcomeSet is a set of the three outcomes.
type outcomeSet uint8

const (
	ocCommitted outcomeSet = 1 << iota
	ocRejected
	ocUnknown
	ocAll = ocCommitted | ocRejected | ocUnknown
)

// branch is one arm of a branch on an outcome.
type branch struct {
	set  outcomeSet
	body []ast.Stmt
	pos  token.Pos
	dflt bool
}

type outcomeChecker struct {
	pass    *analysis.Pass
	m       *minter
	loop    ast.Stmt // the innermost loop around the branch being checked, or nil
	r       *reporter
	bodies  map[*types.Func]*ast.FuncDecl
	resolve map[*ast.FuncDecl]bool // memo of funcResolves; false while in progress
	vars    outcomeVars
}

func runUnknownOutcome(pass *analysis.Pass) (any, error) {
	if pass.Pkg.Path() == modelPath {
		return nil, nil
	}
	bodies := funcBodies(pass)
	c := &outcomeChecker{pass: pass, r: newReporter(pass), bodies: bodies, resolve: map[*ast.FuncDecl]bool{},
		m: &minter{pass: pass, bodies: bodies, memo: map[*ast.FuncDecl]string{}}, vars: assignments(pass)}
	elses := map[*ast.IfStmt]bool{}
	for _, f := range pass.Files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			c.loop = nil
			for i := len(stack) - 1; i >= 0 && c.loop == nil; i-- {
				switch l := stack[i].(type) {
				case *ast.ForStmt, *ast.RangeStmt:
					c.loop = l.(ast.Stmt)
				case *ast.FuncLit, *ast.FuncDecl:
					i = -1
				}
			}
			stack = append(stack, n)
			switch n := n.(type) {
			case *ast.SwitchStmt:
				c.switchStmt(n)
			case *ast.IfStmt:
				if e, ok := n.Else.(*ast.IfStmt); ok {
					elses[e] = true
				}
				if !elses[n] {
					c.ifChain(n)
				}
			}
			return true
		})
	}
	return nil, nil
}

// resultOf returns the result-type entry whose outcome e is: a selection
// of its outcome field, a call of one of its classifiers, or a variable
// every assignment of which is one of those.
func (c *outcomeChecker) resultOf(e ast.Expr) (resultType, bool) {
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		v, ok := c.pass.TypesInfo.Uses[id].(*types.Var)
		if !ok || c.vars.poisoned[v] || len(c.vars.values[v]) == 0 {
			return resultType{}, false
		}
		var rt resultType
		for i, x := range c.vars.values[v] {
			r, ok := c.directResultOf(x)
			if !ok || i > 0 && r.Pkg+"."+r.Type != rt.Pkg+"."+rt.Type {
				return resultType{}, false
			}
			rt = r
		}
		return rt, true
	}
	return c.directResultOf(e)
}

// directResultOf is resultOf of a selection of an outcome field or a call
// of a classifier.
func (c *outcomeChecker) directResultOf(e ast.Expr) (resultType, bool) {
	info := c.pass.TypesInfo
	t := info.TypeOf(e)
	if t == nil {
		return resultType{}, false
	}
	for _, rt := range resultTypes {
		if !isNamed(t, rt.Pkg, rt.OutcomeType) {
			continue
		}
		switch e := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			if xt := info.TypeOf(e.X); xt != nil && e.Sel.Name == rt.Field && isNamed(xt, rt.Pkg, rt.Type) {
				return rt, true
			}
		case *ast.CallExpr:
			if matches(calleeOf(info, e), rt.Classifiers) {
				return rt, true
			}
		}
	}
	return resultType{}, false
}

// outcomeVars is what the package stores in its variables: the values given
// to each (by =, := or a var declaration with values), and the variables
// stored in any other way (a tuple assignment, an op-assignment, ++, a
// range, an address taken), which resultOf leaves alone.
type outcomeVars struct {
	values   map[*types.Var][]ast.Expr
	poisoned map[*types.Var]bool
}

func assignments(pass *analysis.Pass) outcomeVars {
	a := outcomeVars{values: map[*types.Var][]ast.Expr{}, poisoned: map[*types.Var]bool{}}
	info := pass.TypesInfo
	varOf := func(e ast.Expr) *types.Var {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		o := info.Defs[id]
		if o == nil {
			o = info.Uses[id]
		}
		v, _ := o.(*types.Var)
		return v
	}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					v := varOf(l)
					if v == nil {
						continue
					}
					if (n.Tok == token.ASSIGN || n.Tok == token.DEFINE) && len(n.Lhs) == len(n.Rhs) {
						a.values[v] = append(a.values[v], n.Rhs[i])
					} else {
						a.poisoned[v] = true
					}
				}
			case *ast.ValueSpec:
				for i, name := range n.Names {
					v := varOf(name)
					switch {
					case v == nil || len(n.Values) == 0:
					case len(n.Values) == len(n.Names):
						a.values[v] = append(a.values[v], n.Values[i])
					default:
						a.poisoned[v] = true
					}
				}
			case *ast.IncDecStmt:
				if v := varOf(n.X); v != nil {
					a.poisoned[v] = true
				}
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if v := varOf(e); v != nil {
						a.poisoned[v] = true
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					if v := varOf(n.X); v != nil {
						a.poisoned[v] = true
					}
				}
			}
			return true
		})
	}
	return a
}

// constOf returns the outcome a constant expression names, or 0.
func (c *outcomeChecker) constOf(rt resultType, e ast.Expr) outcomeSet {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return 0
	}
	k, ok := c.pass.TypesInfo.Uses[id].(*types.Const)
	if !ok || k.Pkg() == nil || k.Pkg().Path() != rt.Pkg {
		return 0
	}
	switch k.Name() {
	case rt.Committed:
		return ocCommitted
	case rt.Rejected:
		return ocRejected
	case rt.Unknown:
		return ocUnknown
	}
	return 0
}

// cond returns the outcomes a condition selects, with the outcome
// expression it tests; ok is false for a condition that tests anything
// else.
func (c *outcomeChecker) cond(e ast.Expr) (set outcomeSet, subject string, rt resultType, ok bool) {
	b, isBin := ast.Unparen(e).(*ast.BinaryExpr)
	if !isBin {
		return 0, "", rt, false
	}
	switch b.Op {
	case token.LOR:
		s1, x1, rt1, ok1 := c.cond(b.X)
		s2, x2, _, ok2 := c.cond(b.Y)
		if !ok1 || !ok2 || x1 != x2 {
			return 0, "", rt, false
		}
		return s1 | s2, x1, rt1, true
	case token.EQL, token.NEQ:
		x, k := b.X, b.Y
		rt, isRes := c.resultOf(x)
		if !isRes {
			x, k = b.Y, b.X
			if rt, isRes = c.resultOf(x); !isRes {
				return 0, "", rt, false
			}
		}
		v := c.constOf(rt, k)
		if v == 0 {
			return 0, "", rt, false
		}
		if b.Op == token.NEQ {
			v = ocAll &^ v
		}
		return v, types.ExprString(x), rt, true
	}
	return 0, "", rt, false
}

func (c *outcomeChecker) switchStmt(s *ast.SwitchStmt) {
	var branches []branch
	var subject string
	var rt resultType
	if s.Tag != nil {
		var ok bool
		if rt, ok = c.resultOf(s.Tag); !ok {
			return
		}
		subject = types.ExprString(s.Tag)
		for _, st := range s.Body.List {
			cc := st.(*ast.CaseClause)
			b := branch{body: cc.Body, pos: cc.Pos(), dflt: cc.List == nil}
			for _, e := range cc.List {
				v := c.constOf(rt, e)
				if v == 0 {
					return // a case that is not one of the three constants
				}
				b.set |= v
			}
			branches = append(branches, b)
		}
	} else {
		for _, st := range s.Body.List {
			cc := st.(*ast.CaseClause)
			b := branch{body: cc.Body, pos: cc.Pos(), dflt: cc.List == nil}
			for _, e := range cc.List {
				v, x, r, ok := c.cond(e)
				if !ok || (subject != "" && x != subject) {
					return
				}
				subject, rt = x, r
				b.set |= v
			}
			branches = append(branches, b)
		}
		if subject == "" {
			return
		}
	}
	c.check(s.Pos(), "switch on "+subject, rt, branches)
}

func (c *outcomeChecker) ifChain(s *ast.IfStmt) {
	var branches []branch
	var subject string
	var rt resultType
	for cur := s; cur != nil; {
		if cur.Init != nil && len(branches) > 0 {
			return
		}
		v, x, r, ok := c.cond(cur.Cond)
		if !ok || (subject != "" && x != subject) {
			return
		}
		subject, rt = x, r
		branches = append(branches, branch{set: v, body: cur.Body.List, pos: cur.Pos()})
		switch e := cur.Else.(type) {
		case *ast.IfStmt:
			cur = e
		case *ast.BlockStmt:
			branches = append(branches, branch{body: e.List, pos: e.Pos(), dflt: true})
			cur = nil
		default:
			cur = nil
		}
	}
	// one arm and no else: a branch on the outcome only when the arm
	// takes the unknown outcome along with another (x != committed)
	if len(branches) == 1 && (branches[0].set&ocUnknown == 0 || branches[0].set == ocUnknown) {
		return
	}
	c.check(s.Pos(), "if/else chain on "+subject, rt, branches)
}

// check reports the branch unless the unknown outcome has a path that
// reads back or holds.
func (c *outcomeChecker) check(pos token.Pos, what string, rt resultType, branches []branch) {
	q := rt.Pkg[lastSlash(rt.Pkg)+1:] + "."
	unknown := q + rt.Unknown
	var h *branch
	seen := outcomeSet(0)
	for i := range branches {
		b := &branches[i]
		if b.dflt {
			continue
		}
		if b.set&ocUnknown != 0 && h == nil {
			h = b
		}
		seen |= b.set
	}
	if h == nil {
		for i := range branches {
			if branches[i].dflt {
				h = &branches[i]
				h.set = ocAll &^ seen
			}
		}
	}
	if h == nil {
		c.r.report(analysis.Diagnostic{Pos: pos, Message: fmt.Sprintf(
			"%s has no path for %s: an unknown outcome (a timeout, a lost reply) falls out of it as if settled; add a case that reads the provider's ledger back (env.Ledger.Readback) or holds for reconciliation",
			what, unknown)})
		return
	}
	if c.resolves(h.body) {
		return
	}
	if c.loop != nil && hasContinue(h.body) && stableKeys(c.pass, c.m, c.loop) {
		return // an idempotent retry: every attempt carries the same key
	}
	var how string
	switch {
	case h.dflt:
		how = "falls to the default case"
	case h.set&ocRejected != 0:
		how = "shares its case with " + q + rt.Rejected + ", as if it had not happened,"
	case h.set&ocCommitted != 0:
		how = "shares its case with " + q + rt.Committed + ", as if it had happened,"
	default:
		how = "has a case"
	}
	c.r.report(analysis.Diagnostic{Pos: h.pos, Message: fmt.Sprintf(
		"in this %s, %s %s that neither reads the provider's ledger back nor holds: it retries blind or settles the outcome unseen; resolve it by a readback (env.Ledger.Readback) or hold for reconciliation",
		what, unknown, how)})
}

// hasContinue reports whether stmts continue the loop around them (a
// continue not inside a loop of their own).
func hasContinue(stmts []ast.Stmt) bool {
	found := false
	for _, st := range stmts {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				if n.Tok == token.CONTINUE {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// resolves reports whether stmts read back or hold, directly or through
// the package's own functions.
func (c *outcomeChecker) resolves(stmts []ast.Stmt) bool {
	for _, st := range stmts {
		if c.nodeResolves(st) {
			return true
		}
	}
	return false
}

func (c *outcomeChecker) nodeResolves(n ast.Node) bool {
	info := c.pass.TypesInfo
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if found {
			return false
		}
		switch m := m.(type) {
		case *ast.CallExpr:
			if matches(calleeOf(info, m), readbackCalls) || readbackName(calledName(m)) {
				found = true
			}
		case *ast.Ident:
			switch o := info.Uses[m].(type) {
			case *types.Const:
				if o.Pkg() != nil && o.Pkg().Path() == modelPath && o.Name() == "ClaimHold" {
					found = true
				}
			case *types.Func:
				if fd, ok := c.bodies[o.Origin()]; ok && c.funcResolves(fd) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func (c *outcomeChecker) funcResolves(fd *ast.FuncDecl) bool {
	if v, ok := c.resolve[fd]; ok {
		return v
	}
	c.resolve[fd] = false // a recursive call resolves nothing by itself
	v := c.nodeResolves(fd.Body)
	c.resolve[fd] = v
	return v
}

// calledName is the name a call spells its callee with: a function's,
// a method's, a func value's or a func-typed field's ("" for another
// expression).
func calledName(call *ast.CallExpr) string {
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		return fn.Sel.Name
	case *ast.IndexExpr:
		return calledName(&ast.CallExpr{Fun: fn.X})
	case *ast.IndexListExpr:
		return calledName(&ast.CallExpr{Fun: fn.X})
	}
	return ""
}

// readbackName reports whether a callee's name contains one of
// readbackNames, in any case.
func readbackName(name string) bool {
	if name == "" {
		return false
	}
	l := strings.ToLower(name)
	for _, w := range readbackNames {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
