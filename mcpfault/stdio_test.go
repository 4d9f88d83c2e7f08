package mcpfault_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/mcpfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pipe is a stdio-like connection: the server reads what the client
// writes, and the other way round.
type pipe struct {
	serverIn, clientIn   io.ReadCloser
	serverOut, clientOut io.WriteCloser
}

var pipeKinds = []struct {
	name string
	open func(testing.TB) pipe
}{
	{"io.Pipe", func(testing.TB) pipe {
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		return pipe{serverIn: sr, clientIn: cr, serverOut: sw, clientOut: cw}
	}},
	{"os.Pipe", func(tb testing.TB) pipe {
		sr, cw, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		cr, sw, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { sr.Close(); cw.Close(); cr.Close(); sw.Close() })
		return pipe{serverIn: sr, clientIn: cr, serverOut: sw, clientOut: cw}
	}},
}

// ioServer is built the way examples/mcp-server builds its server.
func ioServer(logs io.Writer) (*mcp.Server, *problem.Writer) {
	wr := problem.NewWriter(problem.WithLogger(slog.New(sanitize.NewLogHandler(slog.NewJSONHandler(logs, nil)))))
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	s.AddReceivingMiddleware(mcpfault.Middleware(mcpfault.WithWriter(wr)))
	mcpfault.AddTool(s, &mcp.Tool{Name: "t", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, out, error) {
			switch i.N {
			case 1:
				return nil, out{}, problem.New(problem.PolicyDenied)
			case 2:
				return nil, out{}, errors.New("dial tcp 10.1.2.3:5432: password=hunter2 refused")
			}
			return nil, out{N: 2 * i.N}, nil
		})
	return s, wr
}

