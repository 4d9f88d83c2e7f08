package mcpfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/testlog"

	"github.com/faultline-go/faultline/mcpfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type in struct {
	N int `json:"n"`
}

type out struct {
	N int `json:"n"`
}

// connect serves s over in-memory transports and returns a client session.
func connect(tb testing.TB, s *mcp.Server) *mcp.ClientSession {
	tb.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func newServer(logs *testlog.Buffer, h mcp.ToolHandlerFor[in, out]) *mcp.Server {
	wr := problem.NewWriter(problem.WithLogger(slog.New(sanitize.NewLogHandler(slog.NewJSONHandler(logs, nil)))))
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	s.AddReceivingMiddleware(mcpfault.Middleware(mcpfault.WithWriter(wr)))
	mcp.AddTool(s, &mcp.Tool{Name: "t"}, mcpfault.Tool(h))
	return s
}

// postRPC posts one JSON-RPC body the way an MCP client does over
// streamable HTTP, with extra headers as name/value pairs, and returns the
// response and its body.
func postRPC(t testing.TB, url, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(raw)
}

func TestRawErrorNeverReachesTheAgent(t *testing.T) {
	logs := &testlog.Buffer{}
	s := newServer(logs, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, errors.New(`pq: duplicate key value violates unique constraint "users_email_key" password=hunter2 at 10.0.0.7`)
	})
	cs := connect(t, s)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 1}})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != -32603 {
		t.Fatalf("want a -32603 JSON-RPC error, got %v", err)
	}
	all := wire.Message + string(wire.Data)
	for _, leak := range []string{"users_email_key", "hunter2", "10.0.0.7", "duplicate key"} {
		if strings.Contains(all, leak) {
			t.Errorf("leaks %q: %s", leak, all)
		}
	}
	var p struct{ Code, Action string }
	if err := json.Unmarshal(wire.Data, &p); err != nil || p.Code != "internal" {
		t.Fatalf("data %s: %v", wire.Data, err)
	}
	if l := logs.String(); !strings.Contains(l, "users_email_key") || strings.Contains(l, "hunter2") || strings.Count(l, `"msg":"problem"`) != 1 {
		t.Errorf("want exactly one record with the evidence and no password:\n%s", l)
	}
}

func TestWithoutMiddlewareTheTextIsStillPublic(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "t"}, mcpfault.Tool(func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{}, errors.New("dial tcp 10.9.8.7:5432: password=hunter2")
	}))
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 1}})
	if err != nil || !res.IsError {
		t.Fatalf("want a tool error, got %v %v", res, err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	if !strings.HasPrefix(got, "internal: ") || strings.Contains(got, "hunter2") || strings.Contains(got, "10.9.8.7") {
		t.Fatalf("text %q", got)
	}
}

func TestSuccessIsUntouched(t *testing.T) {
	s := newServer(&testlog.Buffer{}, func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, out, error) {
		return nil, out{N: i.N * 2}, nil
	})
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 21}})
	if err != nil || res.IsError {
		t.Fatalf("%v %v", res, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if string(raw) != `{"n":42}` {
		t.Fatalf("structuredContent %s", raw)
	}
}

// BenchmarkToolCall compares a successful call through Tool and Middleware
// with the same call on the bare SDK, in one run.
func BenchmarkToolCall(b *testing.B) {
	h := func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, out, error) {
		return nil, out(i), nil
	}
	bare := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	mcp.AddTool(bare, &mcp.Tool{Name: "t"}, h)
	for _, c := range []struct {
		name string
		s    *mcp.Server
	}{{"bare", bare}, {"mcpfault", newServer(&testlog.Buffer{}, h)}} {
		b.Run(c.name, func(b *testing.B) {
			cs := connect(b, c.s)
			params := &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 1}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
