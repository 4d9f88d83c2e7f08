package correlation

import (
	"context"
	"log/slog"

	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/internal/logmark"
)

// Attribute keys the package logs under.
const (
	AttrKey      = "correlation_id"
	TraceAttrKey = "trace_id"
)

// NewHandler wraps next so that every record logged with a context carrying
// a correlation ID gets a top-level correlation_id attribute, and trace_id
// when the request had a trace. A key the record (or a logger.With made
// before any WithGroup) already carries at the top level is not added again,
// so code that logs correlation_id explicitly does not produce it twice.
//
// The attributes stay at the top level after WithGroup. To get there the
// handler keeps next ungrouped and, for records it has to annotate, rebuilds
// the groups and their attributes as nested Group attributes; the output is
// the same as next's own WithGroup would give. Records without an ID take the
// ordinary path through next's WithAttrs and WithGroup.
func NewHandler(next slog.Handler) slog.Handler {
	return &handler{next: next, root: next}
}

type handler struct {
	// next has every WithAttrs and WithGroup applied: the path for records
	// that get nothing added.
	next slog.Handler
	// root has only the WithAttrs made before the first WithGroup.
	root slog.Handler
	// rootHasID and rootHasTrace record whether root's attributes already
	// include our keys at the top level.
	rootHasID, rootHasTrace bool
	// groups holds each WithGroup since root with the attributes added
	// inside it, outermost first.
	groups []group
}

type group struct {
	name  string
	attrs []slog.Attr
}

// WrappedHandler tells the kit which handler this one hands records to.
func (h *handler) WrappedHandler(logmark.Key) slog.Handler { return h.next }

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	h2 := *h
	h2.next = h.next.WithAttrs(attrs)
	if len(h.groups) == 0 {
		h2.root = h2.next
		for _, a := range attrs {
			topLevelKeys(a, &h2.rootHasID, &h2.rootHasTrace)
		}
		return &h2
	}
	// Copy, never append in place: sibling handlers derived from h share
	// its slices.
	h2.groups = append([]group(nil), h.groups...)
	last := &h2.groups[len(h2.groups)-1]
	last.attrs = append(append(make([]slog.Attr, 0, len(last.attrs)+len(attrs)), last.attrs...), attrs...)
	return &h2
}

func (h *handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.next = h.next.WithGroup(name)
	h2.groups = append(append(make([]group, 0, len(h.groups)+1), h.groups...), group{name: name})
	return &h2
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	c := corrstate.From(ctx)
	if c == nil {
		return h.next.Handle(ctx, r)
	}
	addID := c.ID != "" && !h.rootHasID
	addTrace := c.TraceID != "" && !h.rootHasTrace
	if len(h.groups) == 0 && (addID || addTrace) {
		hasID, hasTrace := !addID, !addTrace
		r.Attrs(func(a slog.Attr) bool {
			topLevelKeys(a, &hasID, &hasTrace)
			return !hasID || !hasTrace
		})
		addID, addTrace = !hasID, !hasTrace
	}
	if !addID && !addTrace {
		return h.next.Handle(ctx, r)
	}

	var extra [2]slog.Attr
	n := 0
	if addID {
		extra[n] = slog.String(AttrKey, c.ID)
		n++
	}
	if addTrace {
		extra[n] = slog.String(TraceAttrKey, c.TraceID)
		n++
	}

	if len(h.groups) == 0 {
		// Clone because the caller's copy of r may share its attribute
		// storage with ours.
		r = r.Clone()
		r.AddAttrs(extra[:n]...)
		return h.root.Handle(ctx, r)
	}

	nr := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	nr.AddAttrs(extra[:n]...)
	nr.AddAttrs(h.nest(r))
	// nr holds the attributes of every WithAttrs since the first WithGroup
	// as they were given, and can have as many attributes as r: a mark the
	// problem writer put on ctx for r would vouch for them unread.
	return h.root.Handle(logmark.Without(ctx), nr)
}

// topLevelKeys notes whether a puts AttrKey or TraceAttrKey at the top
// level: as itself, or as a member of a group without a key, which slog
// inlines.
func topLevelKeys(a slog.Attr, id, trace *bool) {
	switch {
	case a.Key == AttrKey:
		*id = true
	case a.Key == TraceAttrKey:
		*trace = true
	case a.Key == "" && a.Value.Kind() == slog.KindGroup:
		for _, m := range a.Value.Group() {
			topLevelKeys(m, id, trace)
		}
	}
}

// nest rebuilds what next's WithGroup chain would have produced for r as one
// Group attribute: the record's attributes inside the innermost group, each
// group's own attributes ahead of the group nested in it.
func (h *handler) nest(r slog.Record) slog.Attr {
	inner := h.groups[len(h.groups)-1]
	attrs := make([]slog.Attr, 0, len(inner.attrs)+r.NumAttrs())
	attrs = append(attrs, inner.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, a)
		return true
	})
	g := slog.Attr{Key: inner.name, Value: slog.GroupValue(attrs...)}
	for i := len(h.groups) - 2; i >= 0; i-- {
		outer := h.groups[i]
		attrs = make([]slog.Attr, 0, len(outer.attrs)+1)
		attrs = append(attrs, outer.attrs...)
		attrs = append(attrs, g)
		g = slog.Attr{Key: outer.name, Value: slog.GroupValue(attrs...)}
	}
	return g
}
