package ratelimit_test

import (
	"context"
	"encoding/json"
	"github.com/faultline-go/faultline/internal/testlog"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/httprate"
	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/ratelimit"
)

// TestRedisLogLinesAreRecords kills Redis under a limiter, which makes
// go-redis log its failed dials: with RedisLogger installed they are JSON
// records of the service's log, not plain text lines.
func TestRedisLogLinesAreRecords(t *testing.T) {
	var logs testlog.Buffer
	redis.SetLogger(ratelimit.RedisLogger{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	t.Cleanup(func() { redis.SetLogger(discardRedisLog{}) })

	rs := redistest.Start(t)
	in := newInstance(t, rs.Addr(), []ratelimit.Policy{{Limit: 100, Window: time.Hour, Key: httprate.Key("k")}},
		ratelimit.WithRedisTimeout(testTimeout), ratelimit.WithProbeInterval(10*time.Millisecond))
	get(t, in.url, nil)
	rs.Kill()
	deadline := time.Now().Add(3 * time.Second)
	for !strings.Contains(logs.String(), "dial") && time.Now().Before(deadline) {
		get(t, in.url, nil)
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
	var logs testlog.Buffer
	l := ratelimit.RedisLogger{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	l.Printf(context.Background(), "redis: failed to dial redis://app:%s@10.0.0.5:6379/0: %s", "hunter2-pw", "connection refused")
	var rec map[string]any
	if err := json.Unmarshal([]byte(logs.String()), &rec); err != nil {
		t.Fatal(err)
	}
	if text, _ := rec["redis_log"].(string); strings.Contains(logs.String(), "hunter2-pw") || !strings.Contains(text, "10.0.0.5:6379") {
		t.Errorf("logged %q", text)
	}
}
