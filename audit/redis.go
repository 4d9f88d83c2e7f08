package audit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// RedisStream appends events to a Redis stream (XADD), one entry per event
// with the JSON in its "event" field. Redis acknowledges an entry once it
// holds it; configure appendfsync on the server for the durability you
// need.
type RedisStream struct {
	client redis.UniversalClient
	stream string
	maxLen int64
}

// NewRedisStream writes to stream through client, trimming it
// approximately to maxLen entries (0 keeps everything). Give the client
// ContextTimeoutEnabled: go-redis otherwise ignores the write deadline of
// WithSinkTimeout and waits its own ReadTimeout (3s) on a stalled server,
// holding every strict-mode request that long.
func NewRedisStream(client redis.UniversalClient, stream string, maxLen int64) *RedisStream {
	return &RedisStream{client: client, stream: stream, maxLen: maxLen}
}

// Write implements Sink.
func (s *RedisStream) Write(ctx context.Context, e Event) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	args := &redis.XAddArgs{Stream: s.stream, Values: []any{"event", body}}
	if s.maxLen > 0 {
		args.MaxLen, args.Approx = s.maxLen, true
	}
	if err := s.client.XAdd(ctx, args).Err(); err != nil {
		return fmt.Errorf("audit: redis stream %s: %w", s.stream, err)
	}
	return nil
}
