package vet

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/faultline/faultline/model"
)

// RetryKey reports a request or idempotency key that varies across the
// attempts of a retry loop around a consequential call.
var RetryKey = &analysis.Analyzer{
	Name: "retrykey",
	Doc: `report an idempotency key that changes on every retry

A retry is safe only if the provider can recognise it as the same request:
every attempt must carry the key of the logical action. retrykey looks at
retry scopes that make a consequential call (model.ToolClient's Commit, as
env.Tool.Commit, (*mcp.ClientSession).CallTool, (*http.Client).Do, a Do
method of another type named *Client*, any call passed a model.ToolCall or
a variable a key setter was called on, a call taught by the
//faultline:consequential directive or the -consequential flag, or a call
of a function of the same package that makes one):

  - a for loop (three-clause, condition-only or infinite) or a range over
    an integer; a range over a collection, or a for loop bounded by a
    collection's length (i < len(items)), is not a retry scope (each
    element is its own logical action);
  - a func literal passed to a function or method whose name contains
    "retry" (any case): the helper calls it once per attempt.

In such a scope it reports each value stored in a key field
(model.ToolCall.RequestKey, model.Action.IdempotencyKey), in a map
literal's entry named idempotencyKey (any case, with or without - or _:
an mcp.Meta, a JSON-RPC _meta), in a net/http.Header's Set or Add of such
a name (Idempotency-Key), given to a key setter (SetIdempotencyKey,
WithIdempotencyKey), or passed to a function of the same package
whose parameter reaches one of these, directly or through local variables
assigned in the scope, that

  - is minted inside the scope: env.NewRequestID(), env.Now(), env.Rand()
    (replayable, but fresh on each attempt all the same), time.Now,
    time.Since, time.Until, math/rand, math/rand/v2, crypto/rand, or a
    github.com/google/uuid constructor, or a call of a function of the
    same package that makes one of these calls (transitively); or
  - is built from the attempt counter: a for loop's variable, a range's
    integer, a variable or field incremented or otherwise stepped in the
    scope (x++, x += n, x = x + n), or a parameter of the retry callback
    (fmt.Sprintf, strconv, concatenation or any expression that uses it;
    indexing a collection by the counter does not count).

A key computed before the loop, or inside it only from values that do not
change across attempts (the action's IdempotencyKey, the task's ID), is not
reported. The finding sits on the expression that varies. When that is a
fresh id minted by a top-level statement of the loop's body (or written
straight into the key field) from values declared outside the loop, the
suggested fix hoists it before the loop.

At run time a timeout_after_commit schedule shows the same defect: the
retry after the lost reply commits a second effect; where the system reads
the ledger back before it retries, a tool_timeout (the request held by the
provider and committed late) shows it.`,
	Run:        runRetryKey,
	ResultType: reflect.TypeOf(sentCalls(nil)),
}

// sendCall is the consequential call that sends a varying key: its
// position, the callee as spelled ("env.Tool.Commit"), the tool it calls
// (ToolCall.Tool, when the source fixes it; "" otherwise) and the harness
// event the call crosses at run time.
type sendCall struct {
	pos                 token.Pos
	callee, tool, event string
}

// sentCalls is retrykey's result: the call each finding's key is sent by,
// by the finding's position.
type sentCalls map[token.Pos]sendCall

// origin is where a key's variation comes from.
type origin struct {
	pos  token.Pos
	what string // "env.NewRequestID() mints a fresh id", "it is built from the attempt counter attempt"
	mint *ast.CallExpr
	// stmt is the statement that holds the origin when it is a mint
	// assigned by a top-level statement of a loop's body (a hoisting
	// candidate).
	stmt ast.Stmt
}

// path is a variable or a chain of fields off one: f.a.IdempotencyKey.
type path struct {
	root  *types.Var
	chain string // ".a.IdempotencyKey", "" for the variable itself
}

