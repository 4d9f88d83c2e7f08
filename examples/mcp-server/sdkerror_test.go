package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestSDKOwnErrorsAreProblems: errors the SDK answers before any
// middleware runs (params that do not decode into the method's type) reach
// the agent as JSON-RPC errors whose data is the problem; the SDK's message,
// which quotes the request and names Go types, stays in the log.
func TestSDKOwnErrorsAreProblems(t *testing.T) {
	f := start(t)
	for name, body := range map[string]string{
		"params not an object":   `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"s3cretPW"}`,
		"name of the wrong type": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5,"arguments":{}}}`,
	} {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+bearerToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Request-Id", "corr-sdk-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var msg struct {
			ID    int `json:"id"`
			Error struct {
				Code    int             `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("%s: %d %s: %v", name, resp.StatusCode, raw, err)
		}
		p := decode(t, msg.Error.Data)
		if msg.ID != 7 || (msg.Error.Code != -32602 && msg.Error.Code != -32600) || p.CorrelationID != "corr-sdk-1" ||
			(p.Code != "bad_request" && p.Code != "invalid_json") || p.Action != "fix_request" {
			t.Errorf("%s: %d %s", name, resp.StatusCode, raw)
		}
		for _, s := range []string{"s3cretPW", "unmarshal", "CallToolParams", "Go value", "handling '"} {
			if strings.Contains(string(raw), s) {
				t.Errorf("%s: the SDK's raw text reached the agent (%q): %s", name, s, raw)
			}
		}
	}
	if !strings.Contains(f.logs.String(), "CallToolParams") {
		t.Errorf("the SDK's own message was not logged:\n%s", f.logs)
	}
}

// TestUndispatchableMessagesAreJSONRPCErrors: a body that is not JSON, a
// call without params and an unknown method, which the SDK refuses with a
// plain-text 400, reach the client as JSON-RPC errors (parse error, invalid
// request, method not found) whose data is the problem, its text logged;
// a transport refusal the SDK explains in plain text (Accept header) stays
// a problem+json body.
func TestUndispatchableMessagesAreJSONRPCErrors(t *testing.T) {
	f := start(t)
	post := func(body, accept string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+bearerToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)
		req.Header.Set("X-Request-Id", "corr-sdk-2")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp, raw
	}
	for body, want := range map[string]struct {
		rpc  int
		code string
	}{
		`{"jsonrpc":"2.0","id":1,"method":`:                          {-32700, "invalid_json"},
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`:             {-32600, "invalid_json"},
		`{"jsonrpc":"2.0","id":1,"method":"s3cretPW/x","params":{}}`: {-32601, "not_found"},
	} {
		resp, raw := post(body, "application/json, text/event-stream")
		var msg struct {
			Error struct {
				Code int             `json:"code"`
				Data json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw, &msg); err != nil || resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %q %s", body, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
		}
		p := decode(t, msg.Error.Data)
		if msg.Error.Code != want.rpc || p.Code != want.code || p.CorrelationID != "corr-sdk-2" || p.Action != "fix_request" {
			t.Errorf("%s: %s", body, raw)
		}
		for _, s := range []string{"s3cretPW", "unmarshal", "malformed", "not handled", "EOF"} {
			if strings.Contains(string(raw), s) {
				t.Errorf("%s: the SDK's text reached the client (%q): %s", body, s, raw)
			}
		}
	}
	if !strings.Contains(f.logs.String(), "malformed payload") {
		t.Errorf("the SDK's text was not logged:\n%s", f.logs)
	}
	resp, raw := post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "text/html")
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/problem+json" || !strings.Contains(string(raw), `"code":"bad_request"`) {
		t.Errorf("Accept refusal: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
}
