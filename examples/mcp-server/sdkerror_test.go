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