// overlaps reports whether p and q name the same storage or one contains
// the other.
func (p path) overlaps(q path) bool {
	if p.root != q.root {
		return false
	}
	a, b := p.chain+".", q.chain+"."
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// retryScope is one loop body or retry callback.
type retryScope struct {
	node    ast.Node // *ast.ForStmt, *ast.RangeStmt or *ast.FuncLit
	body    *ast.BlockStmt
	post    ast.Stmt
	counter []path // varying by construction: loop variables, callback parameters
	loop    ast.Stmt
	// insert is where a hoisted statement goes: before the loop, or
	// before its label
	insert token.Pos
}

func runRetryKey(pass *analysis.Pass) (any, error) {
	exportTaught(pass)
	r := newReporter(pass)
	r.sent = sentCalls{}
	m := &minter{pass: pass, bodies: funcBodies(pass), memo: map[*ast.FuncDecl]string{}}
	labels := map[ast.Stmt]token.Pos{}
	at := func(loop ast.Stmt) token.Pos {
		if p, ok := labels[loop]; ok {
			return p
		}
		return loop.Pos()
	}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.LabeledStmt:
				labels[n.Stmt] = n.Pos()
			case *ast.ForStmt:
				if overCollection(pass.TypesInfo, n.Cond) {
					return true // i < len(items): each element is its own action
				}
				// the loop's variables are counters when the loop steps
				// them, as every stored-to path is
				checkScope(pass, m, r, &retryScope{node: n, body: n.Body, post: n.Post, loop: n, insert: at(n)})
			case *ast.RangeStmt:
				t := pass.TypesInfo.TypeOf(n.X)
				if t == nil {
					return true
				}
				if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
					return true
				}
				s := &retryScope{node: n, body: n.Body, loop: n, insert: at(n)}
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if p, ok := pathOf(pass.TypesInfo, e); ok {
						s.counter = append(s.counter, p)
					}
				}
				checkScope(pass, m, r, s)
			case *ast.CallExpr:
				if !strings.Contains(strings.ToLower(callName(n)), "retry") {
					return true
				}
				for _, a := range n.Args {
					fl, ok := ast.Unparen(a).(*ast.FuncLit)
					if !ok {
						continue
					}
					s := &retryScope{node: fl, body: fl.Body}
					for _, fld := range fl.Type.Params.List {
						for _, nm := range fld.Names {
							if v, ok := pass.TypesInfo.Defs[nm].(*types.Var); ok {
								s.counter = append(s.counter, path{root: v})
							}
						}
					}
					checkScope(pass, m, r, s)
				}
			}
			return true
		})
	}
	return r.sent, nil
}

// overCollection reports whether a for loop's condition bounds it by the
// length of a collection (i < len(items)): the loop walks the elements.
func overCollection(info *types.Info, cond ast.Expr) bool {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok {
		return false
	}
	isLen := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if id, ok := ast.Unparen(c.Fun).(*ast.Ident); ok {
					if bi, ok := info.Uses[id].(*types.Builtin); ok && bi.Name() == "len" {
						found = true
					}
				}
			}
			return !found
		})
		return found
	}
	switch b.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.NEQ:
		return isLen(b.X) || isLen(b.Y)
	}
	return false
}

// callName is the name a call's function is spelled with: "Do" for
// retry.Do, "withRetry" for withRetry, "" for anything else.
func callName(c *ast.CallExpr) string {
	switch fn := ast.Unparen(c.Fun).(type) {
	case *ast.Ident:
		return fn.Name
	case *ast.SelectorExpr:
		if x, ok := fn.X.(*ast.Ident); ok {
			return x.Name + "." + fn.Sel.Name
		}
		return fn.Sel.Name
	case *ast.IndexExpr:
		return callName(&ast.CallExpr{Fun: fn.X})
	case *ast.IndexListExpr:
		return callName(&ast.CallExpr{Fun: fn.X})
	}
	return ""
}

// pathOf returns the path an expression names: a variable or a chain of
// field selections off one.
func pathOf(info *types.Info, e ast.Expr) (path, bool) {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		o := info.ObjectOf(e)
		v, ok := o.(*types.Var)
		if !ok || v.IsField() {
			return path{}, false
		}
		return path{root: v}, true
	case *ast.StarExpr:
		return pathOf(info, e.X)
	case *ast.SelectorExpr:
		v, ok := info.Uses[e.Sel].(*types.Var)
		if !ok || !v.IsField() {
			return path{}, false
		}
		p, ok := pathOf(info, e.X)
		if !ok {
			return path{}, false
		}
		p.chain += "." + e.Sel.Name
		return p, true
	}
	return path{}, false
}

// inspectNoFunc walks n without entering func literals other than n.
func inspectNoFunc(n ast.Node, f func(ast.Node) bool) {
	ast.Inspect(n, func(m ast.Node) bool {
		if _, ok := m.(*ast.FuncLit); ok && m != n {
			return false
		}
		return f(m)
	})
}

