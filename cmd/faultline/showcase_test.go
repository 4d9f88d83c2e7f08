package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

// startExample builds an example app and runs it on a free loopback port,
// as a reader of the README would, until the test ends.
func startExample(t *testing.T, name string, args ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	build := exec.Command("go", "build", "-o", bin, "github.com/faultline-go/faultline/examples/"+name)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		listening := regexp.MustCompile(`listening on (http://\S+)`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case base := <-found:
		return base
	case <-time.After(20 * time.Second):
		t.Fatalf("%s printed no listening line", name)
		return ""
	}
}

// The showcase passes every check: a failure here is a bug in the kit or
// in the probe. The bare command line is the README's.
func TestShowcasePassesEveryCheck(t *testing.T) {
	base := startExample(t, "showcase", "-limit", "2", "-limit-window", "1m", "-timeout", "1s")
	code, rep, stderr := probeRun(t, base, "-rate", "500")
	if code != exitPass {
		t.Errorf("bare run: exit %d, stderr %s\n%s", code, stderr, dump(rep))
	}
	for _, c := range rep.Checks {
		if c.Verdict == verdictFail {
			t.Errorf("bare run: %s failed", c.Check)
		}
	}
	if v := verdicts(rep); v["unknown-route"] != verdictPass || v["accept"] != verdictPass || v["request-id"] != verdictPass || v["canary"] != verdictPass {
		t.Errorf("bare run verdicts %v", v)
	}

	full := []string{"-contract", "faultline", "-rate", "500",
		"-route", "/healthz", "-route", "/v1/orders", "-route", "/v1/orders/{id}", "-route", "/v1/limited",
		"-allow-writes", "-max-body", "4096", "-slow", "200ms", "-burst", "4", "-burst-route", "/v1/limited"}
	code, rep, stderr = probeRun(t, base, full...)
	if code != exitPass {
		t.Errorf("full run: exit %d, stderr %s\n%s", code, stderr, dump(rep))
	}
	assertVerdicts(t, rep, allPass())
	var methods []string
	for _, c := range rep.Checks {
		if c.Check == "method-not-allowed" {
			for _, r := range c.Requests {
				methods = append(methods, r.Method+" "+r.Target)
			}
		}
	}
	// The TRACE answers taught the probe each route's methods.
	for _, want := range []string{"TRACE /healthz", "POST /healthz", "GET /v1/orders", "DELETE /v1/limited", "PUT /v1/orders/faultline-probe"} {
		if !slices.Contains(methods, want) {
			t.Errorf("method-not-allowed did not send %s (sent %q)", want, methods)
		}
	}
}

// examples/stdlib, the kit on a bare ServeMux, passes every check it can
// be given (it has no rate limit, so no burst).
func TestStdlibExamplePassesEveryCheck(t *testing.T) {
	base := startExample(t, "stdlib", "-timeout", "1s")
	code, rep, stderr := probeRun(t, base, "-contract", "faultline", "-rate", "500",
		"-route", "/healthz", "-route", "/v1/orders", "-route", "/v1/orders/{id}",
		"-allow-writes", "-max-body", "65536", "-slow", "200ms")
	if code != exitPass {
		t.Errorf("exit %d, stderr %s\n%s", code, stderr, dump(rep))
	}
	want := allPass()
	want["burst"] = verdictSkip
	assertVerdicts(t, rep, want)
}
