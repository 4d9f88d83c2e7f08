package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSharedSentinelNeverLeaks proves issue 10 item 1: many goroutines
// derive their own occurrences from one package-level sentinel at once,
// and each response carries only its own detail, retry time, field errors,
// extension and error; the sentinel is left as it was. Run with -race.
func TestSharedSentinelNeverLeaks(t *testing.T) {
	sentinel := New(NotFound).WithDetail("No such book.")
	before := *sentinel
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				id := fmt.Sprintf("user%d-%d@example.com", g, i)
				p := sentinel.WithDetail("Book of "+id).
					WithRetryAfter(time.Duration(g+1)*time.Second).
					WithOutcome(OutcomeNotStarted).
					WithErrors(FieldError{Detail: id, Pointer: "/id"}).
					WithExtension("owner_ref", id).
					WithLogAttrs(slog.String("who", id)).
					Wrap(errors.New(id))
				rec := httptest.NewRecorder()
				_ = wr.Write(rec, httptest.NewRequest("GET", "/books/7", nil), p)
				body := rec.Body.String()
				if strings.Count(body, "example.com") != 3 || strings.Contains(body, fmt.Sprintf("user%d-%d@", g, i+1)) {
					t.Errorf("cross-talk: %s", body)
					return
				}
				var m map[string]any
				_ = json.Unmarshal(rec.Body.Bytes(), &m)
				if m["detail"] != "Book of "+id || m["owner_ref"] != id {
					t.Errorf("occurrence lost its own members: %s", body)
					return
				}
			}
		})
	}
	wg.Wait()
	if sentinel.detail != before.detail || sentinel.retryAfter != 0 || sentinel.outcome != "" ||
		sentinel.fieldErrors != nil || sentinel.ext != nil || sentinel.err != nil || sentinel.logAttrs != nil {
		t.Fatalf("the sentinel was modified: %+v", sentinel)
	}
}

// TestBuildersShareNoArrays checks the subtle half of copy-on-write: two
// occurrences appended from one base with spare capacity must not write
// into the same backing array.
func TestBuildersShareNoArrays(t *testing.T) {
	base := New(ValidationFailed).WithErrors(make([]FieldError, 1, 8)...)
	a := base.WithErrors(FieldError{Detail: "a"})
	b := base.WithErrors(FieldError{Detail: "b"})
	if a.fieldErrors[1].Detail != "a" || b.fieldErrors[1].Detail != "b" || len(base.fieldErrors) != 1 {
		t.Fatalf("errors shared: %v %v %v", a.fieldErrors, b.fieldErrors, base.fieldErrors)
	}
	la := base.WithLogAttrs(slog.Int("n", 1))
	lb := la.WithLogAttrs(slog.Int("n", 2))
	lc := la.WithLogAttrs(slog.Int("n", 3))
	if lb.logAttrs[1].Value.Int64() != 2 || lc.logAttrs[1].Value.Int64() != 3 {
		t.Fatal("log attrs shared")
	}
	ea := base.WithExtension("first", 1)
	eb := ea.WithExtension("first", 2)
	if v, _ := ea.Extension("first"); v != 1 {
		t.Fatalf("replacing an extension changed the receiver: %v", v)
	}
	if v, _ := eb.Extension("first"); v != 2 {
		t.Fatal("replacement lost")
	}
}

var builderMethods = map[string]bool{
	"WithDetail": true, "WithAction": true, "WithCause": true, "WithRetryable": true, "Wrap": true, "WithRetryAfter": true, "WithOutcome": true,
	"WithErrors": true, "WithLogAttrs": true, "ForRequest": true, "WithExtension": true,
}

// TestNoDiscardedBuilder walks every Go file of the repository for a
// statement that calls a Problem builder and drops its result: since the
// builders return a new Problem, such a call does nothing, which is always
// a bug (three were found in the middlewares when the builders changed).
func TestNoDiscardedBuilder(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if es, ok := n.(*ast.ExprStmt); ok {
				if call, ok := es.X.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && builderMethods[sel.Sel.Name] {
						t.Errorf("%s: the result of %s is discarded; builders return a new Problem", fset.Position(es.Pos()), sel.Sel.Name)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