// consequential reports whether call makes an effect: a call of
// consequentialCalls, a call passed a model.ToolCall, or a call of a
// function of the package that makes one (transitively).
func consequential(m *minter, call *ast.CallExpr) bool {
	info := m.pass.TypesInfo
	f := calleeOf(info, call)
	if matches(f, consequentialCalls) || isTaught(m.pass, f) || clientDo(f) || sendsKeyed(info, call, m.keyed) {
		return true
	}
	if tv, ok := info.Types[call.Fun]; ok && (tv.IsBuiltin() || tv.IsType()) {
		return false // append, a conversion: nothing is sent
	}
	for _, a := range call.Args {
		if t := info.TypeOf(a); t != nil && isNamed(t, modelPath, "ToolCall") {
			return true
		}
	}
	if f != nil {
		if fd, ok := m.bodies[f.Origin()]; ok {
			return m.consequentialFunc(fd)
		}
	}
	return false
}

// consequentialFunc reports whether a function of the package makes a
// consequential call (false while in progress: a recursive call makes
// none by itself).
func (m *minter) consequentialFunc(fd *ast.FuncDecl) bool {
	if m.cons == nil {
		m.cons = map[*ast.FuncDecl]bool{}
	}
	if v, ok := m.cons[fd]; ok {
		return v
	}
	m.cons[fd] = false
	found := false
	outer := m.keyed
	m.keyed = keyedRoots(m.pass.TypesInfo, fd.Body)
	defer func() { m.keyed = outer }()
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && !found && consequential(m, c) {
			found = true
		}
		return !found
	})
	m.cons[fd] = found
	return found
}

// minter finds the calls that return a fresh value on every call, and
// what the package's functions do with their parameters.
type minter struct {
	pass   *analysis.Pass
	bodies map[*types.Func]*ast.FuncDecl
	memo   map[*ast.FuncDecl]string // "" while in progress or when it mints nothing
	// cons memoises consequentialFunc, params keyParams
	cons   map[*ast.FuncDecl]bool
	params map[*ast.FuncDecl][]string
	// keyed are the variables of the scope being checked that a key
	// setter is called on (keyedRoots)
	keyed map[*types.Var]bool
}

// minted describes a call that returns a fresh value on every call, or "":
// a mint itself, or a call of a function of the package that mints.
func (m *minter) minted(call *ast.CallExpr) string {
	info := m.pass.TypesInfo
	if envField(info, call, "NewRequestID") {
		return "env.NewRequestID() mints a fresh id"
	}
	if envField(info, call, "Now") {
		return "env.Now() reads the clock, which moves between attempts"
	}
	if envField(info, call, "Rand") {
		return "env.Rand() draws a fresh value"
	}
	f := calleeOf(info, call)
	if f == nil || f.Pkg() == nil {
		return ""
	}
	if k := clockOrRandom(f); k != "" {
		return f.Pkg().Name() + "." + f.Name() + " " + k
	}
	if fd, ok := m.bodies[f.Origin()]; ok {
		if w := m.helper(fd); w != "" {
			return types.ExprString(call.Fun) + "() calls " + w
		}
	}
	return ""
}

// helper describes the first mint a function of the package makes,
// directly or through others, with its line; or "".
func (m *minter) helper(fd *ast.FuncDecl) string {
	if w, ok := m.memo[fd]; ok {
		return w
	}
	m.memo[fd] = ""
	var w string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if w != "" {
			return false
		}
		if c, ok := n.(*ast.CallExpr); ok {
			if d := m.minted(c); d != "" {
				w = fmt.Sprintf("%s (line %d), which %s", types.ExprString(c.Fun), m.pass.Fset.Position(c.Pos()).Line, d[strings.Index(d, " ")+1:])
				if strings.Contains(d, "() calls ") {
					w = d[strings.Index(d, "() calls ")+len("() calls "):]
				}
				return false
			}
		}
		return true
	})
	m.memo[fd] = w
	return w
}

// assignment is one store in a scope: dst gets src (src nil for x++).
type assignment struct {
	dst  path
	src  ast.Expr
	stmt ast.Stmt
	step bool // x++, x += n, x = x + n: a counter
}

// keyVisit is called for each key site of a scope: the field, the value
// stored in it, the site (the *ast.CompositeLit or *ast.AssignStmt that
// stores it), and what varies in the scope.
type keyVisit func(kf keyField, e ast.Expr, site ast.Node, counters []path, derived map[path][]origin, lit bool)

