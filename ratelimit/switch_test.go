package ratelimit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/ratelimit"
)

// admitted sends n requests one after another and counts the 200s.
func admitted(t *testing.T, in instance, n int, key string) int {
	t.Helper()
	ok := 0
	for range n {
		resp, _ := get(t, in.url, map[string]string{"X-Key": key})
		switch resp.StatusCode {
		case 200:
			ok++
		case 429:
		default:
			t.Fatalf("status %d in fail-open mode", resp.StatusCode)
		}
	}
	return ok
}

func waitForLog(t *testing.T, in instance, text string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(in.logs.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log after 5s:\n%s", text, in.logs.String())
		}
		get(t, in.url, map[string]string{"X-Key": "probe"})
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFailOpenSwitchKeepsTheLimit crosses the switch to the in-process
// counter and back, with Redis stalled and with Redis killed and restarted
// empty: over the whole window one instance admits the limit exactly once.
// Before the counts were carried across, the fallback started from zero
// (limit admitted twice) and the return to a restarted Redis a third time.
func TestFailOpenSwitchKeepsTheLimit(t *testing.T) {
	const limit = 20
	for _, outage := range []struct {
		name       string
		start, end func(*redistest.Server)
	}{
		{"stalled", (*redistest.Server).Pause, (*redistest.Server).Resume},
		{"killed and restarted empty", (*redistest.Server).Kill, (*redistest.Server).Restart},
	} {
		t.Run(outage.name, func(t *testing.T) {
			rs := redistest.Start(t)
			in := newInstance(t, rs.Addr(),
				[]ratelimit.Policy{{Name: "switch", Limit: limit, Window: time.Hour, Key: ratelimit.ByHeader("X-Key")}},
				ratelimit.WithRedisTimeout(testTimeout), ratelimit.WithProbeInterval(50*time.Millisecond))

			before := admitted(t, in, limit/2, "k")
			outage.start(rs)
			during := admitted(t, in, 2*limit, "k")
			if !strings.Contains(in.logs.String(), "redis unreachable") {
				t.Fatalf("the outage was not noticed:\n%s", in.logs.String())
			}
			outage.end(rs)
			waitForLog(t, in, "reachable again")
			after := admitted(t, in, 2*limit, "k")

			t.Logf("admitted %d via Redis, %d in process, %d after recovery (limit %d)", before, during, after, limit)
			if before != limit/2 || before+during != limit || before+during+after != limit {
				t.Errorf("admitted %d before, %d during, %d after the outage: want %d in total, reached at the switch",
					before, during, after, limit)
			}
		})
	}
}
