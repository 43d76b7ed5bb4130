package vet

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// consequentialDirective marks a function, a method or an interface method
// of the user's code as a consequential call: a comment line of its doc
// comment (or, for an interface method, on its line).
const consequentialDirective = "//faultline:consequential"

// taught are the consequential calls the -retrykey.consequential flag
// names, besides consequentialCalls.
var taught []callee

func init() {
	RetryKey.Flags.Var(calleesFlag{&taught}, "consequential",
		"comma-separated calls that make an effect, besides the known ones: PKG.Func or (PKG.Type).Method (Type may be an interface), as types.Func.FullName writes them: (*github.com/acme/pay.Client).Charge")
	RetryKey.FactTypes = []analysis.Fact{new(consequentialFact)}
}

// consequentialFact marks a function or method whose declaration carries
// the //faultline:consequential directive, for the packages that import
// it.
type consequentialFact struct{}

func (*consequentialFact) AFact()         {}
func (*consequentialFact) String() string { return "consequential" }

// calleesFlag is a flag.Value of comma-separated callees.
type calleesFlag struct{ list *[]callee }

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
	if strings.TrimSpace(s) == "" {
		*f.list = nil
		return nil
	}
	for _, name := range strings.Split(s, ",") {
		c, err := parseCallee(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		list = append(list, c)
	}
	*f.list = list
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
