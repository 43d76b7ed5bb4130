package model_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCoreVocabularyIsNeutral: no exported identifier of package model
// (types, functions, constants, variables, methods and the fields of
// exported types) names the reference system, its control type, profiles,
// fixtures or seeded defects, or the refund world (an order, a refund):
// they are the reference system's (reference/copperfin). No exported
// constant's value names an order, a refund or Copperfin either (an event,
// an eligibility source, a status).
func TestCoreVocabularyIsNeutral(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	// a system's own defences are "controls" in general (the field
	// Definition.Controls); the reference system's types and functions of
	// them are not the core's
	banned := regexp.MustCompile(`(?i)copperfin|control|profile|mutant|nominated|fixturenamed|order|refund`)
	bannedField := regexp.MustCompile(`(?i)copperfin|profile|mutant|nominated|order|refund`)
	bannedValue := regexp.MustCompile(`(?i)copperfin|order|refund`)
	fset := token.NewFileSet()
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		check := func(id *ast.Ident, banned *regexp.Regexp) {
			if !id.IsExported() {
				return
			}
			n++
			if banned.MatchString(id.Name) {
				t.Errorf("%s: exported identifier %s names the reference system's vocabulary", fset.Position(id.Pos()), id.Name)
			}
		}
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				check(d.Name, banned)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch x := spec.(type) {
					case *ast.ValueSpec:
						for _, id := range x.Names {
							check(id, banned)
						}
						if d.Tok != token.CONST {
							break
						}
						for j, v := range x.Values {
							lit, ok := v.(*ast.BasicLit)
							if ok && lit.Kind == token.STRING && j < len(x.Names) && x.Names[j].IsExported() && bannedValue.MatchString(lit.Value) {
								t.Errorf("%s: exported constant %s = %s names the reference world", fset.Position(lit.Pos()), x.Names[j].Name, lit.Value)
							}
						}
					case *ast.TypeSpec:
						check(x.Name, banned)
						if st, ok := x.Type.(*ast.StructType); ok && x.Name.IsExported() {
							for _, f := range st.Fields.List {
								for _, id := range f.Names {
									check(id, bannedField)
								}
							}
						}
					}
				}
			}
		}
	}
	if n < 200 {
		t.Errorf("only %d exported identifiers seen", n)
	}
}
