package mcpfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// TestUnwrappedHandlersJSONErrorIsNotTheAgents: a typed handler registered
// without Tool that fails decoding JSON of its own (an upstream's HTML
// error page, a stored document) and wraps that error has a failure of its
// own, not the agent's: internal, never "the arguments do not match the
// tool's input schema". Arguments the SDK itself refuses stay a validation
// failure.
func TestUnwrappedHandlersJSONErrorIsNotTheAgents(t *testing.T) {
	s := newServer(&testlog.Buffer{}, nil)
	decodeFails := func(body string, into any) mcp.ToolHandlerFor[in, out] {
		return func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
			err := json.Unmarshal([]byte(body), into)
			return nil, out{}, fmt.Errorf("decode the inventory reply: %w", err)
		}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "html_reply"}, decodeFails("<html>502 Bad Gateway</html>", &map[string]any{}))
	mcp.AddTool(s, &mcp.Tool{Name: "wrong_type"}, decodeFails(`{"n":"seven"}`, &out{}))
	mcp.AddTool(s, &mcp.Tool{Name: "cut_short"}, decodeFails(`{"n":`, &out{}))
	cs := connect(t, s)
	for _, c := range []struct {
		tool string
		args map[string]any
		code string
		rpc  int64
	}{
		{"html_reply", map[string]any{"n": 1}, "internal", -32603},
		{"wrong_type", map[string]any{"n": 2}, "internal", -32603},
		{"cut_short", map[string]any{"n": 3}, "internal", -32603},
		{"html_reply", map[string]any{"n": "one"}, "validation_failed", -32602},
		{"wrong_type", map[string]any{"n": 1e40}, "validation_failed", -32602},
	} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			t.Fatalf("%s %v: want a JSON-RPC error, got %v", c.tool, c.args, err)
		}
		p, perr := problem.Parse(wire.Data)
		if perr != nil || wire.Code != c.rpc || string(p.Code()) != c.code {
			t.Errorf("%s %v: %d %s, want %d %s", c.tool, c.args, wire.Code, wire.Data, c.rpc, c.code)
		}
	}
}
