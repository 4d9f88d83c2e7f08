// Package logmark lets the problem writer tell sanitize's log handler that
// the message and leading attributes of one record already passed the log
// tier where the record was built, so the handler does not scan them a
// second time.
//
// The mark travels as the context handed to Handle and names one record
// (its time, source, message and attribute count): a handler in between
// that adds or drops attributes, or passes on a context of its own, loses
// it, and every attribute is scanned as usual. What the mark cannot see is
// a handler in between that puts other values into the vouched attributes
// and keeps their number, time, source and message; a handler that
// rewrites values belongs after sanitize's (checking each attribute's
// identity costs about 5 % of an error route, measured, for a handler
// that only the service itself would write).
package logmark

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

type marked struct {
	context.Context
	clean   int
	attrs   int
	pc      uintptr
	time    time.Time
	message string
}

// Slot is room for one mark in an object made for every request anyway
// (the middleware's per-request state, which is the request's context):
// the first record marked with that context as its parent takes it, so
// its mark costs no allocation, and every later one gets a mark of its
// own. A slot is taken once and never given back: a mark a handler kept
// (one that hands records on later) never comes to vouch for another
// record.
type Slot struct {
	taken atomic.Bool
	m     marked
}

// Holder is a context with a Slot of its own.
type Holder interface {
	MarkSlot(Key) *Slot
}

// With returns parent marked for r, whose message and first clean
// attributes passed the log tier. A nil parent stands for the background.
func With(parent context.Context, r *slog.Record, clean int) context.Context {
	if parent == nil {
		parent = context.Background()
	}
	var m *marked
	if h, ok := parent.(Holder); ok {
		if s := h.MarkSlot(Key{}); s != nil && s.taken.CompareAndSwap(false, true) {
			m = &s.m
		}
	}
	if m == nil {
		m = new(marked)
	}
	*m = marked{Context: parent, clean: clean, attrs: r.NumAttrs(), pc: r.PC, time: r.Time, message: r.Message}
	return m
}

// Clean reports how many leading attributes of r passed the log tier where
// r was built, and whether its message did: 0 and false unless ctx is the
// very context With made for r. Only ctx itself is looked at, never its
// parents, so a mark made for one record never vouches for another logged
// further down with a derived context.
func Clean(ctx context.Context, r *slog.Record) (int, bool) {
	m, ok := ctx.(*marked)
	if !ok || r.NumAttrs() != m.attrs || r.PC != m.pc || r.Message != m.message || !r.Time.Equal(m.time) {
		return 0, false
	}
	return m.clean, true
}

// Without returns ctx without the mark With put on it, if it carries one,
// for a handler that hands on a record of its own making in place of the
// one the mark names: a mark recognises its record by time, source,
// message and number of attributes, which a rebuilt record can share
// while its attributes are others.
func Without(ctx context.Context) context.Context {
	if m, ok := ctx.(*marked); ok {
		return m.Context
	}
	return ctx
}

// Key makes Wrapper an interface only the kit can implement: no package
// outside the module can name it.
type Key struct{}

// Wrapper is a log handler of the kit (correlation's, sanitize's) that
// hands records on to the handler it wraps and renders an attribute added
// with WithAttrs as that handler does.
type Wrapper interface {
	WrappedHandler(Key) slog.Handler
}

// AttrsAlike reports whether h writes attributes added with WithAttrs
// exactly as it writes the same attributes at the head of a record's own:
// slog's JSON and text handlers, alone or behind the kit's wrappers. Other
// handlers may treat the two differently (one that collects a record's
// attributes does not see those added with WithAttrs unless it keeps them
// itself), so they are always handed whole records.
func AttrsAlike(h slog.Handler) bool {
	for {
		switch x := h.(type) {
		case *slog.JSONHandler, *slog.TextHandler:
			return true
		case Wrapper:
			h = x.WrappedHandler(Key{})
		default:
			return false
		}
	}
}

// Text passes a client's text through the log tier before a leaf package
// that cannot import sanitize (correlation) quotes it in a record. sanitize
// sets it to its Log when it is linked into the program, as it is with
// every faultline middleware; without it the text is escaped as Go would
// quote it, so a record still holds no control character.
var Text = func(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// Altered reports whether the log tier would change s: sanitize sets it
// when it is linked in, so that correlation can refuse an inbound ID the
// log would redact. Without sanitize nothing is redacted.
var Altered = func(string) bool { return false }

// Cut returns escaped, text a log tier has escaped, cut to at most n bytes
// at a rune's start and never inside an escape ("\u00e9" cut after "\u0"
// would read as another character), and whether it cut anything.
func Cut(escaped string, n int) (string, bool) {
	if len(escaped) <= n {
		return escaped, false
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(escaped[cut]) {
		cut--
	}
	text := escaped[:cut]
	if i := strings.LastIndexByte(text, '\\'); i >= 0 && i > len(text)-len(`\U0010ffff`) {
		text = text[:i]
	}
	return text, true
}
