package main

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type fixture struct {
	app  *app
	srv  *httptest.Server
	logs *testlog.Buffer
}

func start(t *testing.T) *fixture {
	t.Helper()
	logs := &testlog.Buffer{}
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(logs, nil))))
	a := newApp(logger)
	srv := httptest.NewServer(a.handler)
	t.Cleanup(srv.Close)
	return &fixture{app: a, srv: srv, logs: logs}
}

// bearer adds the token and a fixed correlation ID to every request.
type bearer struct {
	base http.RoundTripper
	id   string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+bearerToken)
	if b.id != "" {
		r.Header.Set("X-Request-Id", b.id)
	}
	return b.base.RoundTrip(r)
}

func (f *fixture) session(t *testing.T, correlationID string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   f.srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{base: http.DefaultTransport, id: correlationID}},
		MaxRetries: -1,
	}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// problemDoc is the problem document as an agent reads it.
type problemDoc struct {
	Type          string  `json:"type"`
	Title         string  `json:"title"`
	Status        int     `json:"status"`
	Detail        string  `json:"detail"`
	Code          string  `json:"code"`
	Action        string  `json:"action"`
	Cause         string  `json:"cause"`
	Retryable     bool    `json:"retryable"`
	RetryAfterMS  int64   `json:"retry_after_ms"`
	Outcome       string  `json:"outcome"`
	CorrelationID string  `json:"correlation_id"`
	Errors        []field `json:"errors"`
}

type field struct {
	Pointer string `json:"pointer"`
	Code    string `json:"code"`
}

func decode(t *testing.T, raw []byte) problemDoc {
	t.Helper()
	var d problemDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("problem document %s: %v", raw, err)
	}
	return d
}

func structured(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// forbidden is what must never reach an agent, whatever the surface.
var forbidden = []string{"s3cretPW", "10.1.2.3", "postgres://", "/srv/app", "ghp_0123", "orders.go", "nil map"}

func assertClean(t *testing.T, what string, raw string) {
	t.Helper()
	for _, s := range forbidden {
		if strings.Contains(raw, s) {
			t.Errorf("%s leaks %q: %s", what, s, raw)
		}
	}
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
}

// toolError asserts a tool result with isError and returns its problem.
func toolError(t *testing.T, cs *mcp.ClientSession, name string, args any) (problemDoc, *mcp.CallToolResult) {
	t.Helper()
	res, err := callTool(t, cs, name, args)
	if err != nil {
		t.Fatalf("%s: protocol error %v, want a tool error", name, err)
	}
	if !res.IsError {
		t.Fatalf("%s: isError false, want true", name)
	}
	raw := structured(t, res)
	assertClean(t, name+" structuredContent", string(raw))
	assertClean(t, name+" text", text(res))
	return decode(t, raw), res
}

// rpcError asserts a JSON-RPC error and returns its code and problem.
func rpcError(t *testing.T, cs *mcp.ClientSession, name string, args any) (int64, problemDoc) {
	t.Helper()
	res, err := callTool(t, cs, name, args)
	if err == nil {
		raw, _ := json.Marshal(res)
		t.Fatalf("%s: result %s, want a JSON-RPC error", name, raw)
	}
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) {
		t.Fatalf("%s: error %T %v is not a JSON-RPC error", name, err, err)
	}
	assertClean(t, name+" message", wire.Message)
	assertClean(t, name+" data", string(wire.Data))
	return wire.Code, decode(t, wire.Data)
}

