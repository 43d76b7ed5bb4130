package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// consequentialDirective marks a function, a method or an interface method
// of the user's code as a consequential call: a comment line of its doc
// comment (or, for an interface method, on its line).
const consequentialDirective = "//faultline:consequential"

// taught are the consequential calls the -retrykey.consequential flag
// names, besides consequentialCalls.
var taught []callee

// taughtAs are the flag's names of taught, as the user spelt them.
var taughtAs []string

func init() {
	RetryKey.Flags.Var(calleesFlag{&taught, &taughtAs}, "consequential",
		"comma-separated calls that make an effect, besides the known ones: PKG.Func or (PKG.Type).Method (Type may be an interface), as types.Func.FullName writes them: (*github.com/acme/pay.Client).Charge")
	RetryKey.FactTypes = []analysis.Fact{new(consequentialFact)}
}

// consequentialFact marks a function or method whose declaration carries
// the //faultline:consequential directive, for the packages that import
// it.
type consequentialFact struct{}

func (*consequentialFact) AFact()         {}
func (*consequentialFact) String() string { return "consequential" }

// calleesFlag is a flag.Value of comma-separated callees, and their
// spellings.
type calleesFlag struct {
	list *[]callee
	as   *[]string
}

func (f calleesFlag) String() string {
	if f.list == nil {
		return ""
	}
	var out []string
	for _, c := range *f.list {
		if c.Recv == "" {
			out = append(out, c.Pkg+"."+c.Name)
		} else {
			out = append(out, "("+c.Pkg+"."+c.Recv+")."+c.Name)
		}
	}
	return strings.Join(out, ",")
}

// Set replaces the list with the calls s names ("": none).
func (f calleesFlag) Set(s string) error {
	var list []callee
	var as []string
	if strings.TrimSpace(s) != "" {
		for _, name := range strings.Split(s, ",") {
			c, err := parseCallee(strings.TrimSpace(name))
			if err != nil {
				return err
			}
			list, as = append(list, c), append(as, strings.TrimSpace(name))
		}
	}
	*f.list, *f.as = list, as
	return nil
}

// parseCallee parses PKG.Func, (PKG.Type).Method or (*PKG.Type).Method.
func parseCallee(s string) (callee, error) {
	bad := fmt.Errorf("consequential call %q: want PKG.Func or (PKG.Type).Method, as (*net/http.Client).Do", s)
	split := func(q string) (string, string, bool) {
		i := strings.LastIndex(q, ".")
		if i <= 0 || i < strings.LastIndex(q, "/") || !token.IsIdentifier(q[i+1:]) {
			return "", "", false
		}
		return q[:i], q[i+1:], true
	}
	if rest, ok := strings.CutPrefix(s, "("); ok {
		recv, method, ok := strings.Cut(rest, ").")
		if !ok || !token.IsIdentifier(method) {
			return callee{}, bad
		}
		pkg, typ, ok := split(strings.TrimPrefix(recv, "*"))
		if !ok {
			return callee{}, bad
		}
		return callee{pkg, typ, method}, nil
	}
	pkg, fn, ok := split(s)
	if !ok {
		return callee{}, bad
	}
	return callee{pkg, "", fn}, nil
}

// exportTaught exports a consequentialFact for each function, method and
// interface method of the package that carries the directive.
func exportTaught(pass *analysis.Pass) {
	marked := func(groups ...*ast.CommentGroup) bool {
		for _, g := range groups {
			if g == nil {
				continue
			}
			for _, c := range g.List {
				if rest, ok := strings.CutPrefix(c.Text, consequentialDirective); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
					return true
				}
			}
		}
		return false
	}
	export := func(id *ast.Ident) {
		if fn, ok := pass.TypesInfo.Defs[id].(*types.Func); ok {
			pass.ExportObjectFact(fn, &consequentialFact{})
		}
	}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if marked(n.Doc) {
					export(n.Name)
				}
			case *ast.InterfaceType:
				for _, m := range n.Methods.List {
					if len(m.Names) == 1 && marked(m.Doc, m.Comment) {
						export(m.Names[0])
					}
				}
			}
			return true
		})
	}
}

// isTaught reports whether f is a consequential call users taught: named
// by the flag, or carrying the directive (a fact of its package).
func isTaught(pass *analysis.Pass, f *types.Func) bool {
	if f == nil {
		return false
	}
	if matches(f, taught) {
		return true
	}
	return pass.ImportObjectFact(f.Origin(), new(consequentialFact))
}

// clientDo reports whether f is a method Do of a named type whose name
// contains "Client" (a retryablehttp.Client, an SDK's client): it sends
// the request it is given.
func clientDo(f *types.Func) bool {
	if f == nil || f.Name() != "Do" {
		return false
	}
	sig, _ := f.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return false
	}
	n, ok := types.Unalias(derefType(sig.Recv().Type())).(*types.Named)
	return ok && strings.Contains(n.Obj().Name(), "Client")
}

// keySetter returns the name of a call of a setter of an idempotency key
// (SetIdempotencyKey, WithIdempotencyKey: Set or With and a name of
// keyNames, any case) with its value (the last argument), or false.
func keySetter(call *ast.CallExpr) (string, ast.Expr, bool) {
	if len(call.Args) == 0 {
		return "", nil, false
	}
	var name string
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		name = fn.Name
	case *ast.SelectorExpr:
		name = fn.Sel.Name
	default:
		return "", nil, false
	}
	rest, ok := strings.CutPrefix(name, "Set")
	if !ok {
		rest, ok = strings.CutPrefix(name, "With")
	}
	norm := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(rest))
	if !ok || !keyNamed(norm) {
		return "", nil, false
	}
	return name, call.Args[len(call.Args)-1], true
}

