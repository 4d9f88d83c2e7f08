package mcpfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/mcpfault"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type sourceIn struct {
	Source string `json:"source"`
}

// errNoSuchShelf is how a dependency says a source does not exist; the
// Writer's mapper makes it not_found, so the tool never builds the problem
// itself.
var errNoSuchShelf = errors.New("shelf: no such shelf")

// sourceServer serves, behind the kit's Stack and mcpfault.Handler, tools
// whose source is unknown or behind an open circuit, over real loopback
// HTTP, stateless or with sessions.
func sourceServer(t *testing.T, stateless bool, stackOpts ...middleware.Option) (*httptest.Server, *testlog.Buffer) {
	t.Helper()
	logs := &testlog.Buffer{}
	wr := problem.NewWriter(
		problem.WithLogger(slog.New(sanitize.NewLogHandler(slog.NewJSONHandler(logs, nil)))),
		problem.WithMappers(problem.MapIs(errNoSuchShelf, func() *problem.Problem {
			return problem.New(problem.NotFound).WithDetail("No shelf has this name; list_shelves names them.")
		})),
	)
	s := mcp.NewServer(&mcp.Implementation{Name: "library", Version: "1"}, nil)
	s.AddReceivingMiddleware(mcpfault.Middleware(mcpfault.WithWriter(wr)))
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcpfault.AddTool(s, &mcp.Tool{Name: "read_source", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in sourceIn) (*mcp.CallToolResult, out, error) {
			return nil, out{}, problem.New(problem.NotFound).WithDetail("No source is named " + in.Source + ".")
		})
	mcpfault.AddTool(s, &mcp.Tool{Name: "read_shelf", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, sourceIn) (*mcp.CallToolResult, out, error) {
			return nil, out{}, errNoSuchShelf
		})
	// A raw handler: its error reaches Middleware as the method's error.
	s.AddTool(&mcp.Tool{Name: "read_raw_shelf", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errNoSuchShelf
		})
	mcpfault.AddTool(s, &mcp.Tool{Name: "read_archive", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, sourceIn) (*mcp.CallToolResult, out, error) {
			return nil, out{}, problem.New(problem.Unavailable).WithDetail("The archive is unavailable (circuit open).").
				WithRetryAfter(7 * time.Second).WithOutcome(problem.OutcomeNotStarted)
		})
	mcpfault.AddTool(s, &mcp.Tool{Name: "check_input", Annotations: readOnly},
		func(context.Context, *mcp.CallToolRequest, sourceIn) (*mcp.CallToolResult, out, error) {
			return nil, out{}, problem.New(problem.ValidationFailed).
				WithErrors(problem.FieldError{Pointer: "/source", Detail: "source is required", Code: "required"})
		})
	mcpfault.AddTool(s, &mcp.Tool{Name: "echo", Annotations: readOnly},
		func(_ context.Context, _ *mcp.CallToolRequest, in sourceIn) (*mcp.CallToolResult, out, error) {
			return nil, out{N: len(in.Source)}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: stateless, JSONResponse: true})
	stack := middleware.Stack(append([]middleware.Option{middleware.WithWriter(wr)}, stackOpts...)...)
	srv := httptest.NewServer(mcpfault.TooLarge(stack(mcpfault.Handler(h))))
	t.Cleanup(srv.Close)
	return srv, logs
}

func connectHTTP(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type agentProblem struct {
	Code         string `json:"code"`
	Detail       string `json:"detail"`
	Status       int    `json:"status"`
	Retryable    bool   `json:"retryable"`
	RetryAfterMS int64  `json:"retry_after_ms"`
	Outcome      string `json:"outcome"`
}

// TestFailureShapeFollowsTheNegotiatedVersion runs the SDK's own client at
// every protocol version the SDK supports, against a stateless server and
// one with sessions: in a handshake-era session an unknown source and an
// open circuit are tool results the model reads (isError, _meta.status,
// the reason); from ModernProtocolVersion on they are JSON-RPC errors
// -32602 and -32603 carrying the same problem. Other failures of the call
// keep their JSON-RPC shape in every version.
func TestFailureShapeFollowsTheNegotiatedVersion(t *testing.T) {
	for _, stateless := range []bool{true, false} {
		srv, _ := sourceServer(t, stateless)
		for _, version := range mcp.SupportedProtocolVersions() {
			name := version + "/stateful"
			if stateless {
				name = version + "/stateless"
			}
			t.Run(name, func(t *testing.T) {
				cs := connectHTTP(t, srv.URL, version)
				negotiated := cs.InitializeResult().ProtocolVersion
				want := version
				if !stateless && version >= mcpfault.ModernProtocolVersion {
					// Sessions need the handshake: the client falls back.
					want = "2025-11-25"
				}
				if negotiated != want {
					t.Fatalf("negotiated %s, want %s", negotiated, want)
				}
				modern := negotiated >= mcpfault.ModernProtocolVersion
				for _, c := range []struct {
					tool, code, status, detail string
					rpc                        int64
					retryAfterMS               int64
				}{
					{"read_source", "not_found", "not_found", "No source is named atlas-7.", -32602, 0},
					{"read_shelf", "not_found", "not_found", "No shelf has this name; list_shelves names them.", -32602, 0},
					{"read_raw_shelf", "not_found", "not_found", "No shelf has this name; list_shelves names them.", -32602, 0},
					{"read_archive", "unavailable", "unavailable", "The archive is unavailable (circuit open).", -32603, 7000},
				} {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{"source": "atlas-7"}})
					var raw []byte
					if modern {
						var wire *jsonrpc.Error
						if !errors.As(err, &wire) || wire.Code != c.rpc {
							t.Fatalf("%s: want JSON-RPC %d, got %v %v", c.tool, c.rpc, res, err)
						}
						raw = wire.Data
					} else {
						if err != nil || res == nil || !res.IsError {
							t.Fatalf("%s: want a tool result with isError, got %v %v", c.tool, res, err)
						}
						if st := res.Meta["status"]; st != c.status {
							t.Errorf("%s: _meta.status %v, want %s", c.tool, st, c.status)
						}
						if txt := res.Content[0].(*mcp.TextContent).Text; txt != c.code+": "+c.detail {
							t.Errorf("%s: text %q", c.tool, txt)
						}
						raw, _ = json.Marshal(res.StructuredContent)
					}
					var p agentProblem
					if err := json.Unmarshal(raw, &p); err != nil {
						t.Fatalf("%s: %s: %v", c.tool, raw, err)
					}
					if p.Code != c.code || p.Detail != c.detail || p.RetryAfterMS != c.retryAfterMS || p.Retryable != (c.retryAfterMS > 0) {
						t.Errorf("%s: problem %s", c.tool, raw)
					}
				}
				// Not a missing or unavailable source: the same in every version.
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "check_input", Arguments: map[string]any{"source": ""}})
				var wire *jsonrpc.Error
				if !errors.As(err, &wire) || wire.Code != -32602 || !strings.Contains(string(wire.Data), `"validation_failed"`) {
					t.Errorf("check_input: want -32602 validation_failed, got %v", err)
				}
				_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
				if !errors.As(err, &wire) || wire.Code != -32602 {
					t.Errorf("unknown tool: want -32602, got %v", err)
				}
				if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"source": "abc"}}); err != nil || res.IsError {
					t.Errorf("echo after the failures: %v %v", res, err)
				}
			})
		}
	}
}