func TestContractTable(t *testing.T) {
	f := start(t)
	cs := f.session(t, "corr-mcp-0001")

	t.Run("invalid params from the input schema: -32602 validation_failed", func(t *testing.T) {
		code, p := rpcError(t, cs, "create_order", map[string]any{"sku": "B", "quantity": "many"})
		if code != jsonrpc.CodeInvalidParams || p.Code != "validation_failed" || p.Action != "fix_request" || p.Retryable {
			t.Fatalf("got %d %+v", code, p)
		}
	})
	t.Run("invalid params from the handler: -32602 with every field error", func(t *testing.T) {
		code, p := rpcError(t, cs, "create_order", map[string]any{"sku": "", "quantity": 0})
		if code != jsonrpc.CodeInvalidParams || p.Code != "validation_failed" || len(p.Errors) != 2 {
			t.Fatalf("got %d %+v", code, p)
		}
		if p.Errors[0].Pointer != "/sku" || p.Errors[1].Pointer != "/quantity" {
			t.Fatalf("pointers: %+v", p.Errors)
		}
	})
	t.Run("unknown resource: -32602 with the reason", func(t *testing.T) {
		code, p := rpcError(t, cs, "get_order", map[string]any{"id": "nope"})
		if code != jsonrpc.CodeInvalidParams || p.Code != "not_found" || p.Detail != "No order has this id." {
			t.Fatalf("got %d %+v", code, p)
		}
	})
	t.Run("unknown tool: a JSON-RPC error whose data is a problem", func(t *testing.T) {
		code, p := rpcError(t, cs, "no_such_tool", map[string]any{})
		if code != jsonrpc.CodeInvalidParams || p.Code != "not_found" || p.CorrelationID != "corr-mcp-0001" {
			t.Fatalf("got %d %+v", code, p)
		}
	})
	t.Run("policy deny: tool error, status denied, action none", func(t *testing.T) {
		p, res := toolError(t, cs, "delete_all_orders", map[string]any{})
		if p.Code != "policy_denied" || p.Status != 403 || p.Action != "none" || p.Retryable || res.Meta["status"] != "denied" {
			t.Fatalf("got %+v meta %v", p, res.Meta)
		}
		if got := text(res); got != "policy_denied: Bulk deletion is not allowed." {
			t.Fatalf("text %q", got)
		}
	})
	t.Run("in-band auth: tool error, status unauthenticated", func(t *testing.T) {
		p, res := toolError(t, cs, "export_orders", map[string]any{"api_key": "nope"})
		if p.Code != "unauthorized" || p.Action != "reauthenticate" || res.Meta["status"] != "unauthenticated" {
			t.Fatalf("got %+v meta %v", p, res.Meta)
		}
	})
	t.Run("rate limit: tool error, status rate_limited, retry_after_ms", func(t *testing.T) {
		for range 2 {
			if res, err := callTool(t, cs, "search", map[string]any{}); err != nil || res.IsError {
				t.Fatalf("search within the limit: %v %v", res, err)
			}
		}
		p, res := toolError(t, cs, "search", map[string]any{})
		if p.Code != "rate_limited" || !p.Retryable || p.RetryAfterMS != 1500 || res.Meta["status"] != "rate_limited" {
			t.Fatalf("got %+v meta %v", p, res.Meta)
		}
	})
	t.Run("upstream failure of a write, DSN in the error: sanitized, outcome unknown, verify", func(t *testing.T) {
		p, _ := toolError(t, cs, "sync_inventory", map[string]any{})
		if p.Code != "upstream_error" || p.Status != 502 || p.Cause != "upstream" || p.CorrelationID != "corr-mcp-0001" ||
			p.Outcome != "unknown" || p.Retryable || p.Action != "verify" {
			t.Fatalf("got %+v", p)
		}
	})
	t.Run("upstream failure of a read-only tool: retry is safe", func(t *testing.T) {
		p, _ := toolError(t, cs, "stock_level", map[string]any{})
		if p.Code != "upstream_error" || !p.Retryable || p.Action != "retry" || p.Outcome != "" {
			t.Fatalf("got %+v", p)
		}
	})
	t.Run("timeout of a write: outcome unknown, never retry blindly", func(t *testing.T) {
		before := f.app.writes.Load()
		p, _ := toolError(t, cs, "slow_write", map[string]any{})
		if p.Code != "timeout" || p.Outcome != "unknown" || p.Retryable || p.Action != "verify" {
			t.Fatalf("got %+v", p)
		}
		if got := f.app.writes.Load() - before; got != 1 {
			t.Fatalf("slow_write ran %d times", got)
		}
	})
	t.Run("egress blocked: tool error, status denied", func(t *testing.T) {
		p, res := toolError(t, cs, "fetch_url", map[string]any{})
		if p.Code != "egress_blocked" || p.Status != 403 || p.Action != "none" || res.Meta["status"] != "denied" {
			t.Fatalf("got %+v meta %v", p, res.Meta)
		}
	})
	t.Run("result too large: tool error response_too_large", func(t *testing.T) {
		p, _ := toolError(t, cs, "export_everything", map[string]any{})
		if p.Code != "response_too_large" || p.Action != "fix_request" || p.Retryable {
			t.Fatalf("got %+v", p)
		}
	})
	t.Run("audit unavailable in strict mode: tool 503, operation not started", func(t *testing.T) {
		p, _ := toolError(t, cs, "ledger_write", map[string]any{})
		if p.Code != "audit_unavailable" || p.Status != 503 || p.Outcome != "not_started" || !p.Retryable || p.RetryAfterMS != 2000 {
			t.Fatalf("got %+v", p)
		}
	})
	t.Run("source unavailable, circuit open: -32603 with the reason", func(t *testing.T) {
		code, p := rpcError(t, cs, "read_replica", map[string]any{})
		if code != -32603 || p.Code != "unavailable" || p.Detail != "The reporting source is unavailable (circuit open)." || !p.Retryable || p.RetryAfterMS != 5000 {
			t.Fatalf("got %d %+v", code, p)
		}
	})
	t.Run("panic: -32603 internal, nothing raw", func(t *testing.T) {
		code, p := rpcError(t, cs, "crash", map[string]any{})
		if code != -32603 || p.Code != "internal" || p.Status != 500 {
			t.Fatalf("got %d %+v", code, p)
		}
	})
	t.Run("approval pending, then approved: isError false, poll, never retry", func(t *testing.T) {
		res, err := callTool(t, cs, "refund", map[string]any{"order_id": "o1"})
		if err != nil || res.IsError {
			t.Fatalf("refund: %v isError=%v", err, res != nil && res.IsError)
		}
		var pending struct {
			ApprovalID   string `json:"approval_id"`
			State        string `json:"state"`
			Action       string `json:"action"`
			RetryAfterMS int64  `json:"retry_after_ms"`
		}
		if err := json.Unmarshal(structured(t, res), &pending); err != nil {
			t.Fatal(err)
		}
		if pending.ApprovalID == "" || pending.State != "pending" || pending.Action != "poll" || pending.RetryAfterMS != 1000 {
			t.Fatalf("pending: %+v", pending)
		}
		f.app.mu.Lock()
		f.app.approvals[pending.ApprovalID] = "approved"
		f.app.mu.Unlock()
		res, err = callTool(t, cs, "approval_status", map[string]any{"approval_id": pending.ApprovalID})
		if err != nil || res.IsError {
			t.Fatalf("poll: %v", err)
		}
		if got := string(structured(t, res)); !strings.Contains(got, `"state":"approved"`) {
			t.Fatalf("poll result %s", got)
		}
	})

	logs := f.logs.String()
	for _, code := range []string{"validation_failed", "not_found", "policy_denied", "rate_limited", "upstream_error", "timeout", "internal"} {
		if !strings.Contains(logs, `"code":"`+code+`"`) {
			t.Errorf("no log record for %s", code)
		}
	}
	if !strings.Contains(logs, `"correlation_id":"corr-mcp-0001"`) {
		t.Errorf("log records lack the HTTP correlation ID:\n%s", logs)
	}
	if strings.Contains(logs, "s3cretPW") || strings.Contains(logs, "ghp_0123456789") {
		t.Errorf("log leaks a credential:\n%s", logs)
	}
	if !strings.Contains(logs, "10.1.2.3") {
		t.Errorf("the log lost the evidence an operator needs (the upstream address):\n%s", logs)
	}
}

