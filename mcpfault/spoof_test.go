package mcpfault_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/mcpfault"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestClientCannotChooseTheCorrelationID: the header that carries the HTTP
// request's correlation ID into the MCP session is an internal channel. A
// client that sends it itself, to a server with Middleware but without
// Handler in front, must not choose the ID its failure is reported and
// logged under (it could forge another request's records, or put
// arbitrary text in them).
func TestClientCannotChooseTheCorrelationID(t *testing.T) {
	const spoofed = "spoofed\u2028id <b>"
	for _, withHandler := range []bool{false, true} {
		logs := &testlog.Buffer{}
		s := newServer(logs, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
			return nil, out{}, problem.New(problem.PolicyDenied)
		})
		var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
		if withHandler {
			h = mcpfault.Handler(h)
		}
		srv := httptest.NewServer(middleware.Stack()(h))
		_, raw := postRPC(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"n":1}}}`,
			"Faultline-Correlation-Id", spoofed, "X-Request-Id", "real-id-1")
		srv.Close()
		var msg struct {
			Result struct {
				StructuredContent struct {
					Code          string `json:"code"`
					CorrelationID string `json:"correlation_id"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(raw), &msg); err != nil || msg.Result.StructuredContent.Code != "policy_denied" {
			t.Fatalf("handler %v: %s", withHandler, raw)
		}
		id := msg.Result.StructuredContent.CorrelationID
		if !correlation.Valid(id) || strings.Contains(id, "spoofed") || strings.Contains(logs.String(), "spoofed") {
			t.Errorf("handler %v: the client chose the correlation ID %q\n%s", withHandler, id, logs)
		}
		if withHandler && id != "real-id-1" {
			t.Errorf("behind Handler the ID is %q, want the HTTP request's", id)
		}
	}
}
