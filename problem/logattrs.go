package problem

import (
	"hash/maphash"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/faultline-go/faultline/sanitize"
)

// The attributes of a problem's log record that take one of a few values
// are made once. Every attribute of the record passes the log tier of
// sanitize where it is made, and the record tells sanitize's log handler so
// (internal/logmark): the handler does not scan it again on every failure.
var (
	causeAttrs = newTokenAttrs("cause", CauseRequest, CauseAuth, CausePolicy, CauseConfig,
		CauseInternal, CauseUpstream, CauseEnvironment)
	actionAttrs = newTokenAttrs("action", ActionRetry, ActionVerify, ActionFixRequest,
		ActionReauthenticate, ActionConfigure, ActionApprove, ActionUnlock, ActionNone)
	methodAttrs = newTokenAttrs("method", http.MethodGet, http.MethodHead, http.MethodPost,
		http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions)
)

// tokenAttrs are the made-once attributes of one key's few values. A
// handful of string comparisons finds one faster than a map's hash.
type tokenAttrs[T ~string] struct {
	key    string
	tokens []T
	attrs  []slog.Attr
}

func newTokenAttrs[T ~string](key string, tokens ...T) tokenAttrs[T] {
	t := tokenAttrs[T]{key: key, tokens: tokens}
	for _, tok := range tokens {
		t.attrs = append(t.attrs, logString(key, string(tok)))
	}
	return t
}

// attr is the made-once attribute of tok, or a fresh one for a value
// outside the table.
func (t tokenAttrs[T]) attr(tok T) slog.Attr {
	if i, ok := t.index(tok); ok {
		return t.attrs[i]
	}
	return logString(t.key, string(tok))
}

// index is tok's place in the table, if it has one.
func (t tokenAttrs[T]) index(tok T) (int, bool) {
	for i, x := range t.tokens {
		if x == tok {
			return i, true
		}
	}
	return 0, false
}

// logString is the attribute of text after the log tier; key is one of the
// writer's own, which the tier leaves as it is.
func logString(key, text string) slog.Attr { return slog.String(key, sanitize.Log(text)) }

// textAttrs remembers the log attributes of the texts (error chains, hidden
// details, request paths) that came back most recently. An error storm
// repeats one text thousands of times (a database that went away, an
// upstream timing out, on the same route), and the log tier's pass over it
// costs as much as the rest of the record; sanitize.Log is a pure function
// of its input, so the attribute remembered is the one it would make again.
// A text is remembered the second time it is seen, so texts that never
// repeat cost two hashes and nothing else. Only a 128-bit keyed hash of a
// text is kept, never the raw text, which may hold the very secret the log
// tier takes out.
var textAttrs textAttrCache

const (
	textAttrSlots  = 256
	textAttrMaxLen = 1024
)

type textAttrCache struct {
	seen  [textAttrSlots]atomic.Uint64
	attrs [textAttrSlots]atomic.Pointer[textAttr]
}

type textAttr struct {
	key    string
	h1, h2 uint64
	n      int
	attr   slog.Attr
}

var textAttrSeed1, textAttrSeed2 = maphash.MakeSeed(), maphash.MakeSeed()

// attr returns logString(key, text), remembered when text repeats.
func (c *textAttrCache) attr(key, text string) slog.Attr {
	if len(text) > textAttrMaxLen {
		return logString(key, text)
	}
	h1 := maphash.String(textAttrSeed1, text)
	i := h1 % textAttrSlots
	e := c.attrs[i].Load()
	if e != nil && e.h1 == h1 && e.n == len(text) && e.key == key && e.h2 == maphash.String(textAttrSeed2, text) {
		return e.attr
	}
	a := logString(key, text)
	if c.seen[i].Swap(h1) == h1 {
		c.attrs[i].Store(&textAttr{key: key, h1: h1, h2: maphash.String(textAttrSeed2, text), n: len(text), attr: a})
	}
	return a
}
