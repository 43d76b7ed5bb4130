// Package surface holds the tests that keep the public API small and its
// comments short: the identifiers the packages a user imports export,
// counted per package, and the length of their doc and package comments.
package surface

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The budgets: exported funcs, methods (of exported types), types, consts
// and vars of every package a user imports (everything outside internal/,
// reference/, cmd/, examples/ and scripts/), model's alone, and exported
// struct fields and interface methods, which must not grow past the 1,190
// they were before the one-description redesign; the longest doc comment
// and package comment, in lines.
const (
	maxTotal      = 700
	maxModel      = 250
	maxFields     = 1190
	maxDocLines   = 10
	maxPkgComment = 40
)

// userPackages returns the folders, relative to the module's root, of the
// packages a user imports.
func userPackages(t *testing.T, root string) []string {
	t.Helper()
	skip := map[string]bool{"internal": true, "reference": true, "cmd": true, "examples": true, "scripts": true,
		"docs": true, ".git": true, ".github": true, ".clusterfuzzlite": true}
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if skip[strings.Split(rel, "/")[0]] || d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) > 0 {
			dirs = append(dirs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return dirs
}

// parse returns the non-test files of the package in dir, with comments.
func parse(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// count returns the exported identifiers and the exported fields and
// interface methods of files.
func count(files []*ast.File) (idents, fields int) {
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv.List[0].Type)) {
					idents++
				}
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

// lines counts the lines of a comment group as written.
func lines(g *ast.CommentGroup) int {
	n := 0
	for _, c := range g.List {
		n += strings.Count(c.Text, "\n") + 1
	}
	return n
}

// TestSurface prints the counts per package and fails above a budget.
func TestSurface(t *testing.T) {
	root := filepath.Join("..", "..")
	var total, fields, model int
	var b strings.Builder
	for _, dir := range userPackages(t, root) {
		i, f := count(parse(t, token.NewFileSet(), filepath.Join(root, dir)))
		fmt.Fprintf(&b, "%-12s %4d identifiers %4d fields and interface methods\n", dir, i, f)
		total += i
		fields += f
		if dir == "model" {
			model = i
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
}

// TestCommentLengths: in the packages a user imports, every doc comment
// is at most maxDocLines lines and every package comment at most
// maxPkgComment; the semantics live in docs/.
func TestCommentLengths(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range userPackages(t, root) {
		fset := token.NewFileSet()
		for _, f := range parse(t, fset, filepath.Join(root, dir)) {
			if f.Doc != nil && lines(f.Doc) > maxPkgComment {
				t.Errorf("%s: package comment of %d lines (at most %d)", fset.Position(f.Doc.Pos()), lines(f.Doc), maxPkgComment)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				var doc *ast.CommentGroup
				switch d := n.(type) {
				case *ast.FuncDecl:
					doc = d.Doc
				case *ast.GenDecl:
					doc = d.Doc
				case *ast.TypeSpec:
					doc = d.Doc
				case *ast.ValueSpec:
					doc = d.Doc
				case *ast.Field:
					doc = d.Doc
				}
				if doc != nil && doc != f.Doc && lines(doc) > maxDocLines {
					t.Errorf("%s: doc comment of %d lines (at most %d)", fset.Position(doc.Pos()), lines(doc), maxDocLines)
				}
				return true
			})
		}
	}
}
