package toolarge_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// request_too_large is built in one place in the root module: every other
// package asks this one, so its detail cannot drift between the layers that refuse a body.
func TestOneConstructor(t *testing.T) {
	built := regexp.MustCompile(`New\((problem\.)?RequestTooLarge\)`)
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root {
			// Nested modules (pgfault, mcpfault, ...) are their own.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if built.Match(src) && filepath.ToSlash(path) != "../../internal/toolarge/toolarge.go" {
			t.Errorf("%s builds request_too_large itself; use toolarge.Problem", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