// checkScope reports the varying keys of a retry scope.
func checkScope(pass *analysis.Pass, m *minter, r *reporter, s *retryScope) {
	scanScope(pass, m, s, func(kf keyField, e ast.Expr, site ast.Node, counters []path, derived map[path][]origin, lit bool) {
		reportKey(pass, m, r, s, kf, e, site, counters, derived, lit)
	})
}

// scanScope calls visit for each key site of a scope that makes a
// consequential call, and reports whether it makes one.
func scanScope(pass *analysis.Pass, m *minter, s *retryScope, visit keyVisit) bool {
	info := pass.TypesInfo
	hasCall := false
	m.keyed = keyedRoots(info, s.body)
	inspectNoFunc(s.body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && consequential(m, c) {
			hasCall = true
		}
		return !hasCall
	})
	if !hasCall {
		return false
	}
	// every store in the scope
	var stores []assignment
	collect := func(n ast.Node) bool {
		switch st := n.(type) {
		case *ast.IncDecStmt:
			if p, ok := pathOf(info, st.X); ok {
				stores = append(stores, assignment{dst: p, stmt: st, step: true})
			}
		case *ast.AssignStmt:
			for i, l := range st.Lhs {
				p, ok := pathOf(info, l)
				if !ok {
					continue
				}
				var src ast.Expr
				if len(st.Rhs) == len(st.Lhs) {
					src = st.Rhs[i]
				} else if len(st.Rhs) == 1 {
					src = st.Rhs[0]
				}
				a := assignment{dst: p, src: src, stmt: st}
				if st.Tok != token.ASSIGN && st.Tok != token.DEFINE {
					a.step = true
				} else if src != nil && refers(info, src, []path{p}) {
					a.step = true
				}
				stores = append(stores, a)
			}
		}
		return true
	}
	inspectNoFunc(s.body, collect)
	if s.post != nil {
		ast.Inspect(s.post, collect)
	}
	counters := append([]path(nil), s.counter...)
	for _, a := range stores {
		if a.step {
			counters = append(counters, a.dst)
		}
	}
	counters = dedupPaths(counters)
	top := map[ast.Stmt]bool{}
	for _, st := range s.body.List {
		top[st] = true
	}
	// fixpoint: the origins of every derived path
	derived := map[path][]origin{}
	for changed := true; changed; {
		changed = false
		for _, a := range stores {
			if a.step || a.src == nil {
				continue
			}
			for _, o := range originsOf(m, a.src, counters, derived) {
				if o.mint != nil && top[a.stmt] {
					o.stmt = a.stmt
				}
				if addOrigin(derived, a.dst, o) {
					changed = true
				}
			}
		}
	}
	// the key sites
	m.keySites(s.body, func(kf keyField, val ast.Expr, site ast.Node, lit bool) {
		visit(kf, val, site, counters, derived, lit)
	})
	return true
}

// keySites calls f for each key site in n (not inside func literals other
// than n): a key field (keyFields) in a composite literal (lit true) or
// assigned; a map literal's entry whose key is a string constant of
// keyNames (an mcp.Meta, a JSON-RPC _meta); a net/http.Header's Set or
// Add of such a name; and an argument of a call of a function of the
// package whose parameter reaches a key site there (site: the call). A
// key site of a client's own request has a keyField with Field only: what
// the findings call it.
func (m *minter) keySites(n ast.Node, f func(kf keyField, val ast.Expr, site ast.Node, lit bool)) {
	info := m.pass.TypesInfo
	inspectNoFunc(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			t := info.TypeOf(n)
			if t == nil {
				return true
			}
			_, isMap := t.Underlying().(*types.Map)
			for _, el := range n.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if isMap {
					if name, ok := keyName(info, kv.Key); ok {
						f(keyField{Field: strconv.Quote(name) + " entry of the " + typeLabel(t)}, kv.Value, n, true)
					}
					continue
				}
				id, ok := kv.Key.(*ast.Ident)
				if !ok {
					continue
				}
				if kf, ok := keyFieldOf(t, id.Name); ok {
					f(kf, kv.Value, n, true)
				}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
				if !ok || i >= len(n.Rhs) {
					continue
				}
				t := info.TypeOf(sel.X)
				if t == nil {
					continue
				}
				if kf, ok := keyFieldOf(t, sel.Sel.Name); ok {
					f(kf, n.Rhs[i], n, false)
				}
			}
		case *ast.CallExpr:
			if name, val, ok := keySetter(n); ok {
				f(keyField{Field: "key " + name + " sets"}, val, n, false)
			}
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && (sel.Sel.Name == "Set" || sel.Sel.Name == "Add") && len(n.Args) == 2 {
				if t := info.TypeOf(sel.X); t != nil && isNamed(t, "net/http", "Header") {
					if name, ok := keyName(info, n.Args[0]); ok {
						f(keyField{Field: strconv.Quote(name) + " header"}, n.Args[1], n, false)
					}
				}
			}
			fn := calleeOf(info, n)
			if fn == nil {
				return true
			}
			fd, ok := m.bodies[fn.Origin()]
			if !ok {
				return true
			}
			for i, label := range m.keyParams(fd) {
				if label != "" && i < len(n.Args) {
					f(keyField{Field: label + " that " + types.ExprString(n.Fun) + " sends"}, n.Args[i], n, false)
				}
			}
		}
		return true
	})
}

