package problemdocs_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
)

// chromium returns the headless browser's path. A missing browser skips
// the test on a developer machine and fails it in CI, which installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set and no chromium is installed (.ci/run installs it)")
	}
	t.Skip("no chromium on this machine")
	return ""
}

// dumpDOM loads url in headless Chromium and returns the DOM after it
// rendered, so what is checked is what a browser built, not the bytes sent.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(), "--dump-dom", url)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

func TestPagesRenderInABrowser(t *testing.T) {
	browser := chromium(t)
	srv := serve(t, problem.NewWriter(problem.WithLegacy(problem.Legacy{Until: time.Date(2099, 9, 30, 0, 0, 0, 0, time.UTC)})))
	index := dumpDOM(t, browser, srv.URL+"/problems/")
	if !strings.Contains(index, `<table id="codes">`) || !strings.Contains(index, `<a href="rate_limited">`) {
		t.Fatalf("index DOM:\n%s", index)
	}
	page := dumpDOM(t, browser, srv.URL+"/problems/rate_limited")
	for _, want := range []string{`<h1 id="title">Too many requests</h1>`, `<code id="action">retry</code>`, `"retry_after_ms": 2400`, `<a href="./">`,
		`<time id="legacy-until" datetime="2099-09-30T00:00:00Z">2099-09-30</time>`, `"error": "rate_limited"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page DOM lacks %q:\n%s", want, page)
		}
	}
}
