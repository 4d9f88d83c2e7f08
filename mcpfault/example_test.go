package mcpfault_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/faultline-go/faultline/mcpfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type lookup struct {
	SKU string `json:"sku"`
}

type stock struct {
	Units int `json:"units"`
}

var errWarehouseDown = errors.New("dial tcp 10.0.3.7:5432: connect: connection refused")

// A tool registered through AddTool, behind Middleware: its raw error
// reaches the agent as a JSON-RPC error whose data is a problem with the
// contract's members (the address in the error only in the log), so the
// model decides from code and action alone: a tool that failed inside may
// have acted, so the agent verifies before calling it again.
func ExampleAddTool() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	server := mcp.NewServer(&mcp.Implementation{Name: "inventory", Version: "1"}, nil)
	server.AddReceivingMiddleware(mcpfault.Middleware(mcpfault.WithWriter(wr)))
	mcpfault.AddTool(server, &mcp.Tool{Name: "stock"}, func(ctx context.Context, _ *mcp.CallToolRequest, in lookup) (*mcp.CallToolResult, stock, error) {
		return nil, stock{}, errWarehouseDown
	})

	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, _ := server.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "stock", Arguments: map[string]any{"sku": "KB-1"}})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		fmt.Println("no JSON-RPC error:", err)
		return
	}
	p, _ := problem.Parse(wire.Data)
	fmt.Println("JSON-RPC code:", wire.Code)
	fmt.Println("code:", p.Code(), "action:", p.Action(), "retryable:", p.Retryable())
	fmt.Println("address reached the agent:", strings.Contains(wire.Message+string(wire.Data), "10.0.3.7"))
	// Output:
	// JSON-RPC code: -32603
	// code: internal action: verify retryable: false
	// address reached the agent: false
}
