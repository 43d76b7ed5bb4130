package main

// Checks of the ClusterFuzzLite setup that need no container engine. What
// they cannot check (the base image, go-118-fuzz-build's rewrite and the
// libFuzzer link, running the binaries) is listed in the README.

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const root = "../.."

// fuzzFuncs returns the Fuzz functions of package fuzz's test files, by
// file: func FuzzX(f *testing.F).
func fuzzFuncs(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "fuzz", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range files {
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Fuzz") {
				continue
			}
			out[fd.Name.Name] = p
		}
	}
	return out
}

// farmless are the targets .clusterfuzzlite/build.sh leaves out, and
// why. Each lives in a file of its own, which the build helper never
// compiles.
var farmless = map[string]string{
	"FuzzRapid": "rapid.MakeFuzz returns a function of the standard library's *testing.T, which go-118-fuzz-build's replacement testing package cannot call",
}

// farmFuncs are the Fuzz functions the farm builds, by file.
func farmFuncs(t *testing.T) map[string]string {
	out := map[string]string{}
	for n, f := range fuzzFuncs(t) {
		if _, ok := farmless[n]; !ok {
			out[n] = f
		}
	}
	return out
}

var compileLine = regexp.MustCompile(`(?m)^compile_native_go_fuzzer (\S+) (\S+) (\S+)$`)

// TestBuildScriptBuildsEveryTarget: build.sh compiles exactly the Fuzz
// functions of package fuzz but the farmless ones, each once, under a
// unique fuzzer name, from the module's fuzz package; fuzztool converts
// exactly the Fuzz functions; a farmless target is in a file with no
// farm-built target, and build.sh names it with its reason.
func TestBuildScriptBuildsEveryTarget(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(root, ".clusterfuzzlite", "build.sh"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module ")
	built := map[string]bool{}
	names := map[string]bool{}
	for _, m := range compileLine.FindAllStringSubmatch(string(script), -1) {
		if m[1] != module+"/fuzz" {
			t.Errorf("build.sh builds %s from %s, want %s/fuzz", m[2], m[1], module)
		}
		if built[m[2]] || names[m[3]] {
			t.Errorf("build.sh repeats %s or the fuzzer name %s", m[2], m[3])
		}
		built[m[2]], names[m[3]] = true, true
		if farmNames[m[3]] != m[2] {
			t.Errorf("build.sh names %s's libFuzzer build %s; fuzztool's farmNames maps that name to %q", m[2], m[3], farmNames[m[3]])
		}
	}
	if len(farmNames) != len(names) {
		t.Errorf("fuzztool knows %d farm fuzzer names, build.sh builds %d", len(farmNames), len(names))
	}
	funcs := fuzzFuncs(t)
	var all, want, got, conv []string
	for n := range funcs {
		all = append(all, n)
	}
	for n := range farmFuncs(t) {
		want = append(want, n)
	}
	for n := range built {
		got = append(got, n)
	}
	for n := range targets {
		conv = append(conv, n)
	}
	sort.Strings(all)
	sort.Strings(want)
	sort.Strings(got)
	sort.Strings(conv)
	if len(want) == 0 || strings.Join(want, " ") != strings.Join(got, " ") || strings.Join(all, " ") != strings.Join(conv, " ") {
		t.Fatalf("Fuzz functions %v (farm-built %v), build.sh builds %v, fuzztool converts %v", all, want, got, conv)
	}
	farmFiles := map[string]bool{}
	for _, f := range farmFuncs(t) {
		farmFiles[f] = true
	}
	for n := range farmless {
		f, ok := funcs[n]
		if !ok || farmFiles[f] {
			t.Errorf("farmless target %s is in %q, which is missing or also holds a farm-built target", n, f)
		}
		if !strings.Contains(string(script), "# "+n+": ") {
			t.Errorf("build.sh does not say why it leaves out %s (a comment line \"# %s: ...\")", n, n)
		}
	}
	for _, w := range []string{"language: go"} {
		if b, _ := os.ReadFile(filepath.Join(root, ".clusterfuzzlite", "project.yaml")); !strings.Contains(string(b), w) {
			t.Errorf("project.yaml lacks %q", w)
		}
	}
	docker, _ := os.ReadFile(filepath.Join(root, ".clusterfuzzlite", "Dockerfile"))
	for _, w := range []string{"FROM gcr.io/oss-fuzz-base/base-builder-go", "COPY . $SRC/faultline", "COPY .clusterfuzzlite/build.sh $SRC/"} {
		if !strings.Contains(string(docker), w) {
			t.Errorf("Dockerfile lacks %q", w)
		}
	}
}

// allowed are the methods of go-118-fuzz-build's testing.F and testing.T
// that a target may call (the rest are missing or panic there).
var allowed = map[string]map[string]bool{
	"f": {"Add": true, "Fuzz": true, "Fatal": true, "Fatalf": true, "Logf": true, "Log": true, "Helper": true},
	"t": {"Fatal": true, "Fatalf": true, "Error": true, "Errorf": true, "Logf": true, "Log": true, "Helper": true},
}

// TestTargetsFollowTheBuildHelpersRules checks each farm-built target's
// file (and, for the grep rule, every target's) the way
// compile_native_go_fuzzer and go-118-fuzz-build find and rewrite it: the
// target's name appears in exactly one .go file under fuzz/ (the helper
// greps for it), with one line "func NAME(f *testing.F"; the file is in
// package fuzz (it is compiled as a non-test file); it names no testing
// identifier other than F and T; the f.Fuzz callback takes (t *testing.T,
// data []byte); and only methods the replacement F and T support are
// called.
func TestTargetsFollowTheBuildHelpersRules(t *testing.T) {
	var goFiles []string
	filepath.WalkDir(filepath.Join(root, "fuzz"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			goFiles = append(goFiles, p)
		}
		return err
	})
	for name, file := range fuzzFuncs(t) {
		var holders []string
		for _, p := range goFiles {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), name) {
				holders = append(holders, p)
			}
		}
		if len(holders) != 1 || holders[0] != file {
			t.Errorf("%s appears in %v, want only %s (the build helper greps for it)", name, holders, file)
		}
		src, _ := os.ReadFile(file)
		n := 0
		for _, l := range strings.Split(string(src), "\n") {
			if strings.Contains(l, "func "+name) && strings.Contains(l, "testing.F") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d lines with func %s and testing.F, want 1", file, n, name)
		}
	}
	fset := token.NewFileSet()
	checked := map[string]bool{}
	for _, file := range farmFuncs(t) {
		if checked[file] {
			continue
		}
		checked[file] = true
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name != "fuzz" {
			t.Errorf("%s is in package %s; the build helper compiles it as a non-test file of package fuzz", file, f.Name.Name)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				id, ok := x.X.(*ast.Ident)
				if !ok {
					return true
				}
				if id.Name == "testing" && x.Sel.Name != "F" && x.Sel.Name != "T" {
					t.Errorf("%s: testing.%s is not in the replacement testing package", fset.Position(x.Pos()), x.Sel.Name)
				}
				if ok := allowed[id.Name]; ok != nil && !ok[x.Sel.Name] {
					t.Errorf("%s: %s.%s is not supported by the replacement testing package", fset.Position(x.Pos()), id.Name, x.Sel.Name)
				}
			case *ast.FuncDecl:
				if !strings.HasPrefix(x.Name.Name, "Fuzz") {
					return true
				}
				ps := x.Type.Params.List
				if len(ps) != 1 || len(ps[0].Names) != 1 || ps[0].Names[0].Name != "f" || types(ps[0].Type) != "*testing.F" {
					t.Errorf("%s: want func %s(f *testing.F)", fset.Position(x.Pos()), x.Name.Name)
				}
			case *ast.CallExpr:
				sel, ok := x.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Fuzz" || len(x.Args) != 1 {
					return true
				}
				lit, ok := x.Args[0].(*ast.FuncLit)
				var sig []string
				if ok {
					for _, p := range lit.Type.Params.List {
						for range max(1, len(p.Names)) {
							sig = append(sig, types(p.Type))
						}
					}
				}
				if strings.Join(sig, ", ") != "*testing.T, []byte" {
					t.Errorf("%s: f.Fuzz callback takes (%s), want (*testing.T, []byte)", fset.Position(x.Pos()), strings.Join(sig, ", "))
				}
			}
			return true
		})
	}
	if len(checked) == 0 {
		t.Fatal("no target file found")
	}
}

