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

// Approval is the structured content of a pending result. A tool that can
// answer [Pending] declares Approval as its output type (or, when it also
// returns data of its own, a struct that embeds Approval and marks its own
// fields omitempty): clients validate a non-error result against the output
// schema the tool advertises, and a schema inferred from any other type
// rejects the pending document, so a conforming agent would never see the
// approval_id. Every member is optional in the schema, so the type also
// fits the tool's ordinary result.
type Approval struct {
	ApprovalID    string `json:"approval_id,omitempty" jsonschema:"the approval to poll; not an idempotency key"`
	State         string `json:"state,omitempty" jsonschema:"pending"`
	Action        string `json:"action,omitempty" jsonschema:"poll: read the approval's state, never repeat the call"`
	PollURL       string `json:"poll_url,omitempty" jsonschema:"where the approval's state can be read"`
	RetryAfterMS  int64  `json:"retry_after_ms,omitempty" jsonschema:"how long to wait before the first poll"`
	CorrelationID string `json:"correlation_id,omitempty"`
}

func pollAfter(d time.Duration) time.Duration {
	if d <= 0 {
		return approval.DefaultPollInterval
	}
	return d
}

func (p *Pending) result(correlationID string) *mcp.CallToolResult {
	doc := Approval{
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
