package main

import (
	"bufio"
	"bytes"
	"context"
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestAgainstShowcase builds the real showcase, starts it on a free loopback
// port and runs the whole script against it.
func TestAgainstShowcase(t *testing.T) {
	base := startShowcase(t)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := []string{"-base", base, "-backoff", "20ms", "-max-backoff", "40ms", "-deadline", "5s"}
	if err := run(ctx, args, &out, io.Discard); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	t.Log("\n" + got)
	for _, want := range []string{
		`(?m)^GET /healthz \[1\] ok 200$`,
		`(?m)^POST /v1/orders \[1\] ok 201$`,
		`(?m)^POST /v1/orders \[1\] validation_failed: .+\n  -> fix_request: .+\n  exit code 2$`,
		`(?m)^GET /v1/orders/ord_404 \[1\] not_found: .+\n  -> fix_request: .+\n  exit code 2$`,
		`(?m)^DELETE /v1/orders/ord_1 \[1\] policy_denied: .+\n  -> stop: the server refuses: do not work around it\n  exit code 4$`,
		`(?m)^GET /v1/upstream \[1\] upstream_error: .+\n  -> retry in \S+\n` +
			`GET /v1/upstream \[2\] upstream_error: .+\n  -> retry in \S+\n` +
			`GET /v1/upstream \[3\] upstream_error: .+\n  -> stop: attempts exhausted\n  exit code 6$`,
		`(?m)^GET /v1/slow \[3\] timeout: .+\n  -> stop: attempts exhausted\n  exit code 5$`,
		`(?m)^POST /v1/slow \[1\] timeout: .+\n  -> verify: .+\n  exit code 7$`,
		`(?m)^POST /v1/slow \(Idempotency-Key\) \[3\] timeout: .+\n  -> stop: attempts exhausted\n  exit code 5$`,
		`(?m)^GET /v1/limited \[1\] rate_limited: .+\n  -> retry in \d.*\nGET /v1/limited \[2\] ok 200$`,
	} {
		if !regexp.MustCompile(want).MatchString(got) {
			t.Errorf("output lacks %s", want)
		}
	}
	if strings.Contains(got, "POST /v1/slow [2]") {
		t.Error("a write with unknown outcome and no Idempotency-Key was replayed")
	}
}

var listeningRE = regexp.MustCompile(`listening on (http://\S+)`)

func startShowcase(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is needed to build the showcase: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "showcase")
	build := exec.Command(goTool, "build", "-o", bin, "../showcase")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ../showcase: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-timeout", "200ms", "-limit", "3", "-limit-window", "1s")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testlog.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Error("showcase did not stop on interrupt")
		}
	})
	found := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		_ = cmd.Wait()
	}()
	select {
	case base := <-found:
		return base
	case <-exited:
		t.Fatalf("showcase exited before listening:\n%s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("showcase did not listen:\n%s", stderr.String())
	}
	return ""
}
