package mcpfault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rewriteSDKErrors returns b with every JSON-RPC error that carries no
// data (one the SDK wrote itself; Middleware always sets data) replaced by
// the problem it stands for. b is one write of the streamable HTTP
// handler: a JSON response (one message or a batch) or one server-sent
// event. The common case, a write without an error member, costs one scan.
func rewriteSDKErrors(ctx context.Context, contentType string, b []byte) ([]byte, bool) {
	if !bytes.Contains(b, []byte(`"error"`)) {
		return nil, false
	}
	switch {
	case strings.HasPrefix(contentType, "application/json"):
		return rewriteJSON(ctx, b)
	case strings.HasPrefix(contentType, "text/event-stream"):
		return rewriteEvents(ctx, b)
	}
	return nil, false
}

// rewriteEvents rewrites every data line of an event-stream write that
// holds an SDK error. The SDK writes one event per write, its message on
// one data line, but nothing makes a write carry only one: an error in a
// second event, or after a line the client ignores, must not pass as the
// SDK wrote it. Every other line passes as it came.
func rewriteEvents(ctx context.Context, b []byte) ([]byte, bool) {
	return rewriteLines(b, func(content []byte) ([]byte, bool) {
		value, ok := bytes.CutPrefix(content, []byte("data:"))
		if !ok {
			return nil, false
		}
		msg, ok := rewriteMessage(ctx, bytes.TrimPrefix(value, []byte(" ")))
		if !ok {
			return nil, false
		}
		field := content[:len(content)-len(value)]
		return append(append(append(make([]byte, 0, len(field)+1+len(msg)), field...), ' '), msg...), true
	})
}

// rewriteLines rewrites b line by line: rewrite gets each line without its
// line ending and returns the line's new text, or false to keep it as it
// came. Line endings stay; it reports false when no line changed.
func rewriteLines(b []byte, rewrite func(line []byte) ([]byte, bool)) ([]byte, bool) {
	var out []byte
	changed := false
	for rest := b; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		done := len(b) - len(rest)
		rest = rest[len(line):]
		content := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		msg, ok := rewrite(content)
		switch {
		case ok && !changed:
			out = append(out, b[:done]...)
			changed = true
			fallthrough
		case ok:
			out = append(append(out, msg...), line[len(content):]...)
		case changed:
			out = append(out, line...)
		}
	}
	return out, changed
}

func rewriteJSON(ctx context.Context, b []byte) ([]byte, bool) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return rewriteMessage(ctx, trimmed)
	}
	var batch []json.RawMessage
	if json.Unmarshal(trimmed, &batch) != nil {
		return nil, false
	}
	changed := false
	for i, m := range batch {
		if out, ok := rewriteMessage(ctx, m); ok {
			batch[i], changed = out, true
		}
	}
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(batch)
	return out, err == nil
}

type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Error   *jsonrpc.Error  `json:"error"`
}

func rewriteMessage(ctx context.Context, raw []byte) ([]byte, bool) {
	var m wireResponse
	if json.Unmarshal(raw, &m) != nil || m.Error == nil || len(m.Error.Data) > 0 {
		return nil, false
	}
	p := sdkProblem(m.Error.Code).Wrap(errors.New(m.Error.Message))
	p = problem.FromContext(ctx).Report(ctx, correlation.ID(ctx), p)
	m.JSONRPC, m.Error = "2.0", rpcError(int(m.Error.Code), p)
	out, err := json.Marshal(m)
	return out, err == nil
}

// sdkTextErrors are the plain-text 400s the SDK's streamable handler
// writes for a message it could not dispatch, by the start of their text,
// with the JSON-RPC code each stands for. Any other plain-text 400 (a
// transport matter: headers, session) is left to the kit's Guard.
var sdkTextErrors = []struct {
	prefix string
	code   int64
}{
	{"malformed payload", jsonrpc.CodeParseError},
	{"invalid request", jsonrpc.CodeInvalidRequest},
	{"JSON RPC not handled", jsonrpc.CodeMethodNotFound},
	// A batch, which protocol 2025-06-18 and later do not allow.
	{"JSON-RPC batching is not supported", jsonrpc.CodeInvalidRequest},
}

// sdkTextError answers one of sdkTextErrors as a JSON-RPC error response
// (id null: the SDK did not say which call failed) whose data is the
// problem, and logs the SDK's text.
func sdkTextError(ctx context.Context, text []byte) ([]byte, bool) {
	for _, e := range sdkTextErrors {
		if !bytes.HasPrefix(text, []byte(e.prefix)) {
			continue
		}
		code := e.code
		if code == jsonrpc.CodeParseError && !notJSON(text) {
			code = jsonrpc.CodeInvalidRequest
		}
		p := sdkProblem(code).Wrap(errors.New(strings.TrimSpace(string(text))))
		p = problem.FromContext(ctx).Report(ctx, correlation.ID(ctx), p)
		out, err := json.Marshal(wireResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: rpcError(int(code), p)})
		return out, err == nil
	}
	return nil, false
}

// notJSON tells, from the SDK's "malformed payload" text, a body that is
// not JSON at all (JSON-RPC's -32700 parse error) from JSON that is not a
// valid request object (a wrong version tag, a bare value, an empty batch,
// an id or method of the wrong type: -32600). The SDK says which only in
// text: encoding/json's syntax errors, or an early end of input.
func notJSON(text []byte) bool {
	for _, s := range []string{"invalid character", "unexpected end of JSON input", "unexpected EOF"} {
		if bytes.Contains(text, []byte(s)) {
			return true
		}
	}
	return false
}

// sdkProblem is the problem for an error code the SDK answers with before
// any method handler runs.
func sdkProblem(code int64) *problem.Problem {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest:
		return problem.New(problem.InvalidJSON).WithDetail("The message is not a valid JSON-RPC request.")
	case jsonrpc.CodeMethodNotFound:
		return problem.New(problem.NotFound).WithDetail("The method does not exist on this server.")
	case jsonrpc.CodeInvalidParams:
		return problem.New(problem.BadRequest).WithDetail("The method's params are missing or do not have the expected shape.")
	}
	return problem.New(problem.Internal)
}
