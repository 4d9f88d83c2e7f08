package problem

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/faultline-go/faultline/internal/logmark"
	"github.com/faultline-go/faultline/internal/problemhook"
)

// log writes the one record a problem produces. The wrapped error chain and
// a hidden detail go here, never to the client; they pass the log tier of
// sanitize so credentials stay out of the log even when the caller's
// handler does not redact, while addresses and SQL stay for the operator.
//
// The record is built here and handed to the handler directly: Logger.LogAttrs
// would need the attributes in a slice that escapes, and would report this
// function as the source. The source is the code that called Write
// (log, write, then the exported function: four frames up).
func (wr *Writer) log(r *http.Request, res *Problem, e *codeEntry, started bool, pc uintptr) {
	ctx := context.Background()
	if r != nil {
		ctx = r.Context()
	}
	wr.logRecord(ctx, r, res, e, started, pc, 5)
}

// logRecord builds and handles the record; e is the registry entry of
// res's code, if known. pc is the record's source, or 0 to take it from the
// stack, skip frames up from runtime.Callers.
//
// Every attribute the writer adds passes the log tier here: those that
// take one of a few values (code, cause, action, a standard method) were
// made once, and a path or error text that repeats is remembered
// (textAttrs). The record is handed on marked (internal/logmark), so
// sanitize's log handler scans only the attributes the problem's builder
// added. What is logged is the same, byte for byte, through any handler.
func (wr *Writer) logRecord(ctx context.Context, r *http.Request, res *Problem, e *codeEntry, started bool, pc uintptr, skip int) {
	h := wr.Logger().Handler()
	level := wr.level(res)
	if !h.Enabled(ctx, level) {
		return
	}
	msg := "problem"
	if started {
		msg = "problem not written: response already started"
	}
	if pc == 0 {
		var pcs [1]uintptr
		runtime.Callers(skip, pcs[:])
		pc = pcs[0]
	}
	rec := slog.NewRecord(time.Now(), level, msg, pc)
	// Collected first so that AddAttrs fills the record's inline storage and
	// allocates an overflow, if any, once.
	var attrs [10]slog.Attr
	n := 0
	// The attributes every record of the code carries, then those of the
	// route, come first: in the logger's handler when they could be added
	// there once (prefixed, routePrefixed), else in the record, in the same
	// order either way.
	codeInHandler, routeInHandler := false, false
	if ph := e.prefixed(h, res); ph != nil {
		codeInHandler = true
		if r != nil {
			if rh := e.routePrefixed(h, ph, r.Method, problemhook.LoggedPath(r.URL.Path)); rh != nil {
				ph, routeInHandler = rh, true
			}
		}
		h = ph
	}
	if !codeInHandler {
		var code slog.Attr
		if e != nil && string(e.def.Code) == res.code {
			code = e.code
		} else {
			code = logString("code", res.code)
		}
		attrs[0], attrs[1], attrs[2], attrs[3] = code, slog.Int("status", res.status),
			causeAttrs.attr(res.cause), actionAttrs.attr(res.action)
		n = 4
	}
	if r != nil && !routeInHandler {
		attrs[n], attrs[n+1] = methodAttrs.attr(r.Method), textAttrs.attr("path", problemhook.LoggedPath(r.URL.Path))
		n += 2
	}
	if res.correlationFresh {
		// A UUID the correlation layer generated: the log tier answers
		// one with the UUID itself (TestGeneratedIDsPassTheLogTier).
		attrs[n] = slog.String("correlation_id", res.correlationID)
	} else {
		attrs[n] = logString("correlation_id", res.correlationID)
	}
	n++
	if res.err != nil {
		attrs[n] = textAttrs.attr("error", errorText(res.err))
		n++
	}
	if d := res.hiddenDetail(); d != "" {
		attrs[n] = textAttrs.attr("hidden_detail", d)
		n++
	}
	if res.buildErr != nil {
		attrs[n] = textAttrs.attr("build_error", errorText(res.buildErr))
		n++
	}
	if started {
		attrs[n] = slog.Bool("response_started", true)
		n++
	}
	rec.AddAttrs(attrs[:n]...)
	if len(res.logAttrs) > 0 {
		// AddAttrs costs as much with nothing to add as with two.
		rec.AddAttrs(res.logAttrs...)
	}
	_ = h.Handle(logmark.With(ctx, &rec, n), rec)
}

// errorText is err.Error(), or what its Error method panicked with: the
// writer asks for it after the status line went out, so a handler's error
// type with a bug (a field never set) cut the response it failed with and
// lost its record.
func errorText(err error) (s string) {
	defer func() {
		if v := recover(); v != nil {
			s = fmt.Sprintf("%T (Error panicked: %v)", err, v)
		}
	}()
	return err.Error()
}

func (wr *Writer) level(p *Problem) slog.Level {
	switch {
	case p.buildErr != nil:
		// A programming error in how the problem was built.
		return slog.LevelError
	case p.status >= 500:
		return slog.LevelError
	case p.status == http.StatusTooManyRequests, p.status == http.StatusUnauthorized,
		p.status == http.StatusForbidden, p.cause == CauseAuth:
		return slog.LevelWarn
	}
	return wr.clientErrorLevel
}
