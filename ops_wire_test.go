package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The operations layer (ops_*.go) says what happened in neutral terms;
// only the dialects know how an Airflow API answers it. So no operations
// file imports net/http or names a wire form: a status, a problem
// document, an API error or the kinds that exist only as HTTP answers.
func TestOwnership_OperationsSpeakNoWire(t *testing.T) {
	t.Parallel()
	wire := map[string]bool{
		"problem": true, "apiError": true, "newAPIError": true, "routeError": true, "rejection": true,
		"v1BadRequest": true, "v1NotFound": true, "v1Conflict": true, "v1Forbidden": true,
		"errBadRequest": true, "errCrash": true, "errAirflow": true,
		"writeJSON": true, "writeAdminJSON": true, "answerError": true,
	}
	files, err := filepath.Glob("ops_*.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no operations files found")
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "net/http" || strings.Contains(path, "httprouter") {
				t.Errorf("%s imports %s: operations know no HTTP", fset.Position(imp.Pos()), path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && wire[id.Name] {
				t.Errorf("%s names %s, a wire form: operations return domain errors (ops_errors.go)", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
}
