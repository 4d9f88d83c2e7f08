package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxReadmeWords is what a newcomer reads in ten minutes; the rest lives in
// the package docs the README links to.
const maxReadmeWords = 2500

// fencedBlocks returns the bodies of the README's fenced blocks of one
// language, in order.
func fencedBlocks(readme, lang string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(readme, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```"+lang:
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// dedent removes the indentation every non-blank line shares.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	return out
}

// paragraphs splits a Go block at its blank lines: each paragraph is a run
// of consecutive lines of the file it comes from, and the blank lines
// between them mark what the README leaves out.
func paragraphs(block string) [][]string {
	var out [][]string
	var cur []string
	for _, l := range strings.Split(block, "\n") {
		if strings.TrimSpace(l) == "" {
			if cur != nil {
				out = append(out, dedent(cur))
				cur = nil
			}
			continue
		}
		cur = append(cur, l)
	}
	if cur != nil {
		out = append(out, dedent(cur))
	}
	return out
}

// indexLines returns the first line index at or after from where para
// appears as consecutive lines of file (both dedented alike), or -1.
func indexLines(file []string, para []string, from int) int {
	for i := from; i+len(para) <= len(file); i++ {
		if strings.TrimSpace(file[i]) != strings.TrimSpace(para[0]) {
			continue
		}
		got := dedent(file[i : i+len(para)])
		match := true
		for j := range para {
			if got[j] != para[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// excerptOf reports whether every paragraph of block appears, in order and
// without overlapping, in file.
func excerptOf(block string, file []string) bool {
	at := 0
	for _, para := range paragraphs(block) {
		i := indexLines(file, para, at)
		if i < 0 {
			return false
		}
		at = i + len(para)
	}
	return true
}

// readmes lists the repository's README files (the root's and those of the
// integration modules), relative to its root.
func readmes(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "README.md" {
			rel, _ := filepath.Rel(root, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every Go block of every README is compiled: it is an excerpt of one Go
// file that a module of the go.work builds (examples/quickstart holds the
// root README's first ones), its paragraphs in the file's order. A snippet
// edited in a README alone, or an example changed without its snippet,
// fails here.
func TestReadmeGoBlocksAreCompiled(t *testing.T) {
	if len(fencedBlocks(read(t, "README.md"), "go")) == 0 {
		t.Fatal("README.md has no Go block")
	}
	files := map[string][]string{}
	for _, rel := range goFiles(t) {
		files[rel] = strings.Split(read(t, rel), "\n")
	}
	for _, readme := range readmes(t) {
		for _, block := range fencedBlocks(read(t, readme), "go") {
			found := false
			for _, lines := range files {
				if excerptOf(block, lines) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("this Go block of %s is not an excerpt of any Go file of the repository (copy it from the example it shows, paragraph by paragraph):\n%s", readme, block)
			}
		}
	}
}

// The README opens as a newcomer needs it: the go get line, the Go version
// go.mod asks for, and as the first Go block the smallest adoption (Stack
// and the router's 404 and 405), short enough to read at a glance.
func TestReadmeOpensWithAdoption(t *testing.T) {
	readme := read(t, "README.md")
	firstSection := readme
	if i := strings.Index(readme, "\n## "); i >= 0 {
		if j := strings.Index(readme[i+4:], "\n## "); j >= 0 {
			firstSection = readme[:i+4+j]
		}
	}
	if !strings.Contains(firstSection, "go get github.com/faultline-go/faultline\n") {
		t.Error("the README's opening lacks `go get github.com/faultline-go/faultline`")
	}
	version := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(read(t, "go.mod"))
	if version == nil || !strings.Contains(firstSection, "Go "+version[1]) {
		t.Errorf("the README's opening does not name the Go version go.mod asks for (%v)", version)
	}
	blocks := fencedBlocks(readme, "go")
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go block")
	}
	first := blocks[0]
	if !strings.Contains(firstSection, first) {
		t.Error("the first Go block is not in the README's opening")
	}
	for _, want := range []string{"middleware.Stack(", "middleware.NotFound()", "middleware.MethodNotAllowed()", `"github.com/faultline-go/faultline/middleware"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first Go block lacks %s:\n%s", want, first)
		}
	}
	if n := strings.Count(first, "\n") + 1; n > 12 {
		t.Errorf("the first Go block is %d lines; the smallest adoption should be read at a glance", n)
	}
	for _, want := range []string{"RequestID", "Recoverer", "correlation.ID", "middleware.GetReqID", "WithBodyLimit", "WithRequestTimeout", "http.NewServeMux"} {
		if !strings.Contains(firstSection, want) {
			t.Errorf("the README's opening does not mention %s (what Stack replaces from chi, what it does not do by default, the ServeMux way)", want)
		}
	}
}

// The README stays a ten-minute read, counted as wc -w counts.
func TestReadmeWordBudget(t *testing.T) {
	if n := len(strings.Fields(read(t, "README.md"))); n > maxReadmeWords {
		t.Errorf("README.md has %d words, budget %d: move detail into the package docs it links to", n, maxReadmeWords)
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of every README reaches a file or directory of the
// repository, every link to a package's documentation a package it holds,
// and every in-page anchor a heading: the catalogues moved out of the
// README are found from it.
func TestReadmeLinksResolve(t *testing.T) {
	code := regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
	for _, name := range readmes(t) {
		readme := read(t, name)
		anchors := map[string]bool{}
		for _, h := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(readme, -1) {
			anchors[slug(h[1])] = true
		}
		for _, m := range mdLink.FindAllStringSubmatch(code.ReplaceAllString(readme, ""), -1) {
			target := m[1]
			if pkg, ok := strings.CutPrefix(target, "https://pkg.go.dev/github.com/faultline-go/faultline/"); ok {
				if !hasGo(t, strings.TrimSuffix(pkg, "/")) {
					t.Errorf("%s links to the package doc of %s, which the repository does not hold", name, pkg)
				}
				continue
			}
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			if path == "" {
				if !anchors[anchor] {
					t.Errorf("%s links to #%s, which no heading names", name, anchor)
				}
				continue
			}
			if _, err := os.Stat(filepath.Join("..", "..", filepath.Dir(name), filepath.FromSlash(path))); err != nil {
				t.Errorf("%s links to %s: %v", name, path, err)
			}
		}
	}
}

// hasGo reports whether the repository directory rel holds Go source.
func hasGo(t *testing.T, rel string) bool {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(rel), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m) > 0
}

// slug is the anchor GitHub gives a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// excerptOf accepts a file's lines with runs left out, at any indentation,
// and refuses a changed line, a reordered paragraph or text from elsewhere.
func TestExcerptOf(t *testing.T) {
	file := strings.Split("package p\n\nfunc f() {\n\tx := 1\n\ty := x\n\t_ = y\n}\n\nfunc g() {}\n", "\n")
	for block, want := range map[string]bool{
		"x := 1\ny := x":            true,
		"func f() {\n\n\t_ = y\n}":  true,
		"func f() {\n\n_ = y\n}":    false,
		"package p\n\nfunc g() {}":  true,
		"\tx := 1\n\ty := x":        true,
		"x := 1\ny := 2":            false,
		"func g() {}\n\nfunc f() {": false,
		"x := 1\n_ = y":             false,
		"func f() {\nx := 1":        false,
		"package q":                 false,
		"y := x\n\ny := x":          false,
	} {
		if got := excerptOf(block, file); got != want {
			t.Errorf("excerptOf(%q) = %v, want %v", block, got, want)
		}
	}
}
