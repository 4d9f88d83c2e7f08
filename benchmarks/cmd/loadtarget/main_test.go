package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

func TestRoutes(t *testing.T) {
	for _, mode := range []string{"bare", "faultline"} {
		var logs bytes.Buffer
		h, err := newHandler(mode, &logs)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		res, err := http.Get(srv.URL + "/ok")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != string(okBody) {
			t.Errorf("%s /ok: %d %s", mode, res.StatusCode, body)
		}
		res, err = http.Get(srv.URL + "/fail")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(res.Body)
		res.Body.Close()
		srv.Close()
		if res.StatusCode != 500 {
			t.Errorf("%s /fail: %d", mode, res.StatusCode)
		}
		if mode != "faultline" {
			continue
		}
		p, err := problem.Parse(body)
		if err != nil || p.Code() != "internal" {
			t.Errorf("faultline /fail is not the internal problem: %v %s", err, body)
		}
		if strings.Contains(string(body), "hunter2") || strings.Contains(string(body), "10.1.2.3") {
			t.Errorf("the error text leaked: %s", body)
		}
		if !strings.Contains(logs.String(), "10.1.2.3") || strings.Contains(logs.String(), "hunter2") {
			t.Errorf("the log should keep the host and redact the password: %s", logs.String())
		}
	}
	var logs bytes.Buffer
	h, err := newHandler("handwritten", &logs)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/fail")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 500 || res.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(logs.String(), "hunter2") {
		t.Errorf("handwritten /fail: %d %q, log %s", res.StatusCode, res.Header.Get("Content-Type"), logs.String())
	}
	if _, err := newHandler("other", io.Discard); err == nil {
		t.Error("an unknown mode must be refused")
	}
}
