package mcpfault_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/mcpfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCommittedWriteIsNeverRetried: a tool call carries no Idempotency-Key,
// so when a write says it committed (the charge went through, the receipt
// did not), repeating it applies it twice: the agent must not be told to
// retry. A tool declared idempotent may still be repeated.
func TestCommittedWriteIsNeverRetried(t *testing.T) {
	committed := func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, problem.New(problem.UpstreamError).WithOutcome(problem.OutcomeCommitted)
	}
	s := newServer(&testlog.Buffer{}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, nil
	})
	mcpfault.AddTool(s, &mcp.Tool{Name: "charge"}, committed)
	mcpfault.AddTool(s, &mcp.Tool{Name: "set_flag", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, committed)
	cs := connect(t, s)

	for name, wantRetryable := range map[string]bool{"charge": false, "set_flag": true} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"n": 1}})
		if err != nil || !res.IsError {
			t.Fatalf("%s: want a tool error, got %v %v", name, res, err)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var p struct {
			Retryable    bool   `json:"retryable"`
			Action       string `json:"action"`
			Outcome      string `json:"outcome"`
			RetryAfterMS *int64 `json:"retry_after_ms"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		if p.Outcome != "committed" || p.Retryable != wantRetryable || (p.Action == "retry") != wantRetryable {
			t.Errorf("%s: %s, want outcome committed, retryable %v", name, raw, wantRetryable)
		}
	}
}
