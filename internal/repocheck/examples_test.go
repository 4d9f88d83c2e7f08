package repocheck

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExamplesBuildOneWriter: the writer is configured once and found by
// every layer from the request, so an example program that builds a
// second one teaches the trap of two Writers that disagree (serve's
// shutdown answers and net/http's error log going elsewhere than the
// Stack's problems). Tests may build their own.
func TestExamplesBuildOneWriter(t *testing.T) {
	fset := token.NewFileSet()
	calls := map[string][]string{}
	for _, rel := range goFiles(t) {
		if !strings.HasPrefix(rel, "examples"+string(filepath.Separator)) || strings.HasSuffix(rel, "_test.go") {
			continue
		}
		f := parse(t, fset, rel)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "NewWriter" {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "problem" {
					dir := filepath.Dir(rel)
					calls[dir] = append(calls[dir], fset.Position(call.Pos()).String())
				}
			}
			return true
		})
	}
	if len(calls) == 0 {
		t.Fatal("no example builds a problem.Writer: the walk found no examples")
	}
	for dir, at := range calls {
		if len(at) > 1 {
			t.Errorf("%s builds %d Writers (%s): build one and hand it down", dir, len(at), strings.Join(at, ", "))
		}
	}
}

// TestExamplesImportNoInternalPackage: an example program is what a team
// copies into its own module, where Go refuses any of the kit's internal
// packages ("use of internal package ... not allowed"). What an example
// needs from the kit must be public; its tests may use internal helpers.
func TestExamplesImportNoInternalPackage(t *testing.T) {
	fset := token.NewFileSet()
	seen := 0
	for _, rel := range goFiles(t) {
		if !strings.Contains("/"+rel, "/examples/") || strings.HasSuffix(rel, "_test.go") {
			continue
		}
		seen++
		for _, imp := range parse(t, fset, rel).Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(path, "github.com/faultline-go/faultline/") && slices.Contains(strings.Split(path, "/"), "internal") {
				t.Errorf("%s imports %s: a copy of it in another module would not build", rel, path)
			}
		}
	}
	if seen == 0 {
		t.Fatal("the walk found no example programs")
	}
}
