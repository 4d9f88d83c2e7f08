package mcpfault

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// FuzzSDKErrorRewrite feeds the rewriters what the SDK's streamable handler
// could write for a hostile request: whatever they return is well formed,
// every JSON-RPC error in it carries the problem as data, and the SDK's
// message (which quotes the request) is not in it.
func FuzzSDKErrorRewrite(f *testing.F) {
	const marker = "s3cret-marker"
	for _, seed := range []struct {
		sse  bool
		body string
	}{
		{false, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool \"s3cret-marker\""}}`},
		{false, `[{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"s3cret-marker"}},{"jsonrpc":"2.0","id":2,"result":{}}]`},
		{false, `{"jsonrpc":"2.0","id":1,"result":{"error":"s3cret-marker"}}`},
		{true, "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"s3cret-marker\"}}\n\n"},
		{true, "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"s3cret-marker\",\"data\":{}}}\n\n"},
		{true, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\ndata:{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"s3cret-marker\"}}\r\n\r\n"},
		{false, "malformed payload: unmarshaling jsonrpc message: s3cret-marker\n"},
		{false, "JSON RPC not handled: \"s3cret-marker\" unsupported\n"},
		{false, "JSON-RPC batching is not supported in 2025-06-18 and later (request version: s3cret-marker)\n"},
	} {
		f.Add(seed.sse, seed.body)
	}
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	ctx := problemhook.NewContext(context.Background(), wr)
	f.Fuzz(func(t *testing.T, sse bool, body string) {
		ct := "application/json"
		if sse {
			ct = "text/event-stream"
		}
		if out, ok := rewriteSDKErrors(ctx, ct, []byte(body)); ok {
			if !sse {
				checkErrorsCarryProblems(t, out)
				if bytes.Contains(out, []byte(marker)) && !bytes.Contains([]byte(body), []byte(`"data"`)) && !bytes.Contains([]byte(body), []byte(`"result"`)) {
					t.Fatalf("the SDK's message survived the rewrite: %q -> %q", body, out)
				}
				return
			}
			// Every data line the rewrite changed is a message whose error
			// carries a problem and none of the SDK's text; every other
			// line is the stream's own and passes as it came, in order.
			in := bytes.SplitAfter([]byte(body), []byte("\n"))
			got := bytes.SplitAfter(out, []byte("\n"))
			if len(in) != len(got) {
				t.Fatalf("the rewrite changed the stream's lines: %q -> %q", body, out)
			}
			rewritten := 0
			for i, line := range got {
				if bytes.Equal(line, in[i]) {
					continue
				}
				msg, isData := bytes.CutPrefix(line, []byte("data:"))
				if !isData || !bytes.HasPrefix(in[i], []byte("data:")) {
					t.Fatalf("line %d is not a data line but changed: %q -> %q", i, in[i], line)
				}
				msg = bytes.TrimSuffix(bytes.TrimSuffix(bytes.TrimPrefix(msg, []byte(" ")), []byte("\n")), []byte("\r"))
				checkErrorsCarryProblems(t, msg)
				if bytes.Contains(msg, []byte(marker)) {
					t.Fatalf("the SDK's message survived the rewrite: %q -> %q", in[i], line)
				}
				rewritten++
			}
			if rewritten == 0 {
				t.Fatalf("a rewrite that changed nothing: %q", body)
			}
		}
		if out, ok := sdkTextError(ctx, []byte(body)); ok {
			checkErrorsCarryProblems(t, out)
			if bytes.Contains(out, []byte(marker)) {
				t.Fatalf("the SDK's text reached the client: %q -> %q", body, out)
			}
		}
	})
}

func checkErrorsCarryProblems(t *testing.T, msg []byte) {
	t.Helper()
	var all []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(msg), []byte("[")) {
		if err := json.Unmarshal(msg, &all); err != nil {
			t.Fatalf("rewritten batch is not JSON: %v: %q", err, msg)
		}
	} else {
		all = []json.RawMessage{msg}
	}
	for _, m := range all {
		var r struct {
			Error *struct {
				Data json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(m, &r); err != nil {
			t.Fatalf("rewritten message is not JSON: %v: %q", err, m)
		}
		if r.Error != nil {
			if _, err := problem.Parse(r.Error.Data); err != nil {
				t.Fatalf("error data is not a problem: %v: %q", err, m)
			}
		}
	}
}
