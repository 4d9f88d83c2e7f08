package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/internal/testlog"
)

// discard keeps go-redis quiet once a test is over.
type discard struct{}

func (discard) Printf(context.Context, string, ...any) {}

// TestRedisLogLinesAreRecords kills a real redis-server under a client,
// which makes go-redis log its failed dials: with the Logger installed they
// are JSON records of the service's log, not plain text lines.
func TestRedisLogLinesAreRecords(t *testing.T) {
	var logs testlog.Buffer
	redis.SetLogger(redisLog{slog.New(slog.NewJSONHandler(&logs, nil))})
	t.Cleanup(func() { redis.SetLogger(discard{}) })

	rs := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: rs.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	ctx := context.Background()
	if err := client.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	rs.Kill()
	for deadline := time.Now().Add(3 * time.Second); !strings.Contains(logs.String(), "dial") && time.Now().Before(deadline); {
		_ = client.Ping(ctx).Err()
		time.Sleep(20 * time.Millisecond)
	}
	out := strings.TrimSpace(logs.String())
	if out == "" {
		t.Fatal("go-redis logged nothing")
	}
	for _, line := range strings.Split(out, "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON record: %q", line)
		}
		if rec["msg"] != "redis client" || rec["level"] != "WARN" || rec["redis_log"] == "" {
			t.Errorf("record %v", rec)
		}
	}
	if !strings.Contains(out, "failed to dial") {
		t.Errorf("the dial failure is missing:\n%s", out)
	}
}

// go-redis's own lines pass the log tier on their way to the service's
// log, whatever handler it has: a password in a quoted address is not
// logged.
func TestRedisLogLinesPassTheLogTier(t *testing.T) {
	for _, secret := range []string{"hunter2-pw", "Tr0ub4dor&3"} {
		var logs testlog.Buffer
		l := redisLog{slog.New(slog.NewJSONHandler(&logs, nil))}
		l.Printf(context.Background(), "redis: failed to dial redis://app:%s@10.0.0.5:6379/0: %s", secret, "connection refused")
		var rec map[string]any
		if err := json.Unmarshal([]byte(logs.String()), &rec); err != nil {
			t.Fatal(err)
		}
		if text, _ := rec["redis_log"].(string); strings.Contains(logs.String(), secret) || !strings.Contains(text, "10.0.0.5:6379") {
			t.Errorf("logged %q", text)
		}
	}
}
