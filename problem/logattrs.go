package problem

import (
	"log/slog"
	"net/http"

	"github.com/faultline-go/faultline/sanitize"
)

// The attributes of a problem's log record that take one of a few values
// are made once, marked by sanitize as having passed its log tier, so that
// sanitize's log handler does not look at them again on every failure.
var (
	causeAttrs = loggedTokens("cause", CauseRequest, CauseAuth, CausePolicy, CauseConfig,
		CauseInternal, CauseUpstream, CauseEnvironment)
	actionAttrs = loggedTokens("action", ActionRetry, ActionVerify, ActionFixRequest,
		ActionReauthenticate, ActionConfigure, ActionApprove, ActionUnlock, ActionNone)
	methodAttrs = loggedTokens("method", http.MethodGet, http.MethodHead, http.MethodPost,
		http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions)
)

func loggedTokens[T ~string](key string, tokens ...T) map[T]slog.Attr {
	m := make(map[T]slog.Attr, len(tokens))
	for _, tok := range tokens {
		m[tok] = loggedAttr(key, string(tok))
	}
	return m
}

// tokenAttr is the made-once attribute of tok, or a plain one for a value
// outside the table.
func tokenAttr[T ~string](table map[T]slog.Attr, key string, tok T) slog.Attr {
	if a, ok := table[tok]; ok {
		return a
	}
	return slog.String(key, string(tok))
}

// loggedAttr returns the attribute of key and value marked as having
// passed the log tier when the tier leaves both as they are, and a plain
// one otherwise: a handler other than sanitize's must log the same text
// either way.
func loggedAttr(key, value string) slog.Attr {
	a := sanitize.LogAttr(key, value)
	if a.Key != key || a.Value.Resolve().String() != value {
		return slog.String(key, value)
	}
	return a
}
