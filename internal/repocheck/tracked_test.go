package repocheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTrackedSize is the size above which a tracked file is almost surely a
// build output or a data dump: the repository holds source, and a binary
// committed once stays in every clone's history for good.
const maxTrackedSize = 1 << 20

// TestRepositoryHoldsSource fails on any tracked file over 1 MiB and on any
// tracked executable (a built example binary was re-added once although
// .gitignore names it).
func TestRepositoryHoldsSource(t *testing.T) {
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "-s", "-z").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git ls-files: %v", err)
		}
		t.Skipf("not a git checkout: %v", err)
	}
	files := 0
	for _, entry := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if !ok {
			continue
		}
		files++
		mode := strings.Fields(meta)[0]
		if mode == "100755" && !strings.HasSuffix(path, ".sh") && !strings.HasPrefix(path, ".ci/") {
			t.Errorf("%s is tracked as an executable: build outputs stay out of the repository", path)
		}
		info, err := os.Stat(filepath.Join(root, path))
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		if info.Size() > maxTrackedSize {
			t.Errorf("%s is %d bytes, over the %d-byte limit for a tracked file", path, info.Size(), maxTrackedSize)
		}
	}
	if files < 100 {
		t.Fatalf("git ls-files listed %d files; expected the whole repository", files)
	}
}
