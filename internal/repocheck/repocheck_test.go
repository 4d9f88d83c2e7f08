// Package repocheck holds tests about the repository itself: what the
// README promises a new user and what CI runs.
package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The quick start's test command and CI's race run cover every module of
// the go.work: a module left out would never be tested by either.
func TestTestCommandCoversEveryModule(t *testing.T) {
	use := regexp.MustCompile(`(?m)^\s+(\.(?:/[\w./-]+)?)\s*$`)
	var patterns []string
	for _, m := range use.FindAllStringSubmatch(read(t, "go.work"), -1) {
		if m[1] == "." {
			patterns = append(patterns, "./...")
		} else {
			patterns = append(patterns, m[1]+"/...")
		}
	}
	if len(patterns) < 2 {
		t.Fatalf("go.work lists %v", patterns)
	}
	readme := regexp.MustCompile(`(?m)^go test (.*?)(?:\s+#.*)?$`).FindStringSubmatch(read(t, "README.md"))
	ci := regexp.MustCompile(`(?m)^go test -race -count=1 (.*)$`).FindStringSubmatch(read(t, ".ci/run"))
	if readme == nil || ci == nil {
		t.Fatalf("no test command found (README %v, .ci/run %v)", readme, ci)
	}
	if strings.Fields(readme[1])[0] != "./..." {
		t.Errorf("the quick start's test command should start with go test ./...: %q", readme[1])
	}
	for _, p := range patterns {
		for name, cmd := range map[string]string{"README.md": readme[1], ".ci/run": ci[1]} {
			if !strings.Contains(" "+cmd+" ", " "+p+" ") {
				t.Errorf("%s's test command lacks %s (a module of go.work): %q", name, p, cmd)
			}
		}
	}
	if !strings.Contains(read(t, "README.md"), "go run ./examples/showcase") {
		t.Errorf("the quick start lost go run ./examples/showcase")
	}
}
