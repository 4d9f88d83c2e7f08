package sanitize

import "log/slog"

// LogAttr returns an attribute holding Log(value), marked so that the log
// handler passes it on without a second scan: text sanitized where it is
// produced (the problem writer's error chain) costs one pass, not two.
// Only this package can make the mark, so nothing unsanitized can wear it.
func LogAttr(key, value string) slog.Attr {
	return slog.Any(key, logged(Log(value)))
}

// logged is a string that has passed Log.
type logged string

func (l logged) LogValue() slog.Value { return slog.StringValue(string(l)) }