// The transport answers with problems before the MCP session sees a request.
func TestTransportProblems(t *testing.T) {
	f := start(t)
	post := func(auth string, body string) (*http.Response, problemDoc) {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		req.Header.Set("X-Request-Id", "corr-transport-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Fatalf("status %d content type %q body %s", resp.StatusCode, ct, raw)
		}
		return resp, decode(t, raw)
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`

	resp, p := post("", ping)
	if resp.StatusCode != 401 || p.Code != "unauthorized" || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("no token: %d %+v", resp.StatusCode, p)
	}
	if p.CorrelationID != "corr-transport-1" || resp.Header.Get("X-Request-Id") != "corr-transport-1" {
		t.Fatalf("the transport problem lost the request's correlation ID: %q %q", p.CorrelationID, resp.Header.Get("X-Request-Id"))
	}
	resp, p = post("Bearer "+revokedToken, ping)
	if resp.StatusCode != 403 || p.Code != "policy_denied" || p.Action != "none" || p.Retryable || p.CorrelationID != "corr-transport-1" {
		t.Fatalf("revoked token: %d %+v", resp.StatusCode, p)
	}
	f.app.maintenance.Store(true)
	resp, p = post("Bearer "+bearerToken, ping)
	if resp.StatusCode != 503 || p.Code != "unavailable" || !p.Retryable || p.RetryAfterMS != 30000 ||
		resp.Header.Get("Retry-After") != "30" || p.Outcome != "not_started" {
		t.Fatalf("maintenance: %d %v %+v", resp.StatusCode, resp.Header, p)
	}
	f.app.maintenance.Store(false)
	for _, code := range []string{"unauthorized", "policy_denied", "unavailable"} {
		if !strings.Contains(f.logs.String(), `"code":"`+code+`"`) {
			t.Errorf("no log record for the transport's %s", code)
		}
	}
	if !strings.Contains(f.logs.String(), `"correlation_id":"corr-transport-1"`) {
		t.Errorf("transport log records lack the correlation ID:\n%s", f.logs)
	}
	// Too large for the limit: a JSON-RPC call is answered in JSON-RPC (its
	// id, -32600, the problem as data), a plain HTTP client gets the problem.
	for _, c := range []struct{ body, accept string }{
		{`{"jsonrpc":"2.0","id":"big-1","method":"ping","params":{"pad":"` + strings.Repeat("x", 70<<10) + `"}}`, "application/json, text/event-stream"},
		{`{"pad":"` + strings.Repeat("x", 70<<10) + `"}`, "application/json"},
	} {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", c.accept)
		req.Header.Set("Authorization", "Bearer "+bearerToken)
		req.Header.Set("X-Request-Id", "corr-transport-2")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 413 {
			t.Fatalf("large body: %d %s", r.StatusCode, raw)
		}
		if strings.HasPrefix(c.body, `{"jsonrpc"`) {
			var msg struct {
				ID    string `json:"id"`
				Error struct {
					Code int             `json:"code"`
					Data json.RawMessage `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal(raw, &msg); err != nil || msg.ID != "big-1" || msg.Error.Code != -32600 {
				t.Fatalf("large JSON-RPC body: %s %v", raw, err)
			}
			if p := decode(t, msg.Error.Data); p.Code != "request_too_large" || p.CorrelationID != "corr-transport-2" {
				t.Fatalf("large JSON-RPC body: data %+v", p)
			}
			continue
		}
		if p := decode(t, raw); r.Header.Get("Content-Type") != "application/problem+json" || p.Code != "request_too_large" {
			t.Fatalf("large plain body: %s", raw)
		}
	}
	var last *http.Response
	for range 60 {
		req, _ := http.NewRequest(http.MethodPost, f.srv.URL+"/mcp", strings.NewReader(ping))
		req.Header.Set("Authorization", "Bearer "+bearerToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		last = r
		if r.StatusCode == 429 {
			break
		}
	}
	if last.StatusCode != 429 || last.Header.Get("Retry-After") == "" || last.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("rate limit: %d %v", last.StatusCode, last.Header)
	}
}