// keyParams returns, for each parameter of a function of the package (in
// order, the receiver left out), what carries it as a key in the
// function's key sites ("" for a parameter that reaches none).
func (m *minter) keyParams(fd *ast.FuncDecl) []string {
	if m.params == nil {
		m.params = map[*ast.FuncDecl][]string{}
	}
	if ps, ok := m.params[fd]; ok {
		return ps
	}
	m.params[fd] = nil // in progress: a recursive call carries nothing
	info := m.pass.TypesInfo
	var vars []*types.Var
	for _, fld := range fd.Type.Params.List {
		if len(fld.Names) == 0 {
			vars = append(vars, nil)
		}
		for _, nm := range fld.Names {
			v, _ := info.Defs[nm].(*types.Var)
			vars = append(vars, v)
		}
	}
	out := make([]string, len(vars))
	m.keySites(fd.Body, func(kf keyField, val ast.Expr, _ ast.Node, _ bool) {
		for i, v := range vars {
			if v != nil && out[i] == "" && refers(info, val, []path{{root: v}}) {
				out[i] = keyLabel(kf)
			}
		}
	})
	m.params[fd] = out
	return out
}

// keyName returns the string constant e names when it is one of
// keyNames (ignoring case, '-' and '_').
func keyName(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	name := constant.StringVal(tv.Value)
	norm := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
	for _, k := range keyNames {
		if norm == k {
			return name, true
		}
	}
	return "", false
}

// typeLabel names a map type as the findings do: "mcp.Meta",
// "map[string]any".
func typeLabel(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// keyLabel is what a finding calls a key field: "model.ToolCall.RequestKey",
// or a client key's own label.
func keyLabel(kf keyField) string {
	if kf.Type == "" {
		return kf.Field
	}
	return kf.Pkg[strings.LastIndex(kf.Pkg, "/")+1:] + "." + kf.Type + "." + kf.Field
}

// stableKeys reports whether a loop makes a consequential call, stores a
// key (keyFields), and stores the same keys on every attempt: a retry in
// it is idempotent.
func stableKeys(pass *analysis.Pass, m *minter, loop ast.Stmt) bool {
	s := &retryScope{node: loop, loop: loop, insert: loop.Pos()}
	switch l := loop.(type) {
	case *ast.ForStmt:
		s.body, s.post = l.Body, l.Post
	case *ast.RangeStmt:
		s.body = l.Body
		for _, e := range []ast.Expr{l.Key, l.Value} {
			if p, ok := pathOf(pass.TypesInfo, e); ok {
				s.counter = append(s.counter, p)
			}
		}
	default:
		return false
	}
	keys, varies := 0, false
	made := scanScope(pass, m, s, func(kf keyField, e ast.Expr, _ ast.Node, counters []path, derived map[path][]origin, _ bool) {
		keys++
		if len(originsOf(m, e, counters, derived)) > 0 {
			varies = true
		}
	})
	return made && keys > 0 && !varies
}

func dedupPaths(ps []path) []path {
	var out []path
	seen := map[path]bool{}
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

func addOrigin(m map[path][]origin, p path, o origin) bool {
	for _, x := range m[p] {
		if x.pos == o.pos {
			return false
		}
	}
	m[p] = append(m[p], o)
	return true
}

// keyFieldOf reports whether field name of type t is a key field.
func keyFieldOf(t types.Type, name string) (keyField, bool) {
	for _, kf := range keyFields {
		if kf.Field == name && isNamed(t, kf.Pkg, kf.Type) {
			return kf, true
		}
	}
	return keyField{}, false
}

// refers reports whether e uses a path overlapping one of ps, outside
// the index of an index expression.
func refers(info *types.Info, e ast.Expr, ps []path) bool {
	found := false
	walkPaths(info, e, func(p path, _ ast.Expr) {
		for _, q := range ps {
			if p.overlaps(q) {
				found = true
			}
		}
	})
	return found
}

// walkPaths calls f for each maximal path e uses (not inside func
// literals, not as an index).
func walkPaths(info *types.Info, e ast.Expr, f func(path, ast.Expr)) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.IndexExpr:
			walkPaths(info, n.X, f)
			return false
		case *ast.Ident, *ast.SelectorExpr:
			if p, ok := pathOf(info, n.(ast.Expr)); ok {
				f(p, n.(ast.Expr))
				return false
			}
		}
		return true
	})
}

