package mcpfault_test

import (
	"context"
	"encoding/json"
	"github.com/faultline-go/faultline/internal/testlog"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/mcpfault"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSDKOwnErrorsInServerSentEvents: over the streamable transport's
// event stream too, an error the SDK answers on its own (params that do
// not decode) carries the problem as data, and its raw message is logged,
// not sent.
func TestSDKOwnErrorsInServerSentEvents(t *testing.T) {
	logs := &testlog.Buffer{}
	wr := problem.NewWriter(problem.WithLogger(slog.New(sanitize.NewLogHandler(slog.NewJSONHandler(logs, nil)))))
	s := newServer(logs, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(middleware.Stack(middleware.WithWriter(wr))(mcpfault.Handler(h)))
	defer srv.Close()

	resp, body := postRPC(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":["t"]}}`, "X-Request-Id", "corr-sse-1")
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") ||
		!strings.Contains(body, "\ndata: {") || !strings.HasSuffix(body, "}\n\n") ||
		!strings.Contains(body, `"code":-32602,"message":"bad_request: `) ||
		!strings.Contains(body, `"data":{"type":"https://faultline.dev/problems/bad_request"`) ||
		!strings.Contains(body, `"correlation_id":"corr-sse-1"`) {
		t.Fatalf("%v\n%s", resp.Header, body)
	}
	if strings.Contains(body, "unmarshal") || strings.Contains(body, "CallToolParams") {
		t.Fatalf("the SDK's raw text reached the agent:\n%s", body)
	}
	if !strings.Contains(logs.String(), "CallToolParams") {
		t.Errorf("the SDK's message was not logged:\n%s", logs)
	}
}

// TestHandlerAloneNeverSendsTheSDKsText: without the kit's stack in front,
// a body that is not JSON is still a JSON-RPC parse error with a problem,
// not the SDK's plain text.
func TestHandlerAloneNeverSendsTheSDKsText(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(mcpfault.Handler(h))
	defer srv.Close()
	resp, body := postRPC(t, srv.URL, `{"jsonrpc":`)
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" ||
		!strings.HasPrefix(body, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid_json: `) ||
		strings.Contains(body, "malformed") || strings.Contains(body, "EOF") {
		t.Fatalf("%d %v\n%s", resp.StatusCode, resp.Header, body)
	}
}

// TestBatchIsAnInvalidRequest: since protocol 2025-06-18 a JSON-RPC batch
// is not a valid MCP message. The SDK refuses it in plain text; the agent
// gets the contract's row for a malformed request, -32600 with the problem
// as data, not a transport problem+json it cannot read as JSON-RPC.
func TestBatchIsAnInvalidRequest(t *testing.T) {
	logs := &testlog.Buffer{}
	wr := problem.NewWriter(problem.WithLogger(slog.New(sanitize.NewLogHandler(slog.NewJSONHandler(logs, nil)))))
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(middleware.Stack(middleware.WithWriter(wr))(mcpfault.Handler(h)))
	defer srv.Close()

	resp, raw := postRPC(t, srv.URL, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		"Mcp-Protocol-Version", "2025-06-18", "X-Request-Id", "corr-batch-1")
	var msg struct {
		Error struct {
			Code int `json:"code"`
			Data struct {
				Code          string `json:"code"`
				Action        string `json:"action"`
				CorrelationID string `json:"correlation_id"`
			} `json:"data"`
		} `json:"error"`
	}
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(raw), &msg) != nil {
		t.Fatalf("%d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	if msg.Error.Code != -32600 || msg.Error.Data.Code != "invalid_json" || msg.Error.Data.Action != "fix_request" ||
		msg.Error.Data.CorrelationID != "corr-batch-1" {
		t.Errorf("%s", raw)
	}
	if strings.Contains(raw, "2025-06-18") || !strings.Contains(logs.String(), "batching is not supported") {
		t.Errorf("the SDK's text was sent, or not logged:\n%s\n%s", raw, logs)
	}
}

// TestValidJSONThatIsNotARequestIsInvalidRequest: JSON-RPC 2.0 (§5.1)
// keeps -32700 for a body that is not JSON at all; JSON that is not a
// valid request object (wrong version, no method, a bare value, an empty
// batch) is -32600, the contract's "malformed request".
func TestValidJSONThatIsNotARequestIsInvalidRequest(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(middleware.Stack()(mcpfault.Handler(h)))
	defer srv.Close()
	for body, want := range map[string]int{
		`{"jsonrpc":"2.0","id":1,"method":`:        -32700,
		"\xff\xfe":                                 -32700,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`: -32600,
		`{}`:     -32600,
		`null`:   -32600,
		`[]`:     -32600,
		`"ping"`: -32600,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`: -32600,
		`{"jsonrpc":"2.0","id":1,"method":1}`:            -32600,
	} {
		resp, raw := postRPC(t, srv.URL, body)
		var msg struct {
			Error struct {
				Code int `json:"code"`
				Data struct {
					Code string `json:"code"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(raw), &msg); err != nil || msg.Error.Code != want || msg.Error.Data.Code != "invalid_json" {
			t.Errorf("%q: %d %s, want %d", body, resp.StatusCode, raw, want)
		}
	}
}

// TestEveryEventOfAWriteIsRewritten: a write that carries several events
// (a result, then errors, one after a field the client ignores, one with
// CRLF line ends and no space after "data:") has every SDK error replaced
// by its problem, not only the first message of the write.
func TestEveryEventOfAWriteIsRewritten(t *testing.T) {
	const secret = "s3cret-in-sdk-text"
	sdkErr := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"error":{"code":-32602,"message":"invalid params: ` + secret + `"}}`
	}
	inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n" +
			"event: message\n: a comment\ndata: " + sdkErr(2) + "\n\n" +
			"event: message\r\ndata:" + sdkErr(3) + "\r\n\r\n"))
	})
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	srv := httptest.NewServer(middleware.Stack(middleware.WithWriter(wr))(mcpfault.Handler(inner)))
	defer srv.Close()
	resp, body := postRPC(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if strings.Contains(body, secret) {
		t.Fatalf("the SDK's text reached the client:\n%s", body)
	}
	var errs int
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "data: ")
		if !ok {
			continue
		}
		var m struct {
			ID    int `json:"id"`
			Error *struct {
				Code int             `json:"code"`
				Data json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("data line is not JSON: %v: %q", err, data)
		}
		if m.Error == nil {
			continue
		}
		errs++
		if p, err := problem.Parse(m.Error.Data); err != nil || p.Code() != "bad_request" || m.Error.Code != -32602 {
			t.Errorf("event %d: error %+v does not carry its problem (%v)", m.ID, m.Error, err)
		}
	}
	if errs != 2 || !strings.Contains(body, `"result":{}`) || !strings.Contains(body, ": a comment\n") || !strings.Contains(body, "\r\n\r\n") {
		t.Errorf("%d errors rewritten, or the stream's other lines changed (%v):\n%q", errs, resp.Header, body)
	}
}
