package mcpfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Since SEP-2164 the SDK reports an unknown resource as invalid params
// (-32602) with the uri as data, the same code as any other invalid-params
// refusal. Only the first is a missing resource; the second is the agent's
// request to fix, and must not tell it the resource is gone.
func TestInvalidParamsIsNotResourceNotFound(t *testing.T) {
	s := newServer(&testlog.Buffer{}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, nil
	})
	handlers := map[string]error{
		"shelf://missing":  mcp.ResourceNotFoundError("shelf://missing"),
		"shelf://legacy":   &jsonrpc.Error{Code: -32002, Message: "Resource not found"},
		"shelf://bad-page": &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "page must be a positive number"},
		"shelf://bad-data": &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "range is reversed", Data: json.RawMessage(`{"field":"range"}`)},
	}
	for uri, err := range handlers {
		s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, err
		})
	}
	cs := connect(t, s)
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "no_such_prompt"}); !isProblem(err, "not_found") {
		t.Errorf("unknown prompt: %v", err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"}); !isProblem(err, "not_found") {
		t.Errorf("unknown tool: %v", err)
	}
	want := map[string]string{
		"shelf://missing":  "not_found",
		"shelf://legacy":   "not_found",
		"shelf://bad-page": "bad_request",
		"shelf://bad-data": "bad_request",
	}
	for uri, code := range want {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			t.Fatalf("%s: want a JSON-RPC error, got %v", uri, err)
		}
		if !isProblem(err, code) {
			t.Errorf("%s: code %d, data %s; want problem code %s", uri, wire.Code, wire.Data, code)
		}
	}
}

// isProblem reports whether err is a JSON-RPC error whose data is a problem
// of code telling the agent to fix its request.
func isProblem(err error, code string) bool {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		return false
	}
	var data struct {
		Code   string `json:"code"`
		Action string `json:"action"`
	}
	return json.Unmarshal(wire.Data, &data) == nil && data.Code == code && data.Action == "fix_request"
}
