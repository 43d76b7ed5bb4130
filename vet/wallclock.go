package vet

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// WallClock reports the wall clock and global randomness reached from a
// model.System's Run without going through the Env.
var WallClock = &analysis.Analyzer{
	Name: "wallclock",
	Doc: `report the wall clock and global randomness reached from a System's Run

A schedule replays only if everything the system under test observes comes
through its model.Env: the logical clock (env.Now), its sleep (env.Sleep),
its request ids (env.NewRequestID) and its random source (env.Rand, a
stream derived from the schedule's seed string, the task and the worker),
which the harness makes deterministic for a given schedule. wallclock starts at every method

	Run(context.Context, model.Env, model.Task) (model.Claim, error)

declared in the package and follows, transitively and once each, the
functions and methods of the same package that it calls or takes as a
value (func literals included; calls through interfaces and func values
are not followed, nor are other packages' functions). It reports each use
there of

  - time.Now, time.Since, time.Until (the wall clock: use env.Now);
  - time.Sleep, time.After, time.AfterFunc, time.Tick, time.NewTimer,
    time.NewTicker (real waiting: use env.Sleep);
  - the top-level functions of math/rand and math/rand/v2 other than the
    constructors (New, NewSource, NewZipf, NewPCG, NewChaCha8): global
    randomness, seeded differently on every run (draw from env.Rand);
  - crypto/rand's Read, Int, Prime and Text, and github.com/google/uuid's
    constructors: they cannot be replayed either, which is the point of
    them; an id a system sends must come from env.NewRequestID.

Drawing from env.Rand is not reported, nor is a generator over it
(rand.New of a math/rand/v2 Source whose Uint64 calls env.Rand) or one the
system seeds itself (rand.New(rand.NewSource(seed))): their methods are not
the global source. At run time "faultline replay --twice" shows the same defect: the
two replays of one schedule differ.`,
	Run: runWallClock,
}

// clockOrRandom says why a function's value differs from run to run, or
// "" when it does not.
func clockOrRandom(f *types.Func) string {
	if f.Pkg() == nil {
		return ""
	}
	if sig, ok := f.Type().(*types.Signature); ok && sig.Recv() != nil {
		return ""
	}
	name := f.Name()
	switch f.Pkg().Path() {
	case "time":
		switch name {
		case "Now", "Since", "Until":
			return "reads the wall clock"
		case "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker":
			return "waits on the wall clock"
		}
	case "math/rand", "math/rand/v2":
		switch name {
		case "New", "NewSource", "NewZipf", "NewPCG", "NewChaCha8":
			return ""
		}
		return "draws from the global random source"
	case "crypto/rand":
		switch name {
		case "Read", "Int", "Prime", "Text":
			return "draws from the operating system's random source"
		}
	case "github.com/google/uuid":
		if strings.HasPrefix(name, "New") {
			return "mints a random or time-based id"
		}
	}
	return ""
}

// envAdvice is what to use instead, by the reason clockOrRandom gives.
var envAdvice = map[string]string{
	"reads the wall clock":                            "use env.Now (logical milliseconds)",
	"waits on the wall clock":                         "use env.Sleep",
	"draws from the global random source":             "draw from env.Rand, the schedule's random source (or derive the value from the task, or take an id from env.NewRequestID)",
	"draws from the operating system's random source": "take ids from env.NewRequestID, which is deterministic for a schedule",
	"mints a random or time-based id":                 "take ids from env.NewRequestID, which is deterministic for a schedule",
}

// isRunMethod reports whether fd is a method Run(context.Context,
// model.Env, model.Task) (model.Claim, error).
func isRunMethod(info *types.Info, fd *ast.FuncDecl) bool {
	if fd.Recv == nil || fd.Name.Name != "Run" {
		return false
	}
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	p, r := sig.Params(), sig.Results()
	if p.Len() != 3 || r.Len() != 2 {
		return false
	}
	return isNamed(p.At(0).Type(), "context", "Context") && isNamed(p.At(1).Type(), modelPath, "Env") &&
		isNamed(p.At(2).Type(), modelPath, "Task") && isNamed(r.At(0).Type(), modelPath, "Claim") &&
		types.Identical(r.At(1).Type(), types.Universe.Lookup("error").Type())
}

func runWallClock(pass *analysis.Pass) (any, error) {
	r := newReporter(pass)
	bodies := funcBodies(pass)
	visited := map[*ast.FuncDecl]bool{}
	type item struct {
		fd    *ast.FuncDecl
		chain []string
	}
	var queue []item
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && isRunMethod(pass.TypesInfo, fd) && !visited[fd] {
				visited[fd] = true
				queue = append(queue, item{fd, []string{funcName(fd)}})
			}
		}
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		ast.Inspect(it.fd.Body, func(n ast.Node) bool {
			var id *ast.Ident
			var at ast.Node
			switch n := n.(type) {
			case *ast.SelectorExpr:
				id, at = n.Sel, n
			case *ast.Ident:
				id, at = n, n
			default:
				return true
			}
			fn, ok := pass.TypesInfo.Uses[id].(*types.Func)
			if !ok {
				return true
			}
			if why := clockOrRandom(fn); why != "" {
				via := ""
				if len(it.chain) > 1 {
					via = " (through " + strings.Join(it.chain[1:], " → ") + ")"
				}
				r.report(analysis.Diagnostic{Pos: at.Pos(), Message: fmt.Sprintf(
					"%s.%s %s in code reached from %s%s: a replay of the same schedule sees another value; %s",
					fn.Pkg().Name(), fn.Name(), why, it.chain[0], via, envAdvice[why])})
				return false
			}
			if fd, ok := bodies[fn.Origin()]; ok && !visited[fd] {
				visited[fd] = true
				queue = append(queue, item{fd, append(append([]string(nil), it.chain...), funcName(fd))})
			}
			return true
		})
	}
	return nil, nil
}
