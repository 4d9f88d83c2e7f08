package mcpfault

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TooLarge answers a JSON-RPC request that the body limit refused (413
// request_too_large) in JSON-RPC: the body is a JSON-RPC error response
// with the request's id, code -32600 and the problem as data, still under
// status 413. An MCP client reads it as the failure of that one call and
// the session goes on; the SDK's client, given the problem+json document
// instead, sees only "Request Entity Too Large" and closes the session.
//
// Mount it outside middleware.Stack, which refuses a Content-Length over
// the limit before anything inside it runs:
//
//	mux.Handle("/mcp", mcpfault.TooLarge(middleware.Stack(middleware.WithBodyLimit(1<<20))(mcpfault.Handler(h))))
//
// The id is read from the body's first MiB (the bytes the handler read, and
// as many more as it takes), never decoded whole. A request is answered in
// JSON-RPC only when that prefix is a JSON-RPC 2.0 object and its Accept
// header does not ask for a problem media type; anything else (a plain
// HTTP client, a body that is not JSON-RPC) keeps the problem as the Stack
// wrote it. Every other response passes through untouched.
func TooLarge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body := &scannedBody{rc: r.Body}
		r.Body = body
		tw := &tooLargeWriter{ResponseWriter: w, r: r, body: body}
		next.ServeHTTP(tw, r)
		tw.finish()
	})
}

// scanLimit bounds how much of a refused body is read to find its id.
const scanLimit = 1 << 20

// heldLimit bounds the problem document held while it is rewritten; the
// kit's are a few hundred bytes.
const heldLimit = 64 << 10

type tooLargeWriter struct {
	http.ResponseWriter
	r       *http.Request
	body    *scannedBody
	started bool
	held    bool // a 413 to answer in JSON-RPC: its body is collected, not sent
	buf     []byte
}