// TestOversizedCallThenNextCall: the SDK's client sends a call over the
// body limit, reads -32600 with the problem, and its session serves the
// next call.
func TestOversizedCallThenNextCall(t *testing.T) {
	f := start(t)
	cs := f.session(t, "corr-big-1")
	_, err := callTool(t, cs, "get_order", map[string]any{"id": strings.Repeat("9", 1<<20)})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("want -32600, got %v", err)
	}
	if p := decode(t, wire.Data); p.Code != "request_too_large" || p.Status != 413 || p.CorrelationID != "corr-big-1" {
		t.Fatalf("data %+v", p)
	}
	res, err := callTool(t, cs, "get_order", map[string]any{"id": "o1"})
	if err != nil || res.IsError {
		t.Fatalf("the next call: %v %v", res, err)
	}
}

// TestHandshakeEraSession: a client that negotiates a version with the
// initialize handshake reads an unknown order and an open circuit as tool
// results (InterLock's handshake column), while the default client, at the
// sessionless version, gets the JSON-RPC errors TestContractTable checks.
func TestHandshakeEraSession(t *testing.T) {
	f := start(t)
	for _, version := range mcp.SupportedProtocolVersions()[1:] {
		client := mcp.NewClient(&mcp.Implementation{Name: "old-host", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint:   f.srv.URL + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{base: http.DefaultTransport, id: "corr-old-1"}},
			MaxRetries: -1,
		}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Fatalf("negotiated %s, want %s", got, version)
		}
		p, res := toolError(t, cs, "get_order", map[string]any{"id": "nope"})
		if p.Code != "not_found" || p.Detail != "No order has this id." || res.Meta["status"] != "not_found" || p.CorrelationID != "corr-old-1" {
			t.Errorf("%s: unknown order %+v %v", version, p, res.Meta)
		}
		p, res = toolError(t, cs, "read_replica", map[string]any{})
		if p.Code != "unavailable" || p.Detail != "The reporting source is unavailable (circuit open)." || !p.Retryable ||
			p.RetryAfterMS != 5000 || res.Meta["status"] != "unavailable" || text(res) != "unavailable: "+p.Detail {
			t.Errorf("%s: open circuit %+v %v %q", version, p, res.Meta, text(res))
		}
		cs.Close()
	}
}
