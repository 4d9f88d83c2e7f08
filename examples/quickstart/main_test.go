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

type answer struct {
	status int
	header http.Header
	doc    map[string]any
}

func send(t *testing.T, base, method, path, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, header: res.Header}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		if err := json.Unmarshal(raw, &a.doc); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return a
}

// Every variant answers the router's own failures and a handler's bare
// http.Error as problems, and lets a success through untouched.
func TestEveryRouterAnswersProblems(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	for name, h := range map[string]http.Handler{
		"chi":        newChiRouter(newShelf()),
		"mux":        newServeMux(newShelf()),
		"configured": newConfiguredRouter(newShelf(), logger),
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			if a := send(t, srv.URL, http.MethodGet, "/books/1", ""); a.status != 200 || a.doc != nil || a.header.Get("Content-Type") != "application/json" {
				t.Errorf("a success was touched: %d %v", a.status, a.header)
			}
			for _, c := range []struct{ method, path, code string }{
				{http.MethodGet, "/books/zz9", "not_found"},
				{http.MethodGet, "/shelves/1", "not_found"},
				{http.MethodDelete, "/books/1", "method_not_allowed"},
				{http.MethodPut, "/books/1", "method_not_allowed"},
			} {
				a := send(t, srv.URL, c.method, c.path, "")
				if a.doc["code"] != c.code || a.doc["status"] != float64(a.status) || a.header.Get("X-Request-Id") == "" ||
					a.doc["correlation_id"] != a.header.Get("X-Request-Id") {
					t.Errorf("%s %s: %d %v %v", c.method, c.path, a.status, a.header, a.doc)
				}
				if c.code == "method_not_allowed" && !strings.Contains(a.header.Get("Allow"), http.MethodGet) {
					t.Errorf("%s %s: Allow %q", c.method, c.path, a.header.Get("Allow"))
				}
			}
		})
	}
}

// The configured router writes a handler's returned errors through its own
// writer: bind's problems as they are, a mapped domain error with the
// mapper's detail and the writer's base URI, the raw error only in the log.
func TestConfiguredRouterWritesReturnedErrors(t *testing.T) {
	var logs bytes.Buffer
	srv := httptest.NewServer(newConfiguredRouter(newShelf(), slog.New(slog.NewJSONHandler(&logs, nil))))
	defer srv.Close()
	if a := send(t, srv.URL, http.MethodPost, "/books", `{"id":"7","title":"Concurrency in Go"}`); a.status != http.StatusCreated {
		t.Fatalf("create: %d %v", a.status, a.doc)
	}
	a := send(t, srv.URL, http.MethodPost, "/books", `{"id":"7","title":"Another title"}`)
	if a.status != http.StatusConflict || a.doc["code"] != "conflict" || a.doc["detail"] != "A book with this ID exists already." ||
		a.doc["type"] != "https://errors.example.com/conflict" {
		t.Fatalf("mapped error: %d %v", a.status, a.doc)
	}
	if !strings.Contains(logs.String(), errBookExists.Error()) || !strings.Contains(logs.String(), a.header.Get("X-Request-Id")) {
		t.Fatalf("the raw error is not logged under the correlation ID: %s", logs.String())
	}
	if a := send(t, srv.URL, http.MethodPost, "/books", `{"id":"8","title":`); a.status != 400 || a.doc["code"] != "invalid_json" {
		t.Fatalf("truncated body: %d %v", a.status, a.doc)
	}
	a = send(t, srv.URL, http.MethodPost, "/books", `{"id":"no spaces!","title":""}`)
	if errs, _ := a.doc["errors"].([]any); a.status != 422 || a.doc["code"] != "validation_failed" || len(errs) != 2 {
		t.Fatalf("invalid fields: %d %v", a.status, a.doc)
	}
	if a := send(t, srv.URL, http.MethodPost, "/books", `{"id":"9","title":"`+strings.Repeat("x", 1<<20)+`"}`); a.status != 413 || a.doc["code"] != "request_too_large" {
		t.Fatalf("oversized body: %d %v", a.status, a.doc)
	}
}
