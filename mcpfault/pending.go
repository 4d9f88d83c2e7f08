package mcpfault

import (
	"encoding/json"
	"time"

	"github.com/faultline-go/faultline/approval"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pending is returned by a tool handler when the operation waits for an
// approval. It is not a failure: the agent gets a result with isError false
// whose structuredContent carries approval_id, and it polls (PollURL, or a
// status tool) instead of repeating the call, because an approval queue does
// not deduplicate. The approval ID is a workflow identifier, not an
// idempotency key.
type Pending struct {
	ApprovalID string
	// PollURL, when set, is where the approval's state can be read.
	PollURL string
	// RetryAfter is how long to wait before the first poll;
	// approval.DefaultPollInterval when not set, as over HTTP.
	RetryAfter time.Duration
}

func (p *Pending) Error() string { return "approval_pending: approval " + p.ApprovalID + " is pending" }

type pendingDoc struct {
	ApprovalID    string `json:"approval_id"`
	State         string `json:"state"`
	Action        string `json:"action"`
	PollURL       string `json:"poll_url,omitempty"`
	RetryAfterMS  int64  `json:"retry_after_ms,omitempty"`
	CorrelationID string `json:"correlation_id,omitempty"`
}

func pollAfter(d time.Duration) time.Duration {
	if d <= 0 {
		return approval.DefaultPollInterval
	}
	return d
}

func (p *Pending) result(correlationID string) *mcp.CallToolResult {
	doc := pendingDoc{
		ApprovalID:    p.ApprovalID,
		State:         "pending",
		Action:        "poll",
		PollURL:       p.PollURL,
		RetryAfterMS:  pollAfter(p.RetryAfter).Milliseconds(),
		CorrelationID: correlationID,
	}
	body, _ := json.Marshal(doc) // a struct of strings and an int cannot fail
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{
			Text: "approval_pending: approval " + p.ApprovalID + " is pending; poll its state, do not repeat the call",
		}},
		StructuredContent: json.RawMessage(body),
	}
}
