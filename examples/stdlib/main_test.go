package main

import (
	"context"
	"encoding/json"
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
)

var listeningRE = regexp.MustCompile(`listening on (http://\S+)`)

func start(t *testing.T) (string, *testlog.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &testlog.Buffer{}, &testlog.Buffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, stdout, stderr) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	for range 1000 {
		if m := listeningRE.FindStringSubmatch(stdout.String()); m != nil {
			return m[1], stderr
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no listening line: %s %s", stdout, stderr)
	return "", nil
}

func call(t *testing.T, method, url, contentType, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func expectProblem(t *testing.T, res *http.Response, body []byte, status int, code string) *problem.Problem {
	t.Helper()
	if res.StatusCode != status || res.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("got %d %q %s, want %d problem", res.StatusCode, res.Header.Get("Content-Type"), body, status)
	}
	p, err := problem.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Code()) != code || p.Status() != status {
		t.Errorf("code %q status %d, want %q %d", p.Code(), p.Status(), code, status)
	}
	if id := res.Header.Get("X-Request-Id"); id == "" || id != p.CorrelationID() {
		t.Errorf("correlation_id %q vs header %q", p.CorrelationID(), id)
	}
	return p
}

func TestStdlib(t *testing.T) {
	base, logs := start(t)

	res, body := call(t, "GET", base+"/healthz", "", "")
	if res.StatusCode != 200 {
		t.Fatalf("healthz: %d %s", res.StatusCode, body)
	}

	res, body = call(t, "POST", base+"/v1/orders", "application/json", `{"sku":"KB202","quantity":3}`)
	if res.StatusCode != 201 {
		t.Fatalf("create: %d %s", res.StatusCode, body)
	}
	var o order
	if err := json.Unmarshal(body, &o); err != nil {
		t.Fatal(err)
	}
	if res, _ := call(t, "GET", base+"/v1/orders/"+o.ID, "", ""); res.StatusCode != 200 {
		t.Errorf("created order: %d", res.StatusCode)
	}

	res, body = call(t, "POST", base+"/v1/orders", "application/json", `{"sku":"","quantity":500}`)
	p := expectProblem(t, res, body, 422, "validation_failed")
	if len(p.Errors()) != 2 {
		t.Errorf("want both field errors: %+v", p.Errors())
	}

	res, body = call(t, "GET", base+"/v1/orders/ord_404", "", "")
	expectProblem(t, res, body, 404, "not_found")

	// ServeMux's own answers, rewritten by Guard.
	res, body = call(t, "GET", base+"/nowhere", "", "")
	expectProblem(t, res, body, 404, "not_found")
	res, body = call(t, "DELETE", base+"/v1/orders/ord_1", "", "")
	expectProblem(t, res, body, 405, "method_not_allowed")
	if allow := res.Header.Get("Allow"); allow != "GET, HEAD" {
		t.Errorf("Allow = %q, want ServeMux's own list kept", allow)
	}

	res, body = call(t, "GET", base+"/v1/panic", "", "")
	expectProblem(t, res, body, 500, "internal")

	res, body = call(t, "GET", base+"/v1/legacy", "", "")
	p = expectProblem(t, res, body, 503, "unavailable")
	if strings.Contains(string(body), "10.0.3.7") || strings.Contains(string(body), "pool") {
		t.Errorf("http.Error text reached the client: %s", body)
	}
	if !strings.Contains(logs.String(), p.CorrelationID()) {
		t.Errorf("no log line for %s:\n%s", p.CorrelationID(), logs)
	}

	res, body = call(t, "POST", base+"/v1/orders", "application/json", `{"sku":"`+strings.Repeat("x", 70<<10)+`"}`)
	expectProblem(t, res, body, 413, "request_too_large")
}