// originsOf returns where e's variation across attempts comes from.
func originsOf(m *minter, e ast.Expr, counters []path, derived map[path][]origin) []origin {
	info := m.pass.TypesInfo
	var out []origin
	inspectNoFunc(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if w := m.minted(c); w != "" {
				out = append(out, origin{pos: c.Pos(), what: w, mint: c})
				return false
			}
		}
		return true
	})
	var counter string
	walkPaths(info, e, func(p path, x ast.Expr) {
		for _, q := range counters {
			if p.overlaps(q) && counter == "" {
				counter = types.ExprString(x)
			}
		}
		for q, os := range derived {
			if p.overlaps(q) {
				out = append(out, os...)
			}
		}
	})
	if counter != "" {
		out = append(out, origin{pos: e.Pos(), what: "it is built from the attempt counter " + counter})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}

func reportKey(pass *analysis.Pass, m *minter, r *reporter, s *retryScope, kf keyField, e ast.Expr, site ast.Node, counters []path, derived map[path][]origin, lit bool) {
	where := "retry loop"
	if _, ok := s.node.(*ast.FuncLit); ok {
		where = "retry callback"
	}
	line := pass.Fset.Position(s.node.Pos()).Line
	field := keyLabel(kf)
	for _, o := range originsOf(m, e, counters, derived) {
		d := analysis.Diagnostic{
			Pos: o.pos,
			Message: fmt.Sprintf("the %s varies across the attempts of the %s at line %d: %s on each attempt, so a retry after a lost reply is a new request to the provider and can commit the effect twice; compute the key once, before the retry, from the logical action",
				field, where, line, o.what),
		}
		if call := sendingCall(m, s, site); call != nil {
			sc := sendCall{pos: call.Pos(), callee: types.ExprString(call.Fun), tool: toolOf(pass, call, site, o.pos), event: string(model.EvToolCommit)}
			if sc.tool == "" {
				sc.tool = m.helperTool(call)
			}
			msg := "the key is sent by " + sc.callee
			if sc.tool != "" {
				msg += ", tool " + strconv.Quote(sc.tool)
			}
			d.Related = []analysis.RelatedInformation{{Pos: call.Pos(), End: call.End(), Message: msg + " (the harness event " + sc.event + ")"}}
			if _, ok := r.sent[o.pos]; !ok {
				r.sent[o.pos] = sc
			}
		}
		if s.loop != nil && o.mint != nil {
			if fix, ok := hoist(pass, s, o, e, lit); ok {
				d.SuggestedFixes = []analysis.SuggestedFix{fix}
			}
		}
		r.report(d)
	}
}

