package middleware

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime"
	"strconv"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// Recover turns a panic in the handler into a 500 internal problem with the
// generic public detail. The panic value and the stack go to the problem's
// single log record, under the request's correlation ID; the client sees
// neither. (If the body limit had already cut the request body, the panic is
// taken to be its consequence and the problem is request_too_large.)
//
// A panic after the response started cannot become a problem: it is logged
// and the connection is aborted, so the client sees a truncated response
// rather than a clean one. http.ErrAbortHandler is re-panicked untouched:
// it is how handlers ask net/http for exactly that. panic(nil) is handled,
// since Go 1.21 turns it into a *runtime.PanicNilError (unless
// GODEBUG=panicnil=1, which makes it invisible to recover).
func Recover() func(http.Handler) http.Handler {
	return (&config{}).layer(partRecover)
}

// recoverPanic is the deferred function of a recovering layer: recover
// works only when called by the deferred function itself.
func (l *layer) recoverPanic(st *state, own bool) {
	l.finish(st, own, recover())
}

// panicError carries the panic value to the log as the problem's error.
type panicError struct{ value any }

func (e *panicError) Error() string { return "panic: " + safeString(e.value) }

// ErrorType names the failure for tracing: OpenTelemetry's semantic
// conventions read an ErrorType method for exception.type, so a recovered
// panic is recorded as "panic", not as this package's unexported type.
func (e *panicError) ErrorType() string { return "panic" }

// Unwrap exposes a panicked error to errors.Is and errors.As in log
// handlers.
func (e *panicError) Unwrap() error {
	err, _ := e.value.(error)
	return err
}

func (l *layer) recovered(st *state, v any) {
	if v == http.ErrAbortHandler {
		panic(v)
	}
	stack := stackFrames()
	if st.pending.Swap(0) != 0 {
		// The handler sent a bare error status, then panicked before the
		// guard wrote its problem: the panic is the better account.
		st.flags.And(^(fStarted | fReplaced))
	}
	var p *problem.Problem
	if st.flags.Load()&fTripped != 0 {
		p = tooLarge(st)
	} else {
		p = problem.New(problem.Internal).ForRequest(st.req)
	}
	// The panic's text passes the log tier here, as the error chain does in
	// problem: a panic value can carry a DSN or a token, and a handler
	// other than sanitize's would log it raw and whole.
	p = p.Wrap(&panicError{v}).WithLogAttrs(
		sanitize.LogAttr("panic", safeString(v)),
		stack,
		slog.String("written_by", "faultline.recover"),
	)
	f := st.flags.Load()
	if f&(fTimedOut|fReplaced) != 0 {
		// The client already has a complete problem; aborting now would
		// only truncate it. problem.Write logs the panic and writes nothing.
		st.safeWrite(st, p)
		return
	}
	if !st.safeWrite(st, p) || f&fStarted != 0 {
		panic(http.ErrAbortHandler)
	}
}

// stackFramesMax bounds the stack logged for a panic; the frames that
// matter are the deepest ones, which come first.
const stackFramesMax = 64

// stackFrames is the stack of the goroutine that panicked, called from the
// deferred function that recovered: one element per frame, "function
// (file:line)", so the log keeps one frame per line in any tool and the JSON
// handler never escapes newlines into one long string. Each element passes
// the log tier like any other text, since a function name can carry a
// type's name chosen elsewhere.
func stackFrames() slog.Attr {
	var pcs [stackFramesMax]uintptr
	// Skip runtime.Callers and stackFrames itself.
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	out := make([]string, 0, n)
	for {
		f, more := frames.Next()
		out = append(out, sanitize.Log(f.Function+" ("+f.File+":"+strconv.Itoa(f.Line)+")"))
		if !more {
			break
		}
	}
	return slog.Any("stack", out)
}

// safeString formats a panic value whose own methods may panic. A map,
// struct or slice without a text of its own is written as sanitize's log
// handler writes it: with its field names, which %v drops (leaving a
// password bare among the values, where the log tier cannot tell it from
// a host), and each value under a credential's name redacted whole.
func safeString(v any) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("%T (formatting it panicked)", v)
		}
	}()
	switch v.(type) {
	case error, fmt.Stringer, fmt.Formatter:
		return fmt.Sprint(v)
	}
	switch reflect.Indirect(reflect.ValueOf(v)).Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		a := sanitize.ReplaceAttr(nil, slog.Any("panic", v))
		switch x := a.Value.Any().(type) {
		case string:
			return x
		case json.RawMessage:
			return string(x)
		}
		return fmt.Sprintf("%+v", v)
	}
	return fmt.Sprint(v)
}