// serveIO connects s over p, through mcpfault.IOTransport when wrapped and
// through the SDK's own IOTransport otherwise. Every call shares one
// correlation ID, so that the failures Middleware renders are the same
// bytes in both.
func serveIO(tb testing.TB, s *mcp.Server, wr *problem.Writer, p pipe, wrapped bool) {
	tb.Helper()
	var tr mcp.Transport = &mcp.IOTransport{Reader: p.serverIn, Writer: p.serverOut}
	if wrapped {
		tr = mcpfault.IOTransport(p.serverIn, p.serverOut, mcpfault.WithWriter(wr))
	}
	ss, err := s.Connect(correlation.WithID(context.Background(), "corr-io-session"), tr, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
}

// rawPeer speaks newline-delimited JSON-RPC to a server, frame by frame.
type rawPeer struct {
	tb testing.TB
	w  io.Writer
	r  *bufio.Reader
}

func newRawPeer(tb testing.TB, p pipe, version string) rawPeer {
	peer := rawPeer{tb: tb, w: p.clientOut, r: bufio.NewReader(p.clientIn)}
	peer.call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	peer.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return peer
}

func (p rawPeer) send(frame string) {
	p.tb.Helper()
	if _, err := io.WriteString(p.w, frame+"\n"); err != nil {
		p.tb.Fatal(err)
	}
}

func (p rawPeer) call(frame string) string {
	p.tb.Helper()
	p.send(frame)
	line, err := p.r.ReadString('\n')
	if err != nil {
		p.tb.Fatalf("%s: %v", frame, err)
	}
	return line
}

// sdkTexts are what the SDK's own messages say: the Go types it decodes
// into, the decoder's words, its framing of the method.
var sdkTexts = []string{"mcp.", "Params", "Go struct", "Go value", "unmarshal", "handling '", "method not found", "invalid params", "invalid request", "missing required"}

// TestIOTransportRewritesTheSDKsOwnErrors: over a stdio-like stream, the
// errors the SDK answers before any middleware runs (params that do not
// decode, an unknown method, a call without params) reach the agent as
// they do over HTTP: the SDK's JSON-RPC code, the problem as data with
// code, action, retryable and a correlation_id that finds the failure's
// log record, and neither the input nor a Go type name.
func TestIOTransportRewritesTheSDKsOwnErrors(t *testing.T) {
	cases := []struct {
		frame, id string
		code      int64
		secret    string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["password=hunter2"]}}`, `1`, -32602, "hunter2"},
		{`{"jsonrpc":"2.0","id":"r-2","method":"tools/list","params":{"cursor":{"api_key":"sk_live_4eC39HqLyjWDarjtT1zdp7dc"}}}`, `"r-2"`, -32602, "4eC39HqLyjWDarjtT1zdp7dc"},
		{`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":["postgres://app:Tr0ub4dor@10.0.0.7/orders"]}}`, `3`, -32602, "Tr0ub4dor"},
		{`{"jsonrpc":"2.0","id":4,"method":"ping","params":[7]}`, `4`, -32602, "[7]"},
		{`{"jsonrpc":"2.0","id":5,"method":"orders/export?token=ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234"}`, `5`, -32601, "ghp_R2d2"},
		{`{"jsonrpc":"2.0","id":"six","method":"tools/delete_everything"}`, `"six"`, -32601, "delete_everything"},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`, `7`, -32600, ""},
		{`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":null}`, `8`, -32600, ""},
	}
	for _, kind := range pipeKinds {
		t.Run(kind.name, func(t *testing.T) {
			logs := &testlog.Buffer{}
			s, wr := ioServer(logs)
			p := kind.open(t)
			serveIO(t, s, wr, p, true)
			peer := newRawPeer(t, p, "2025-06-18")
			seen := map[string]bool{}
			for _, c := range cases {
				line := peer.call(c.frame)
				var resp struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   *jsonrpc.Error  `json:"error"`
				}
				if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.Error == nil ||
					resp.JSONRPC != "2.0" || string(resp.ID) != c.id || resp.Error.Code != c.code {
					t.Fatalf("%s\nwant id %s code %d, got %s", c.frame, c.id, c.code, line)
				}
				var data struct {
					Code          string `json:"code"`
					Action        string `json:"action"`
					Retryable     *bool  `json:"retryable"`
					CorrelationID string `json:"correlation_id"`
				}
				if err := json.Unmarshal(resp.Error.Data, &data); err != nil || data.Code == "" || data.Action == "" ||
					data.Retryable == nil || !correlation.Valid(data.CorrelationID) {
					t.Fatalf("%s\nno problem in data: %s", c.frame, line)
				}
				if !strings.HasPrefix(resp.Error.Message, data.Code+": ") {
					t.Errorf("%s\nmessage is not the problem's: %s", c.frame, line)
				}
				if c.secret != "" && strings.Contains(line, c.secret) {
					t.Errorf("%s\nthe input reached the agent: %s", c.frame, line)
				}
				for _, raw := range sdkTexts {
					if strings.Contains(line, raw) {
						t.Errorf("%s\nthe SDK's text %q reached the agent: %s", c.frame, raw, line)
					}
				}
				if seen[data.CorrelationID] {
					t.Errorf("two failures share the correlation ID %s", data.CorrelationID)
				}
				seen[data.CorrelationID] = true
				if !strings.Contains(logs.String(), `"correlation_id":"`+data.CorrelationID+`"`) {
					t.Errorf("%s\nno log record under %s:\n%s", c.frame, data.CorrelationID, logs)
				}
			}
			if !strings.Contains(logs.String(), "CallToolParamsRaw") {
				t.Errorf("the SDK's message was not logged:\n%s", logs)
			}
		})
	}
}

// teeReadCloser lets a test keep the bytes the client read.
type teeReadCloser struct {
	io.Reader
	io.Closer
}

