package sanitize

import "log/slog"

// LogAttr returns an attribute holding Log(value) under Log(key), marked so
// that the log handler passes it on without a second scan: text sanitized
// where it is produced (the problem writer's error chain) costs one pass,
// not two. Only this package can make the mark, so nothing unsanitized can
// wear it.
func LogAttr(key, value string) slog.Attr {
	m := &logged{key: Log(key), value: slog.StringValue(Log(value))}
	return slog.Attr{Key: m.key, Value: slog.AnyValue(m)}
}

// AppendLogAttrs appends attrs to dst, each passed through the log tier as
// the log handler would pass it and marked like LogAttr's, all in one
// allocation. It is for the attributes of a record logged often, made once
// (a code, a status), or made together for one record (a path and an
// error), which the handler then passes without a second look. Through any
// other handler they read as the handler would have made them.
func AppendLogAttrs(dst []slog.Attr, attrs ...slog.Attr) []slog.Attr {
	marks := make([]logged, len(attrs))
	for i, a := range attrs {
		a, _ = cleanAttr(a)
		marks[i] = logged{key: a.Key, value: a.Value.Resolve()}
		dst = append(dst, slog.Attr{Key: a.Key, Value: slog.AnyValue(&marks[i])})
	}
	return dst
}

// logged is an attribute's value that has passed the log tier, with the key
// it passed under: the handler passes an attribute wearing it untouched when
// the attribute's key is still that key, and otherwise checks the key only.
type logged struct {
	key   string
	value slog.Value
}

func (l *logged) LogValue() slog.Value { return l.value }
