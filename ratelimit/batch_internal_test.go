package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/internal/redistest"
)

// TestBatchRunsChecksInOrder sends checks in one script run whose keys
// overlap: the same key twice, and a check whose previous window is
// another's current one (a batch straddling a window boundary). Each must
// see the counts the checks before it left, as separate scripts would.
func TestBatchRunsChecksInOrder(t *testing.T) {
	rs := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: rs.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	ctx := context.Background()
	if err := client.Set(ctx, "t:{a}:1", 4, 10*time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	newCheck := func(curr, prev string, limit, elapsed, floor int64) *check {
		return &check{
			ctx: ctx, keys: [2]string{curr, prev}, deadline: time.Now().Add(5 * time.Second),
			limit: limit, window: 1_000_000, elapsed: elapsed, ttl: 60_000, floor: floor,
		}
	}
	checks := []*check{
		// Window 1 of {a} holds 4: the fifth request of a limit of 5 passes.
		newCheck("t:{a}:1", "t:{a}:0", 5, 900_000, 0),
		// The same key again: now full.
		newCheck("t:{a}:1", "t:{a}:0", 5, 900_000, 0),
		// Window 2, 10% in: window 1's 5 still weigh 4.5, which rounds to
		// 5, so a sixth is refused. Read before the first check, window 1
		// would weigh 3.6 and let it through.
		newCheck("t:{a}:2", "t:{a}:1", 5, 100_000, 0),
		// Another key, raised to what this instance admitted on its own.
		newCheck("t:{b}:2", "t:{b}:1", 5, 100_000, 3),
		newCheck("t:{b}:2", "t:{b}:1", 5, 100_000, 0),
	}
	newBatcher(client).send(checks)
	want := [][3]int64{{1, 5, 0}, {0, 5, 0}, {0, 0, 5}, {1, 4, 0}, {1, 5, 0}}
	for i, c := range checks {
		if c.err != nil || c.reply != want[i] {
			t.Errorf("check %d: reply %v, err %v; want %v", i, c.reply, c.err, want[i])
		}
	}
	if n, _ := client.Get(ctx, "t:{a}:1").Int(); n != 5 {
		t.Errorf("t:{a}:1 = %d, want 5", n)
	}
	if ttl := client.PTTL(ctx, "t:{b}:2").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("t:{b}:2 has TTL %v: a counter the batch created must expire", ttl)
	}
	// A counter that existed and was only counted up keeps its TTL (the
	// checks' TTL is a minute, its own was ten).
	if ttl := client.PTTL(ctx, "t:{a}:1").Val(); ttl <= 9*time.Minute {
		t.Errorf("t:{a}:1 has TTL %v: counting must not reset it", ttl)
	}
	if n, _ := client.Get(ctx, "t:{b}:2").Int(); n != 5 {
		t.Errorf("t:{b}:2 = %d, want 5: raised to 3, then counted twice", n)
	}
}