func types(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + types(x.X)
	case *ast.SelectorExpr:
		return types(x.X) + "." + x.Sel.Name
	case *ast.Ident:
		return x.Name
	case *ast.ArrayType:
		if x.Len == nil {
			return "[]" + types(x.Elt)
		}
	}
	return "?"
}

// TestTargetFileCompilesAlone compiles each target's file the way the
// build helper does: as an ordinary file of package fuzz (renamed from
// _test.go), without the package's other test files, under the helper's
// build tags. The std testing package stands in for go-118-fuzz-build's
// (whose use the previous test restricts to what both provide). The
// source tree is not touched: the renamed copy is a go build overlay.
func TestTargetFileCompilesAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	abs, err := filepath.Abs(filepath.Join(root, "fuzz"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, f := range farmFuncs(t) {
		files[f] = true
	}
	for file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		copyPath := filepath.Join(dir, "copy.go")
		if err := os.WriteFile(copyPath, src, 0o644); err != nil {
			t.Fatal(err)
		}
		ov, _ := json.Marshal(map[string]any{"Replace": map[string]string{
			filepath.Join(abs, filepath.Base(file)+"_fuzz.go"): copyPath,
		}})
		ovPath := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ovPath, ov, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-tags", "gofuzz,gofuzz_libfuzzer,libfuzzer", "-overlay", ovPath, "./fuzz")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s does not compile as a non-test file of package fuzz: %v\n%s", file, err, out)
		}
	}
}