func (w *tooLargeWriter) WriteHeader(status int) {
	if !w.started && status == http.StatusRequestEntityTooLarge && w.wantsRPC() {
		w.started, w.held = true, true
		return
	}
	if status >= 200 {
		w.started = true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *tooLargeWriter) Write(b []byte) (int, error) {
	if w.held {
		if len(w.buf)+len(b) <= heldLimit {
			w.buf = append(w.buf, b...)
		}
		return len(b), nil
	}
	w.started = true
	return w.ResponseWriter.Write(b)
}

// Flush keeps streaming responses streaming; a held answer is sent whole.
func (w *tooLargeWriter) Flush() {
	if w.held {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		w.started = true
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *tooLargeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wantsRPC reports whether the request is a JSON-RPC call whose client
// reads a JSON-RPC answer, reading on through the body as far as needed.
func (w *tooLargeWriter) wantsRPC() bool {
	accept := strings.ToLower(strings.Join(w.r.Header.Values("Accept"), ","))
	if strings.Contains(accept, "application/problem+") {
		return false
	}
	if accept != "" && !strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/event-stream") &&
		!strings.Contains(accept, "*/*") && !strings.Contains(accept, "application/*") {
		return false
	}
	w.body.complete()
	return w.body.scan.isRPC()
}

// finish sends a held 413 as a JSON-RPC error whose data is the problem
// the Stack wrote (already logged there, so not logged again).
func (w *tooLargeWriter) finish() {
	if !w.held {
		return
	}
	data := bytes.TrimSpace(w.buf)
	var doc struct {
		Code   string `json:"code"`
		Title  string `json:"title"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(data, &doc) != nil || doc.Code == "" {
		// Not a problem document (no Stack inside, or one in another
		// representation): the problem is made here.
		p := problem.FromContext(w.r.Context()).Resolve(w.r, problem.New(problem.RequestTooLarge))
		data = p.AppendJSON(nil)
		doc.Code, doc.Title, doc.Detail = string(p.Code()), p.Title(), p.Detail()
	}
	msg := doc.Detail
	if msg == "" {
		msg = doc.Title
	}
	out, err := json.Marshal(wireResponse{
		JSONRPC: "2.0",
		ID:      w.body.scan.idJSON(),
		Error:   &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: doc.Code + ": " + msg, Data: json.RawMessage(data)},
	})
	if err != nil {
		return
	}
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	if m, ok := w.ResponseWriter.(problemhook.ProblemMarker); ok {
		// Inside a Guard, this is the problem in its JSON-RPC
		// representation, not a bare error to replace.
		m.MarkProblem()
	}
	w.ResponseWriter.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = w.ResponseWriter.Write(out)
}

// scannedBody passes the request body through, showing every byte of its
// first scanLimit to an rpcScan.
type scannedBody struct {
	rc   io.ReadCloser
	scan rpcScan
	n    int64
	err  error
}

func (b *scannedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.n < scanLimit {
		b.scan.feed(p[:min(int64(n), scanLimit-b.n)])
	}
	b.n += int64(n)
	if err != nil {
		b.err = err
	}
	return n, err
}

func (b *scannedBody) Close() error { return b.rc.Close() }

// complete reads on until the scan has what it looks for, the body ends or
// scanLimit bytes have passed. A body the limit refused unread (its
// Content-Length was over the limit) is read here for the first time.
func (b *scannedBody) complete() {
	var buf [4096]byte
	for idle := 0; !b.scan.done && b.err == nil && b.n < scanLimit && idle < 16; {
		if n, _ := b.Read(buf[:]); n == 0 {
			idle++ // a reader that returns nothing, again and again
		}
	}
}

// rpcScan finds the top-level jsonrpc and id members of a JSON object fed
// to it in pieces, without holding the object: a byte-at-a-time state
// machine that skips nested values and keeps only short member values.
type rpcScan struct {
	depth       int
	inStr, esc  bool
	phase       uint8
	key         []byte
	keyLong     bool
	capture     bool
	val         []byte
	valLong     bool
	id, version []byte
	haveID      bool
	haveVersion bool
	done        bool
}

// The place in the top-level object the scan is at.
const (
	phaseKey    = iota // a member name or the end of the object is next
	phaseColon         // after a name
	phaseValue         // a value starts next
	phaseScalar        // inside a number or literal
	phaseComma         // after a value
)

func (s *rpcScan) feed(b []byte) {
	for _, c := range b {
		if s.done {
			return
		}
		s.step(c)
	}
}

func (s *rpcScan) step(c byte) {
	if s.inStr {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr = false
			if s.depth == 1 && s.phase == phaseKey {
				s.phase = phaseColon
				return
			}
			if s.depth == 1 {
				s.keep(c)
				s.endValue()
			}
			return
		}
		if s.depth == 1 && s.phase == phaseKey {
			if len(s.key) < 16 {
				s.key = append(s.key, c)
			} else {
				s.keyLong = true
			}
		} else if s.depth == 1 {
			s.keep(c)
		}
		return
	}
	if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
		if s.depth == 1 && s.phase == phaseScalar {
			s.endValue()
		}
		return
	}
	switch {
	case s.depth == 0:
		if c != '{' {
			s.done = true // a batch or no object: not one call
			return
		}
		s.depth, s.phase = 1, phaseKey
	case s.depth == 1:
		s.top(c)
	default:
		switch c {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth == 1 {
				s.phase = phaseComma
			}
		}
	}
}

// top steps through the top-level object outside strings.
func (s *rpcScan) top(c byte) {
	switch s.phase {
	case phaseKey:
		if c != '"' {
			s.done = true // the end of the object, or not JSON
			return
		}
		s.inStr, s.key, s.keyLong = true, s.key[:0], false
	case phaseColon:
		if c != ':' {
			s.done = true
			return
		}
		s.phase = phaseValue
		s.capture = !s.keyLong && (string(s.key) == "id" || string(s.key) == "jsonrpc")
		s.val, s.valLong = s.val[:0], false
	case phaseValue:
		switch c {
		case '"':
			s.inStr = true
			s.keep(c)
		case '{', '[':
			s.depth, s.capture = 2, false
		default:
			s.phase = phaseScalar
			s.keep(c)
		}
	case phaseScalar:
		switch c {
		case ',':
			s.endValue()
			s.phase = phaseKey
		case '}':
			s.endValue()
			s.done = true
		default:
			s.keep(c)
		}
	case phaseComma:
		if c != ',' {
			s.done = true
			return
		}
		s.phase = phaseKey
	}
}

func (s *rpcScan) keep(c byte) {
	if !s.capture {
		return
	}
	if len(s.val) < 256 {
		s.val = append(s.val, c)
	} else {
		s.valLong = true
	}
}

func (s *rpcScan) endValue() {
	s.phase = phaseComma
	if !s.capture || s.valLong {
		s.capture = false
		return
	}
	s.capture = false
	switch string(s.key) {
	case "id":
		if !s.haveID {
			s.id, s.haveID = append([]byte(nil), s.val...), true
		}
	case "jsonrpc":
		if !s.haveVersion {
			s.version, s.haveVersion = append([]byte(nil), s.val...), true
		}
	}
	if s.haveID && s.haveVersion {
		s.done = true
	}
}

func (s *rpcScan) isRPC() bool { return s.haveVersion && string(s.version) == `"2.0"` }

// idJSON is the request's id as it came, or null when it has none the
// answer can carry (a notification, or an id JSON-RPC does not allow).
func (s *rpcScan) idJSON() json.RawMessage {
	if !s.haveID || !json.Valid(s.id) {
		return json.RawMessage("null")
	}
	switch c := s.id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return json.RawMessage(s.id)
	}
	return json.RawMessage("null")
}