// TestIOTransportPassesEverythingElseUnchanged: the SDK's client, over a
// stdio-like stream, reads exactly the bytes the bare SDK transport would
// have given it for everything but the SDK's own errors: the handshake,
// listings, results, tool errors and the JSON-RPC errors Middleware
// already rendered.
func TestIOTransportPassesEverythingElseUnchanged(t *testing.T) {
	for _, kind := range pipeKinds {
		t.Run(kind.name, func(t *testing.T) {
			var got [2]bytes.Buffer
			for i, wrapped := range []bool{false, true} {
				s, wr := ioServer(io.Discard)
				p := kind.open(t)
				serveIO(t, s, wr, p, wrapped)
				ctx := context.Background()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
					&mcp.IOTransport{Reader: teeReadCloser{io.TeeReader(p.clientIn, &got[i]), p.clientIn}, Writer: p.clientOut}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := cs.ListTools(ctx, nil); err != nil {
					t.Fatal(err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 21}})
				if err != nil || res.IsError || !strings.Contains(string(mustJSON(t, res.StructuredContent)), `"n":42`) {
					t.Fatalf("want the result, got %v %v", res, err)
				}
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: map[string]any{"n": 1}})
				if err != nil || !res.IsError {
					t.Fatalf("want a tool error, got %v %v", res, err)
				}
				for _, args := range []map[string]any{{"n": 2}, {"n": "two"}} {
					if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t", Arguments: args}); err == nil {
						t.Fatalf("%v: want a JSON-RPC error", args)
					}
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"}); err == nil {
					t.Fatal("want a JSON-RPC error for an unknown tool")
				}
				if err := cs.Ping(ctx, nil); err != nil {
					t.Fatal(err)
				}
				cs.Close()
			}
			if got[0].Len() == 0 || !bytes.Equal(got[0].Bytes(), got[1].Bytes()) {
				t.Fatalf("the client read other bytes through mcpfault.IOTransport\nSDK:\n%s\nmcpfault:\n%s", &got[0], &got[1])
			}
		})
	}
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestIOTransportKeepsTheSDKsBatchRules: before protocol 2025-06-18 a
// batch is answered in one frame, in which only the SDK's own error is
// rewritten; from 2025-06-18 the SDK refuses a batch and ends the session,
// through mcpfault.IOTransport as through its own. Notifications, bad ones
// included, get no answer either way.
func TestIOTransportKeepsTheSDKsBatchRules(t *testing.T) {
	batch := `[{"jsonrpc":"2.0","id":20,"method":"ping"},` +
		`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":{"secret":"password=swordfish"}}},` +
		`{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"t","arguments":{"n":4}}}]`
	for _, kind := range pipeKinds {
		t.Run(kind.name, func(t *testing.T) {
			var frames [2][]json.RawMessage
			for i, wrapped := range []bool{false, true} {
				s, wr := ioServer(io.Discard)
				p := kind.open(t)
				serveIO(t, s, wr, p, wrapped)
				peer := newRawPeer(t, p, "2025-03-26")
				peer.send(`{"jsonrpc":"2.0","method":"no/such/notification","params":{"token":"x"}}`)
				peer.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}`)
				line := peer.call(batch)
				if err := json.Unmarshal([]byte(line), &frames[i]); err != nil || len(frames[i]) != 3 {
					t.Fatalf("wrapped %v: want a batch of three answers, got %s", wrapped, line)
				}
			}
			for _, j := range []int{0, 2} {
				if !bytes.Equal(frames[0][j], frames[1][j]) {
					t.Errorf("answer %d changed:\n%s\n%s", j, frames[0][j], frames[1][j])
				}
			}
			rewritten := string(frames[1][1])
			if !strings.Contains(rewritten, `"id":21`) || !strings.Contains(rewritten, `"code":-32602`) ||
				!strings.Contains(rewritten, `"data":{`) || strings.Contains(rewritten, "swordfish") || strings.Contains(rewritten, "mcp.") {
				t.Errorf("the SDK's error in the batch was not rewritten: %s", rewritten)
			}

			for _, wrapped := range []bool{false, true} {
				s, wr := ioServer(io.Discard)
				p := kind.open(t)
				serveIO(t, s, wr, p, wrapped)
				peer := newRawPeer(t, p, "2025-06-18")
				peer.send(batch)
				if line, err := peer.r.ReadString('\n'); err != io.EOF {
					t.Errorf("wrapped %v: a batch in 2025-06-18 was answered %q %v, want the session ended", wrapped, line, err)
				}
			}
		})
	}
}

// TestStdioTransportLeavesStdoutOpen: the stdio transport is the SDK's
// over the process's stdin and stdout, rewriting what it writes; closing
// its session must not close stdout, which the SDK's own never does.
func TestStdioTransportLeavesStdoutOpen(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	saved := os.Stdout
	os.Stdout = w
	tr := mcpfault.StdioTransport()
	os.Stdout = saved
	if tr.Reader != os.Stdin {
		t.Fatalf("reads %v, not stdin", tr.Reader)
	}
	frame := `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"method not found: \"x/y\""}}` + "\n"
	if _, err := tr.Writer.Write([]byte(frame)); err != nil {
		t.Fatal(err)
	}
	if err := tr.Writer.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("still open\n")); err != nil {
		t.Fatalf("stdout was closed: %v", err)
	}
	rd := bufio.NewReader(r)
	line, _ := rd.ReadString('\n')
	if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"not_found: `) || strings.Contains(line, "x/y") {
		t.Errorf("not rewritten: %s", line)
	}
}
