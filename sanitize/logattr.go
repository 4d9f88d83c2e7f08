package sanitize

import "log/slog"

// LogAttr returns an attribute holding Log(value) under Log(key), or
// Redacted when key names a credential the value is (as the handler reads
// a key and its value together), marked so
// that the log handler passes it on without a second scan: text sanitized
// where it is produced (a middleware quoting a handler's body) costs one
// pass, not two. Only this package can make the mark, so nothing
// unsanitized can wear it.
func LogAttr(key, value string) slog.Attr {
	m := &logged{key: Log(key), text: attrText(key, value)}
	return slog.Attr{Key: m.key, Value: slog.AnyValue(m)}
}

// logged is an attribute's value that has passed the log tier, with the key
// it passed under: the handler passes an attribute wearing it untouched when
// the attribute's key is still that key, and otherwise checks the key only.
// LogAttr's result can be made once and logged many times: nothing changes
// it.
type logged struct {
	key, text string
}

func (l *logged) LogValue() slog.Value { return slog.StringValue(l.text) }