// keyNamed reports whether a normalised name is one of keyNames.
func keyNamed(norm string) bool {
	for _, k := range keyNames {
		if norm == k {
			return true
		}
	}
	return false
}

// keyedRoots are the variables of body a key setter is called on
// (params.SetIdempotencyKey(k): params): a call passed one sends its key.
func keyedRoots(info *types.Info, body ast.Node) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	inspectNoFunc(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if _, _, ok := keySetter(c); ok {
				if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
					if p, ok := pathOf(info, sel.X); ok {
						out[p.root] = true
					}
				}
			}
		}
		return true
	})
	return out
}

// sendsKeyed reports whether call, not itself a key setter, is passed a
// variable of keyed (or its address, or a field of it).
func sendsKeyed(info *types.Info, call *ast.CallExpr, keyed map[*types.Var]bool) bool {
	if len(keyed) == 0 {
		return false
	}
	if _, _, ok := keySetter(call); ok {
		return false
	}
	for _, a := range call.Args {
		if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
			a = u.X
		}
		if p, ok := pathOf(info, a); ok && keyed[p.root] {
			return true
		}
	}
	return false
}

// unmatchedTaught returns the error of the calls the flag names that
// match no function or method of pkgs or their imports (a typo would
// otherwise teach nothing and vet would pass having checked nothing for
// it), each with the nearest function or method of the same name (in its
// package first, then on a type of the same name), or nil. The analyzer runs per package, so only
// a driver that sees every package (Check) can tell.
func unmatchedTaught(pkgs []*packages.Package) error {
	if len(taught) == 0 {
		return nil
	}
	var all []*types.Package
	seen := map[*types.Package]bool{}
	var walk func(p *types.Package)
	walk = func(p *types.Package) {
		if p == nil || seen[p] {
			return
		}
		seen[p] = true
		all = append(all, p)
		for _, imp := range p.Imports() {
			walk(imp)
		}
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) { walk(p.Types) })
	var out []string
	for i, c := range taught {
		near := map[string]int{} // name: closeness
		found := false
		for _, p := range all {
			for _, f := range declaredFuncs(p, c.Name) {
				if calleeDeclares(c, f) {
					found = true
					continue
				}
				score := 0
				if p.Path() == c.Pkg {
					score += 2
				}
				if recv := f.Type().(*types.Signature).Recv(); recv != nil && c.Recv != "" {
					if n, ok := types.Unalias(derefType(recv.Type())).(*types.Named); ok && n.Obj().Name() == c.Recv {
						score++
					}
				}
				near[f.FullName()] = score
			}
		}
		if found {
			continue
		}
		msg := fmt.Sprintf("consequential call %q matches no function or method of the loaded packages or their imports, so it would teach nothing", taughtAs[i])
		best, bestScore := "", -1
		for name, score := range near {
			if score > bestScore || score == bestScore && name < best {
				best, bestScore = name, score
			}
		}
		if best != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", best)
		}
		out = append(out, msg)
	}
	if len(out) == 0 {
		return nil
	}
	return fmt.Errorf("--%s.consequential: %s", RetryKey.Name, strings.Join(out, "; "))
}

// declaredFuncs returns the package-level functions, the methods declared
// on its named types and the methods of its interfaces named name.
func declaredFuncs(p *types.Package, name string) []*types.Func {
	var out []*types.Func
	scope := p.Scope()
	for _, n := range scope.Names() {
		switch o := scope.Lookup(n).(type) {
		case *types.Func:
			if n == name {
				out = append(out, o)
			}
		case *types.TypeName:
			named, ok := types.Unalias(o.Type()).(*types.Named)
			if !ok {
				continue
			}
			if iface, ok := named.Underlying().(*types.Interface); ok {
				for i := range iface.NumMethods() {
					if m := iface.Method(i); m.Name() == name {
						out = append(out, m)
					}
				}
				continue
			}
			for i := range named.NumMethods() {
				if m := named.Method(i); m.Name() == name {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// calleeDeclares reports whether c names f: PKG.Func a function of PKG,
// (PKG.Type).Method a method of the type PKG.Type (declared on it, or
// of its interface).
func calleeDeclares(c callee, f *types.Func) bool {
	sig, _ := f.Type().(*types.Signature)
	if sig == nil || f.Pkg() == nil || f.Pkg().Path() != c.Pkg {
		return false
	}
	if c.Recv == "" {
		return sig.Recv() == nil
	}
	if sig.Recv() == nil {
		return false
	}
	rt := sig.Recv().Type()
	if _, ok := rt.Underlying().(*types.Interface); ok && !isNamed(rt, c.Pkg, c.Recv) {
		// an interface method's receiver may be the interface literal
		// itself; look the type up instead
		o, ok := f.Pkg().Scope().Lookup(c.Recv).(*types.TypeName)
		if !ok {
			return false
		}
		obj, _, _ := types.LookupFieldOrMethod(o.Type(), false, f.Pkg(), c.Name)
		return obj == f
	}
	return isNamed(rt, c.Pkg, c.Recv)
}
