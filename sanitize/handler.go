package sanitize

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
)

// NewLogHandler wraps next so that every record it receives has passed the
// log tier: the message, every string attribute (in groups too, and those
// added with WithAttrs), and every error or fmt.Stringer value, which is
// turned into its sanitized string.
func NewLogHandler(next slog.Handler) slog.Handler {
	return &logHandler{next: next}
}

// ReplaceAttr applies the log tier to one attribute, for use as
// slog.HandlerOptions.ReplaceAttr. slog does not call ReplaceAttr for group
// attributes themselves, but their members reach it one by one.
func ReplaceAttr(_ []string, a slog.Attr) slog.Attr {
	return sanitizeAttr(a)
}

type logHandler struct {
	next slog.Handler
}

func (h *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Log(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(sanitizeAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = sanitizeAttr(a)
	}
	return &logHandler{next: h.next.WithAttrs(clean)}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return &logHandler{next: h.next.WithGroup(Log(name))}
}

func sanitizeAttr(a slog.Attr) slog.Attr {
	a.Key = Log(a.Key)
	a.Value = sanitizeValue(a.Value)
	return a
}

func sanitizeValue(v slog.Value) slog.Value {
	if v.Kind() == slog.KindLogValuer {
		if l, ok := v.Any().(logged); ok {
			return slog.StringValue(string(l))
		}
	}
	v = v.Resolve()
	switch v.Kind() {
	case slog.KindString:
		s := v.String()
		if c := Log(s); c != s {
			return slog.StringValue(c)
		}
	case slog.KindGroup:
		attrs := v.Group()
		clean := make([]slog.Attr, len(attrs))
		for i, a := range attrs {
			clean[i] = sanitizeAttr(a)
		}
		return slog.GroupValue(clean...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case slog.Level:
			// A Stringer, but ReplaceAttr chains rely on the level keeping
			// its type, and its text holds nothing secret.
		case error:
			return slog.StringValue(Log(safeString(x, x.Error)))
		case fmt.Stringer:
			return slog.StringValue(Log(safeString(x, x.String)))
		}
	}
	return v
}

// safeString calls a method of a logged value the way slog's own handlers
// do: a nil receiver reads "<nil>" and a panic is reported, not propagated
// out of the logging call.
func safeString(x any, method func() string) (s string) {
	defer func() {
		if r := recover(); r != nil {
			if v := reflect.ValueOf(x); v.Kind() == reflect.Pointer && v.IsNil() {
				s = "<nil>"
				return
			}
			s = fmt.Sprintf("!PANIC: %v", r)
		}
	}()
	return method()
}