// hoist returns the fix that moves a minted key before the loop, when
// that is safe: the mint is the whole statement's value (or the whole key
// expression) and uses nothing declared in the loop.
func hoist(pass *analysis.Pass, s *retryScope, o origin, keyExpr ast.Expr, lit bool) (analysis.SuggestedFix, bool) {
	info := pass.TypesInfo
	loopStart, loopEnd := s.loop.Pos(), s.loop.End()
	local := false
	ast.Inspect(o.mint, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok && !v.IsField() && v.Pos() >= loopStart && v.Pos() < loopEnd {
				local = true
			}
		}
		return true
	})
	if local {
		return analysis.SuggestedFix{}, false
	}
	tf := pass.Fset.File(loopStart)
	// the hoisted statement takes the loop's indentation; what follows it
	// on its line (the loop, or its label) keeps its own
	loopCol, atCol := pass.Fset.Position(loopStart).Column, pass.Fset.Position(s.insert).Column
	lead := strings.Repeat("\t", max(loopCol-atCol, 0))
	indent := "\n" + strings.Repeat("\t", atCol-1)
	scope := pass.Pkg.Scope().Innermost(loopStart)
	text := types.ExprString(o.mint)
	switch {
	case o.stmt != nil:
		as, ok := o.stmt.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != o.mint {
			return analysis.SuggestedFix{}, false
		}
		id, ok := as.Lhs[0].(*ast.Ident)
		if !ok || scope == nil {
			return analysis.SuggestedFix{}, false
		}
		if _, obj := scope.LookupParent(id.Name, loopStart); obj != nil {
			return analysis.SuggestedFix{}, false
		}
		// the variable must not be stored to again in the loop
		v := info.Defs[id]
		again := false
		ast.Inspect(s.body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n == as {
					return true
				}
				for _, l := range n.Lhs {
					if lid, ok := l.(*ast.Ident); ok && info.ObjectOf(lid) == v {
						again = true
					}
				}
			case *ast.IncDecStmt:
				if lid, ok := n.X.(*ast.Ident); ok && info.ObjectOf(lid) == v {
					again = true
				}
			case *ast.UnaryExpr:
				if lid, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && info.ObjectOf(lid) == v {
					again = true
				}
			}
			return true
		})
		if again {
			return analysis.SuggestedFix{}, false
		}
		line := tf.Line(as.Pos())
		if tf.Line(as.End()) != line || line >= tf.LineCount() {
			return analysis.SuggestedFix{}, false
		}
		return analysis.SuggestedFix{
			Message: "compute " + id.Name + " once, before the loop",
			TextEdits: []analysis.TextEdit{
				{Pos: s.insert, End: s.insert, NewText: []byte(lead + id.Name + " := " + text + indent)},
				{Pos: tf.LineStart(line), End: tf.LineStart(line + 1)},
			},
		}, true
	case lit && ast.Unparen(keyExpr) == o.mint:
		name := "requestKey"
		if scope == nil {
			return analysis.SuggestedFix{}, false
		}
		if _, obj := scope.LookupParent(name, loopStart); obj != nil {
			return analysis.SuggestedFix{}, false
		}
		if inner := pass.Pkg.Scope().Innermost(o.mint.Pos()); inner != nil {
			if _, obj := inner.LookupParent(name, o.mint.Pos()); obj != nil {
				return analysis.SuggestedFix{}, false
			}
		}
		return analysis.SuggestedFix{
			Message: "compute the key once, before the loop",
			TextEdits: []analysis.TextEdit{
				{Pos: s.insert, End: s.insert, NewText: []byte(lead + name + " := " + text + indent)},
				{Pos: o.mint.Pos(), End: o.mint.End(), NewText: []byte(name)},
			},
		}, true
	}
	return analysis.SuggestedFix{}, false
}

// sendingCall returns the consequential call of a scope that sends the key
// stored at site: the innermost one holding the site (a ToolCall literal
// passed to it), else the first after the site, else the first of the
// scope; nil when the scope makes none.
func sendingCall(m *minter, s *retryScope, site ast.Node) *ast.CallExpr {
	var calls []*ast.CallExpr
	inspectNoFunc(s.body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && consequential(m, c) {
			calls = append(calls, c)
		}
		return true
	})
	var holding, after *ast.CallExpr
	for _, c := range calls {
		if c.Pos() <= site.Pos() && site.End() <= c.End() && (holding == nil || holding.Pos() <= c.Pos()) {
			holding = c // calls are in source order: a later holder is inner
		}
		if after == nil && c.Pos() >= site.End() {
			after = c
		}
	}
	switch {
	case holding != nil:
		return holding
	case after != nil:
		return after
	case len(calls) > 0:
		return calls[0]
	}
	return nil
}

