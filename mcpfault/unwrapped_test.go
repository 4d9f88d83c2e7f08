package mcpfault_test

import (
	"context"
	"errors"
	"github.com/faultline-go/faultline/internal/testlog"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUnwrappedToolsStayInTheContract: a tool registered without Tool is
// still behind Middleware. Its raw error becomes an internal problem (not a
// validation failure telling the agent to change arguments that were fine),
// and its panic becomes an internal problem instead of killing the server.
func TestUnwrappedToolsStayInTheContract(t *testing.T) {
	const secret = "pq: password=hunter2 at 10.0.0.7"
	logs := &testlog.Buffer{}
	s := newServer(logs, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{N: 7}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fails"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, errors.New(secret)
	})
	mcp.AddTool(s, &mcp.Tool{Name: "panics"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		panic(secret)
	})
	cs := connect(t, s)
	for _, name := range []string{"fails", "panics"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"n": 1}})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != -32603 {
			t.Fatalf("%s: want a -32603 JSON-RPC error, got %v %v", name, res, err)
		}
		p, err := problem.Parse(wire.Data)
		if err != nil || p.Code() != "internal" || p.Action() != "retry" {
			t.Errorf("%s: data %s (%v)", name, wire.Data, err)
		}
		if strings.Contains(wire.Message+string(wire.Data), "hunter2") {
			t.Errorf("%s: raw text reached the agent: %s %s", name, wire.Message, wire.Data)
		}
	}
	if !strings.Contains(logs.String(), "panic in tools/call") {
		t.Errorf("the panic was not logged:\n%s", logs)
	}
	// The server survived the panic.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 1}})
	if err != nil || res.IsError {
		t.Fatalf("after the panic: %v %v", res, err)
	}
}
