package sanitize

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/faultline-go/faultline/internal/logmark"
)

// NewLogHandler wraps next so that every record it receives has passed the
// log tier: the message, every string attribute (in groups too, and those
// added with WithAttrs), and every error or fmt.Stringer value, which is
// turned into its sanitized string. An attribute's key is read with its
// value, as "key=value" in a message would be: slog.String("password", pw)
// goes out as "[redacted]" whatever pw looks like. Maps, structs and slices
// are read as slog's text and JSON handlers would write them, and go out
// as written, or as their redacted rendering when they hold a secret; a
// field or map key names its value as an attribute's key does, and a
// composite under a credential's key is read with that key.
func NewLogHandler(next slog.Handler) slog.Handler {
	return &logHandler{next: next}
}

// ReplaceAttr applies the log tier to one attribute, for use as
// slog.HandlerOptions.ReplaceAttr. slog does not call ReplaceAttr for group
// attributes themselves, but their members reach it one by one.
func ReplaceAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 && heldSecret(groups[len(groups)-1], a) {
		return slog.String(Log(a.Key), Redacted)
	}
	a, _ = cleanAttr(a)
	return a
}

type logHandler struct {
	next slog.Handler
	// group is the innermost WithGroup's name: a member that only holds
	// ("value", "data") holds what the group's name names.
	group string
}

// clean is cleanAttr for an attribute of the handler's innermost group.
func (h *logHandler) clean(a slog.Attr) (slog.Attr, bool) {
	if h.group != "" && heldSecret(h.group, a) {
		return slog.String(Log(a.Key), Redacted), true
	}
	return cleanAttr(a)
}

// WrappedHandler tells the kit which handler this one hands records to.
func (h *logHandler) WrappedHandler(logmark.Key) slog.Handler { return h.next }

func init() {
	logmark.Text = Log
	logmark.Altered = func(s string) bool { return Log(s) != s }
}

func (h *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle passes r on untouched when the log tier changes nothing in it,
// which is the common case; a record is rebuilt only around what changed.
// The message and leading attributes of a record the problem writer built
// have passed the tier already (see internal/logmark) and are not scanned
// again.
func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	clean, cleanMsg := logmark.Clean(ctx, &r)
	if cleanMsg && clean == r.NumAttrs() {
		// Built by the problem writer, every attribute vouched for: the
		// common case, handed on without the rest's frame.
		return h.next.Handle(ctx, r)
	}
	return h.handle(ctx, r, clean, cleanMsg)
}

// handle is Handle for a record with attributes, or a message, the log
// tier has not seen.
func (h *logHandler) handle(ctx context.Context, r slog.Record, clean int, cleanMsg bool) error {
	msg := r.Message
	if !cleanMsg {
		msg = Log(r.Message)
	}
	// same counts the leading attributes that need no change; first is the
	// cleaned form of the one after them, kept so that no value is turned
	// into text twice (a Stringer may not answer the same way again).
	same := 0
	var first slog.Attr
	if msg == r.Message {
		if clean == r.NumAttrs() {
			return h.next.Handle(ctx, r)
		}
		changed := false
		r.Attrs(func(a slog.Attr) bool {
			if same < clean {
				same++
				return true
			}
			first, changed = h.clean(a)
			if !changed {
				same++
			}
			return !changed
		})
		if !changed {
			return h.next.Handle(ctx, r)
		}
	}
	out := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	// Collected first so that AddAttrs grows the record's overflow once.
	var buf [16]slog.Attr
	attrs := buf[:0]
	i := 0
	r.Attrs(func(a slog.Attr) bool {
		switch {
		case i < same:
		case i == same && msg == r.Message:
			a = first
		default:
			a, _ = h.clean(a)
		}
		attrs = append(attrs, a)
		i++
		return true
	})
	out.AddAttrs(attrs...)
	return h.next.Handle(ctx, out)
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i], _ = h.clean(a)
	}
	return &logHandler{next: h.next.WithAttrs(clean), group: h.group}
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &logHandler{next: h.next.WithGroup(Log(name)), group: name}
}

// isLogged reports an attribute whose key and value passed the log tier
// together where they were made (LogAttr, AppendLogAttrs).
func isLogged(a slog.Attr) bool {
	if a.Value.Kind() != slog.KindLogValuer {
		return false
	}
	m, ok := a.Value.Any().(*logged)
	return ok && m.key == a.Key
}

// cleanAttr returns a passed through the log tier and whether that changed
// it.
func cleanAttr(a slog.Attr) (slog.Attr, bool) {
	if isLogged(a) {
		// Key and value passed the log tier together where they were made.
		return a, false
	}
	key := Log(a.Key)
	v, textual := textValue(a.Value)
	if credentialValue(a.Key, v) {
		return slog.Attr{Key: key, Value: slog.StringValue(Redacted)}, true
	}
	held := false
	if v.Kind() == slog.KindGroup {
		v, held = redactHolders(a.Key, v)
	}
	v, changed := cleanValue(v)
	if !changed && !held && !textual && key == a.Key {
		return a, false
	}
	return slog.Attr{Key: key, Value: v}, true
}

// textValue resolves a LogValuer and turns an error or a fmt.Stringer into
// its text, once: the key's test and the tier then read the same text (a
// Stringer may not answer the same way twice). It reports whether v was
// turned: passed on, a LogValuer would be resolved again downstream, and
// need not give what was checked here.
func textValue(v slog.Value) (slog.Value, bool) {
	turned := false
	if v.Kind() == slog.KindLogValuer {
		if _, ok := v.Any().(*logged); ok {
			return v, false
		}
		v, turned = v.Resolve(), true
	}
	if v.Kind() != slog.KindAny {
		return v, turned
	}
	switch x := v.Any().(type) {
	case slog.Level:
		// A Stringer, but ReplaceAttr chains rely on the level keeping
		// its type, and its text holds nothing secret.
	case error:
		return slog.StringValue(safeString(x, x.Error)), true
	case fmt.Stringer:
		return slog.StringValue(safeString(x, x.String)), true
	}
	return v, turned
}

func cleanValue(v slog.Value) (slog.Value, bool) {
	switch v.Kind() {
	case slog.KindString:
		s := v.String()
		if c := Log(s); c != s {
			return slog.StringValue(c), true
		}
	case slog.KindGroup:
		attrs := v.Group()
		for i, a := range attrs {
			c, changed := cleanAttr(a)
			if !changed {
				continue
			}
			clean := make([]slog.Attr, len(attrs))
			copy(clean, attrs[:i])
			clean[i] = c
			for j := i + 1; j < len(attrs); j++ {
				clean[j], _ = cleanAttr(attrs[j])
			}
			return slog.GroupValue(clean...), true
		}
	case slog.KindLogValuer:
		// Sanitized where it was made (textValue resolves every other
		// LogValuer first); the next handler resolves it to the same text.
	case slog.KindAny:
		if _, ok := v.Any().(slog.Level); !ok {
			return cleanComposite(v)
		}
	}
	return v, false
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
