package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWiringAnswersProblems(t *testing.T) {
	var logs bytes.Buffer
	srv := httptest.NewServer(newRouter(newWriter(slog.New(slog.NewJSONHandler(&logs, nil)))))
	defer srv.Close()
	cases := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{http.MethodPost, "/v1/orders", `{"sku":"KB-1","quantity":1}`, 201, ""},
		{http.MethodPost, "/v1/orders", `{"sku":`, 400, "invalid_json"},
		{http.MethodPost, "/v1/orders", `{"sku":"","quantity":0}`, 422, "validation_failed"},
		{http.MethodPost, "/v1/orders", `{"sku":"KB-0","quantity":1}`, 409, "conflict"},
		{http.MethodGet, "/v1/orders/7", "", 404, "not_found"},
		{http.MethodHead, "/v1/orders/7", "", 404, ""},
		{http.MethodDelete, "/v1/orders/7", "", 405, "method_not_allowed"},
		{http.MethodGet, "/nowhere", "", 404, "not_found"},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Fatalf("%s %s: %d %s", c.method, c.path, resp.StatusCode, body)
		}
		if c.code == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil || m["code"] != c.code || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s %s: %s %s", c.method, c.path, resp.Header.Get("Content-Type"), body)
		}
	}
	if strings.Contains(logs.String(), "out of stock") == false {
		t.Fatalf("the mapped error is not in the log: %s", logs.String())
	}
}
