package mcpfault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/middleware"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOversizedCallKeepsTheSession: a 10 MB tools/call through a 1 MiB body
// limit reaches the SDK's client as JSON-RPC -32600 whose data is the
// request_too_large problem, and the session goes on: the next call works.
// At every protocol version, with and without sessions.
func TestOversizedCallKeepsTheSession(t *testing.T) {
	big := strings.Repeat("x", 10<<20)
	for _, stateless := range []bool{true, false} {
		srv, logs := sourceServer(t, stateless, middleware.WithBodyLimit(1<<20))
		versions := mcp.SupportedProtocolVersions()
		if !stateless {
			versions = versions[1:2]
		}
		for _, version := range versions {
			cs := connectHTTP(t, srv.URL, version)
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"source": big}})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("%s stateless=%v: want JSON-RPC -32600, got %v", version, stateless, err)
			}
			var doc map[string]any
			if err := json.Unmarshal(wire.Data, &doc); err != nil {
				t.Fatalf("data %s: %v", wire.Data, err)
			}
			if doc["code"] != "request_too_large" || doc["status"] != 413.0 || doc["action"] != "fix_request" ||
				!strings.Contains(doc["detail"].(string), "1048576") || doc["correlation_id"] == "" {
				t.Errorf("%s: data %s", version, wire.Data)
			}
			if !strings.HasPrefix(wire.Message, "request_too_large: ") {
				t.Errorf("%s: message %q", version, wire.Message)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"source": "four"}})
			if err != nil || res.IsError {
				t.Fatalf("%s stateless=%v: the call after the oversized one: %v %v", version, stateless, res, err)
			}
		}
		if n := strings.Count(logs.String(), `"code":"request_too_large"`); n != len(versions) {
			t.Errorf("stateless=%v: %d request_too_large records, want one per refusal (%d)", stateless, n, len(versions))
		}
	}
}

// unsized hides a body's length, so the client sends it chunked and the
// limit cuts it while the handler reads.
type unsized struct{ io.Reader }

func post(t *testing.T, url string, body io.Reader, accept string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, body)
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, raw
}

// TestOversizedBodyAnswer: the id is read from the bytes before the limit
// wherever the client put it, in a body of declared or unknown length; a
// plain HTTP client, or one that asks for a problem, keeps problem+json.
func TestOversizedBodyAnswer(t *testing.T) {
	srv, _ := sourceServer(t, true, middleware.WithBodyLimit(64<<10))
	pad := strings.Repeat("y", 200<<10)
	mcpAccept := "application/json, text/event-stream"
	for _, c := range []struct {
		name, body, accept string
		chunked            bool
		wantID             string // "" : problem+json expected
	}{
		{"string id first", `{"jsonrpc":"2.0","id":"req-\u00e9 7","method":"tools/call","params":{"name":"echo","arguments":{"source":"` + pad + `"}}}`, mcpAccept, false, `"req-\u00e9 7"`},
		{"numeric id after the params", `{"method":"tools/call","params":{"name":"echo","arguments":{"source":"` + pad + `","nested":[{"id":1}]}},"jsonrpc":"2.0","id":9}`, mcpAccept, false, `9`},
		{"unknown length, spaces", "{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : -12 , \"method\":\"tools/call\",\"params\":{\"arguments\":{\"s\":\"" + pad + `"}}}`, "*/*", true, `-12`},
		{"no id", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + pad + `"}}`, "", false, `null`},
		{"plain JSON", `{"name":"` + pad + `"}`, "application/json", false, ""},
		{"asks for a problem", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"x":"` + pad + `"}}`, "application/problem+json", false, ""},
		{"not JSON-RPC 2.0", `{"jsonrpc":"1.0","id":3,"method":"x","params":{"x":"` + pad + `"}}`, mcpAccept, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var body io.Reader = bytes.NewReader([]byte(c.body))
			if c.chunked {
				body = unsized{body}
			}
			resp, raw := post(t, srv.URL, body, c.accept)
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d: %s", resp.StatusCode, raw)
			}
			if c.wantID == "" {
				var p map[string]any
				if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" || json.Unmarshal(raw, &p) != nil || p["code"] != "request_too_large" {
					t.Fatalf("want the problem+json answer, got %s %s", ct, raw)
				}
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q: %s", ct, raw)
			}
			var msg struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int             `json:"code"`
					Message string          `json:"message"`
					Data    json.RawMessage `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal(raw, &msg); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			var p struct {
				Code          string `json:"code"`
				CorrelationID string `json:"correlation_id"`
			}
			_ = json.Unmarshal(msg.Error.Data, &p)
			if msg.JSONRPC != "2.0" || string(msg.ID) != c.wantID || msg.Error.Code != -32600 || p.Code != "request_too_large" ||
				p.CorrelationID == "" || p.CorrelationID != resp.Header.Get("X-Request-Id") {
				t.Errorf("answer %s (X-Request-Id %q)", raw, resp.Header.Get("X-Request-Id"))
			}
		})
	}
}
