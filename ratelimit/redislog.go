package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/faultline-go/faultline/sanitize"
)

// RedisLogger routes go-redis's own log lines (failed dials, pool and
// cluster trouble) into slog, where they would otherwise be plain text on
// stderr in the middle of a JSON log. go-redis has one logger per process,
// so install it once, with the logger the problem writer uses:
//
//	redis.SetLogger(ratelimit.RedisLogger{Logger: wr.Logger()})
//
// Each line becomes one warning record "redis client" whose redis_log
// attribute holds the text, logged with the context go-redis passes (so a
// correlation ID on it is kept). A nil Logger means slog.Default().
type RedisLogger struct {
	Logger *slog.Logger
}

// Printf implements go-redis's logging interface.
func (l RedisLogger) Printf(ctx context.Context, format string, v ...any) {
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
