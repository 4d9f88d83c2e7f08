package mcpfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCorrelationIDWithoutHTTP: over a transport that carries no HTTP
// request (stdio, in memory) there is no X-Request-Id to take, yet the
// agent must still get a correlation_id that finds the failure's log
// record, whether the failure is a tool error or a JSON-RPC error, and
// each call gets its own.
func TestCorrelationIDWithoutHTTP(t *testing.T) {
	logs := &testlog.Buffer{}
	s := newServer(logs, func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, out, error) {
		if i.N == 1 {
			return nil, out{}, problem.New(problem.PolicyDenied)
		}
		return nil, out{}, errors.New("dial tcp 10.9.8.7:5432: refused")
	})
	cs := connect(t, s)
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 1}})
	if err != nil || !res.IsError {
		t.Fatalf("want a tool error, got %v %v", res, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var tool struct {
		CorrelationID string `json:"correlation_id"`
	}
	if err := json.Unmarshal(raw, &tool); err != nil {
		t.Fatal(err)
	}

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 2}})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	var rpc struct {
		CorrelationID string `json:"correlation_id"`
	}
	if err := json.Unmarshal(wire.Data, &rpc); err != nil {
		t.Fatal(err)
	}

	for _, id := range []string{tool.CorrelationID, rpc.CorrelationID} {
		if !correlation.Valid(id) {
			t.Fatalf("correlation_id %q is not a valid ID (tool %s, rpc %s)", id, raw, wire.Data)
		}
		if !strings.Contains(logs.String(), `"correlation_id":"`+id+`"`) {
			t.Errorf("no log record under %s:\n%s", id, logs)
		}
	}
	if tool.CorrelationID == rpc.CorrelationID {
		t.Errorf("two calls share the correlation ID %s", rpc.CorrelationID)
	}
}