// toolOf returns the tool a consequential call calls, when the source
// fixes it, or "": the Tool field of the model.ToolCall literal (the Name
// of the mcp.CallToolParams literal) stored at site or passed to call,
// when it is a string constant; or, when it is a
// variable the function never assigns (a parameter, say), the constant it
// is compared with (v == C, in an if condition's && chain, or a switch
// v { case C: }) by a guard holding the key's origin at or the call.
func toolOf(pass *analysis.Pass, call *ast.CallExpr, site ast.Node, at token.Pos) string {
	info := pass.TypesInfo
	isToolCall := func(n ast.Node) (*ast.CompositeLit, bool) {
		if u, ok := n.(*ast.UnaryExpr); ok && u.Op == token.AND {
			n = u.X
		}
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return nil, false
		}
		t := info.TypeOf(cl)
		return cl, t != nil && (isNamed(t, modelPath, "ToolCall") || isNamed(t, mcpPath, "CallToolParams"))
	}
	lit, ok := isToolCall(site)
	for _, a := range call.Args {
		if ok {
			break
		}
		lit, ok = isToolCall(ast.Unparen(a))
	}
	if !ok {
		return ""
	}
	var tool ast.Expr
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			// model.ToolCall's Tool; mcp.CallToolParams's Name, the MCP
			// tool name mcpfault gives the crossing as its Tool
			if id, ok := kv.Key.(*ast.Ident); ok && (id.Name == "Tool" || id.Name == "Name") {
				tool = kv.Value
			}
		}
	}
	if tool == nil {
		return ""
	}
	if c := stringConst(info, tool); c != "" {
		return c
	}
	id, ok := ast.Unparen(tool).(*ast.Ident)
	if !ok {
		return ""
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.IsField() {
		return ""
	}
	var fd *ast.FuncDecl
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if d, ok := d.(*ast.FuncDecl); ok && d.Body != nil && d.Pos() <= call.Pos() && call.End() <= d.End() {
				fd = d
			}
		}
	}
	if fd == nil || assigned(info, fd.Body, v) {
		return ""
	}
	isV := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.Uses[id] == v
	}
	within := func(n ast.Node) bool {
		return n.Pos() <= at && at < n.End() || n.Pos() <= call.Pos() && call.End() <= n.End()
	}
	found := map[string]bool{}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			if !within(n.Body) {
				return true
			}
			for _, c := range conjuncts(n.Cond) {
				if b, ok := c.(*ast.BinaryExpr); ok && b.Op == token.EQL {
					if isV(b.X) && stringConst(info, b.Y) != "" {
						found[stringConst(info, b.Y)] = true
					} else if isV(b.Y) && stringConst(info, b.X) != "" {
						found[stringConst(info, b.X)] = true
					}
				}
			}
		case *ast.SwitchStmt:
			if n.Tag == nil || !isV(n.Tag) {
				return true
			}
			for _, st := range n.Body.List {
				if cc, ok := st.(*ast.CaseClause); ok && len(cc.List) == 1 && within(cc) {
					if c := stringConst(info, cc.List[0]); c != "" {
						found[c] = true
					}
				}
			}
		}
		return true
	})
	if len(found) != 1 {
		return "" // unguarded, or guards that disagree
	}
	for c := range found {
		return c
	}
	return ""
}

// stringConst returns the value of a string constant expression, or "".
func stringConst(info *types.Info, e ast.Expr) string {
	if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return constant.StringVal(tv.Value)
	}
	return ""
}

// conjuncts splits a condition at its top-level &&.
func conjuncts(e ast.Expr) []ast.Expr {
	if b, ok := ast.Unparen(e).(*ast.BinaryExpr); ok && b.Op == token.LAND {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []ast.Expr{ast.Unparen(e)}
}

// assigned reports whether body stores to v or takes its address.
func assigned(info *types.Info, body *ast.BlockStmt, v *types.Var) bool {
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && info.ObjectOf(id) == v
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				found = found || is(l)
			}
		case *ast.IncDecStmt:
			found = found || is(n.X)
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && is(n.X)
		case *ast.RangeStmt:
			found = found || n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value)
		}
		return !found
	})
	return found
}

// helperTool returns the tool a call of a function of the package calls,
// when every model.ToolCall or mcp.CallToolParams literal in its body
// names the same string constant (Tool, Name); or "".
func (m *minter) helperTool(call *ast.CallExpr) string {
	info := m.pass.TypesInfo
	f := calleeOf(info, call)
	if f == nil {
		return ""
	}
	fd, ok := m.bodies[f.Origin()]
	if !ok {
		return ""
	}
	tool, n := "", 0
	ast.Inspect(fd.Body, func(x ast.Node) bool {
		cl, ok := x.(*ast.CompositeLit)
		if !ok {
			return true
		}
		t := info.TypeOf(cl)
		field := ""
		switch {
		case t != nil && isNamed(t, modelPath, "ToolCall"):
			field = "Tool"
		case t != nil && isNamed(t, mcpPath, "CallToolParams"):
			field = "Name"
		default:
			return true
		}
		c := ""
		for _, el := range cl.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok && id.Name == field {
					c = stringConst(info, kv.Value)
				}
			}
		}
		if n == 0 || c == tool {
			tool = c
		} else {
			tool = ""
		}
		n++
		return true
	})
	return tool
}
