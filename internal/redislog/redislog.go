// Package redislog routes go-redis's own log lines (failed dials, pool and
// cluster trouble) into slog, where they would otherwise be plain text on
// stderr in the middle of a JSON log. go-redis has one logger per process,
// so a program installs it once, with the logger its problem writer uses:
//
//	redis.SetLogger(redislog.Logger{Logger: wr.Logger()})
package redislog

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/faultline-go/faultline/sanitize"
)

// Logger implements go-redis's logging interface. Each line becomes one
// warning record "redis client" whose redis_log attribute holds the text,
// logged with the context go-redis passes (so a correlation ID on it is
// kept). A nil Logger means slog.Default().
type Logger struct {
	Logger *slog.Logger
}

// Printf implements go-redis's logging interface.
func (l Logger) Printf(ctx context.Context, format string, v ...any) {
	logger := l.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if !logger.Enabled(ctx, slog.LevelWarn) {
		return
	}
	text := strings.TrimRight(fmt.Sprintf(format, v...), "\n")
	// Through the log tier: go-redis may quote an address with its
	// credentials, and the service's handler may not redact.
	logger.LogAttrs(ctx, slog.LevelWarn, "redis client", sanitize.LogAttr("redis_log", text))
}
