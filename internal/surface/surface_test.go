// Package surface holds the test that keeps the public API small: the
// identifiers the packages a user imports export, counted per package.
package surface

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The budgets: exported funcs, methods (of exported types), types, consts
// and vars of every package a user imports (everything outside internal/,
// reference/, cmd/, examples/ and scripts/), model's alone, and exported
// struct fields and interface methods, which must not grow.
const (
	maxTotal  = 1042
	maxModel  = 356
	maxFields = 1190
)

// count returns the exported identifiers and the exported fields and
// interface methods of the package in dir (test files left out).
func count(t *testing.T, dir string) (idents, fields int) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || d.Recv != nil && !exportedRecv(d.Recv.List[0].Type) {
						continue
					}
					idents++
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							idents++
							switch tt := s.Type.(type) {
							case *ast.StructType:
								fields += exportedNames(tt.Fields)
							case *ast.InterfaceType:
								fields += exportedNames(tt.Methods)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									idents++
								}
							}
						}
					}
				}
			}
		}
	}
	return idents, fields
}

func exportedRecv(x ast.Expr) bool {
	for {
		switch y := x.(type) {
		case *ast.StarExpr:
			x = y.X
		case *ast.IndexExpr:
			x = y.X
		case *ast.IndexListExpr:
			x = y.X
		case *ast.Ident:
			return y.IsExported()
		default:
			return false
		}
	}
}

func exportedNames(l *ast.FieldList) int {
	n := 0
	for _, f := range l.List {
		for _, name := range f.Names {
			if name.IsExported() {
				n++
			}
		}
	}
	return n
}

// TestSurface prints the counts per package and fails above a budget.
func TestSurface(t *testing.T) {
	root := filepath.Join("..", "..")
	skip := []string{"internal", "reference", "cmd", "examples", "scripts", "docs", ".git", ".github", ".clusterfuzzlite"}
	type row struct {
		pkg            string
		idents, fields int
	}
	var rows []row
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		top := strings.Split(rel, "/")[0]
		for _, s := range skip {
			if top == s {
				return filepath.SkipDir
			}
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) == 0 {
			return nil
		}
		i, f := count(t, p)
		if i > 0 || f > 0 {
			rows = append(rows, row{rel, i, f})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].pkg < rows[j].pkg })
	var total, fields, model int
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-12s %4d identifiers %4d fields and interface methods\n", r.pkg, r.idents, r.fields)
		total += r.idents
		fields += r.fields
		if r.pkg == "model" {
			model = r.idents
		}
	}
	fmt.Fprintf(&b, "%-12s %4d identifiers %4d fields and interface methods", "total", total, fields)
	t.Log("\n" + b.String())
	if model == 0 {
		t.Fatal("package model not found")
	}
	if total > maxTotal {
		t.Errorf("the packages a user imports export %d identifiers, over the budget of %d", total, maxTotal)
	}
	if model > maxModel {
		t.Errorf("model exports %d identifiers, over the budget of %d", model, maxModel)
	}
	if fields > maxFields {
		t.Errorf("%d exported struct fields and interface methods, over the budget of %d", fields, maxFields)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
}
