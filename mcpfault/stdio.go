package mcpfault

import (
	"bytes"
	"context"
	"io"
	"os"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport serves MCP over stdin and stdout like mcp.StdioTransport,
// with the errors the SDK answers on its own rewritten as [IOTransport]
// does. Closing the session closes stdin, never stdout, as the SDK's does.
func StdioTransport(opts ...Option) *mcp.IOTransport {
	return IOTransport(os.Stdin, stdout{os.Stdout}, opts...)
}

// IOTransport is the SDK's mcp.IOTransport over r and w, with every
// JSON-RPC error the SDK answers on its own, before any middleware runs
// (params that do not decode into the method's type, an unknown method, a
// call without params), rewritten as [Handler] rewrites it over HTTP: the
// SDK's message, which quotes the request and names Go types, is logged
// through the Writer of [WithWriter] under a fresh correlation ID, and the
// agent gets a JSON-RPC error with the same code whose data is the problem.
// Every other frame is written as the SDK wrote it.
//
// It returns the SDK's own transport, only its writer wrapped, so the
// SDK's session rules (batches are refused from protocol 2025-06-18 on)
// and MaxLineLength stay as they are. For a server in the same process,
// serve it over a pair of pipes: mcp.NewInMemoryTransports gives no stream
// to wrap.
func IOTransport(r io.ReadCloser, w io.WriteCloser, opts ...Option) *mcp.IOTransport {
	c := config{}
	for _, o := range opts {
		o(&c)
	}
	return &mcp.IOTransport{Reader: r, Writer: &frameWriter{WriteCloser: w, writer: c.writer}}
}

type stdout struct{ io.Writer }

func (stdout) Close() error { return nil }

// frameWriter is the stream the SDK writes its newline-delimited frames to.
type frameWriter struct {
	io.WriteCloser
	writer *problem.Writer // nil: problem.Default() when a failure is reported
}

// Write passes b on, each frame of it that holds an error the SDK wrote
// itself rewritten. The SDK writes one whole frame per Write; a write of
// several is rewritten frame by frame, so none passes as the SDK wrote it.
func (w *frameWriter) Write(b []byte) (int, error) {
	if !bytes.Contains(b, []byte(`"error"`)) {
		return w.WriteCloser.Write(b)
	}
	out, changed := rewriteLines(b, w.rewrite)
	if !changed {
		return w.WriteCloser.Write(b)
	}
	if _, err := w.WriteCloser.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// rewrite answers one frame as the HTTP path answers one response body.
// A frame is the stream's unit as a request is HTTP's: each failing one
// gets its own correlation ID.
func (w *frameWriter) rewrite(frame []byte) ([]byte, bool) {
	if !bytes.Contains(frame, []byte(`"error"`)) {
		return nil, false
	}
	ctx := problemhook.NewContext(context.Background(), w.writer)
	return rewriteJSON(correlation.WithID(ctx, corrstate.NewID()), frame)
}
