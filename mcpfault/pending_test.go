package mcpfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/mcpfault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPendingIsNotAnErrorAndSaysWhenToPoll: an approval that is pending is
// a result with isError false carrying approval_id and the poll interval
// (the HTTP default when the tool set none), never a problem.
func TestPendingIsNotAnErrorAndSaysWhenToPoll(t *testing.T) {
	logs := &testlog.Buffer{}
	s := newServer(logs, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, &mcpfault.Pending{ApprovalID: "apr-9"}
	})
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 1}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["approval_id"] != "apr-9" || doc["state"] != "pending" || doc["action"] != "poll" || doc["retry_after_ms"] != float64(1000) {
		t.Fatalf("structuredContent %s", raw)
	}
	if _, isProblem := doc["code"]; isProblem {
		t.Fatalf("a pending approval rendered as a problem: %s", raw)
	}
}

// TestPendingWithoutApprovalIDIsAFailure: a pending result the agent cannot
// poll (no approval_id) would leave it waiting forever, and it must not
// repeat the call either; the server's mistake is an internal problem,
// logged, instead of a result that looks like success.
func TestPendingWithoutApprovalIDIsAFailure(t *testing.T) {
	logs := &testlog.Buffer{}
	s := newServer(logs, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, &mcpfault.Pending{}
	})
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 1}})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != -32603 {
		raw, _ := json.Marshal(res)
		t.Fatalf("want a -32603 internal error, got %v %s", err, raw)
	}
	if !strings.Contains(string(wire.Data), `"code":"internal"`) || !strings.Contains(logs.String(), "approval") {
		t.Errorf("data %s\nlog %s", wire.Data, logs)
	}
}

// TestRawToolPendingIsNotAFailure: a raw ToolHandler (Server.AddTool) has
// only the method's error to return a Pending through, bare or wrapped. It
// must still reach the agent as the pending result: an internal problem
// says retry, and a repeated call would queue a second approval.
func TestRawToolPendingIsNotAFailure(t *testing.T) {
	s := newServer(&testlog.Buffer{}, nil)
	for name, err := range map[string]error{
		"raw_bare":    &mcpfault.Pending{ApprovalID: "apr-31"},
		"raw_wrapped": fmt.Errorf("refund 12: %w", &mcpfault.Pending{ApprovalID: "apr-32", RetryAfter: 3 * time.Second}),
	} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, err })
	}
	cs := connect(t, s)
	for name, want := range map[string]map[string]any{
		"raw_bare":    {"approval_id": "apr-31", "retry_after_ms": float64(1000)},
		"raw_wrapped": {"approval_id": "apr-32", "retry_after_ms": float64(3000)},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%s: want a pending result, got %v %+v", name, err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		if doc["action"] != "poll" || doc["state"] != "pending" || doc["approval_id"] != want["approval_id"] ||
			doc["retry_after_ms"] != want["retry_after_ms"] {
			t.Errorf("%s: structuredContent %s", name, raw)
		}
	}
}
