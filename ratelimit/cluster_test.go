package ratelimit_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/ratelimit"
)

func newClusterClient(t *testing.T, c *redistest.Cluster) *redis.ClusterClient {
	t.Helper()
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// masterHolding returns the address of the master that holds a key of the
// named policy.
func masterHolding(t *testing.T, client *redis.ClusterClient, policy string) string {
	t.Helper()
	var mu sync.Mutex
	var addr string
	err := client.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
		keys, err := m.Keys(ctx, "faultline:rl:"+policy+":*").Result()
		if err == nil && len(keys) > 0 {
			mu.Lock()
			addr = m.Options().Addr
			mu.Unlock()
		}
		return err
	})
	if err != nil || addr == "" {
		t.Fatalf("no master holds a key of %s: %v", policy, err)
	}
	return addr
}

// TestRedisCluster runs the limiter on a real 3-master Redis Cluster with
// one replica each: limits are exact across instances, with keys spread
// over the masters, and when the master owning a limited key's slot is
// killed, requests keep being answered (fail-open, no 5xx) until the
// replica has taken over, after which limits are shared again.
func TestRedisCluster(t *testing.T) {
	started := time.Now()
	cluster := redistest.StartCluster(t, 3, 1)
	t.Logf("cluster up in %v", time.Since(started).Round(time.Millisecond))
	const limit = 25
	policies := []ratelimit.Policy{{Name: "cluster", Limit: limit, Window: time.Hour, Key: ratelimit.ByHeader("X-Key")}}
	// newInstance's generous Redis timeout: a burst on fresh connections
	// (slot map, dials, the script's first load) must not fall back.
	a := newInstanceOn(t, newClusterClient(t, cluster), policies)
	b := newInstanceOn(t, newClusterClient(t, cluster), policies)
	admin := newClusterClient(t, cluster)

	t.Run("limits are exact across instances and masters", func(t *testing.T) {
		for _, key := range []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"} {
			if counts := burst(t, 2*limit+10, key, a, b); counts[200] != limit || counts[429] != limit+10 {
				t.Errorf("key %s: statuses %v, want exactly %d admitted", key, counts, limit)
			}
		}
		var used atomic.Int32 // ForEachMaster calls concurrently
		_ = admin.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			if n, _ := m.DBSize(ctx).Result(); n > 0 {
				used.Add(1)
			}
			return nil
		})
		if used := used.Load(); used < 2 {
			t.Errorf("the keys landed on %d master(s); the test means to spread them", used)
		}
		for _, in := range []instance{a, b} {
			if strings.Contains(in.logs.String(), "unreachable") {
				t.Fatalf("Redis was considered down, so counts were not shared:\n%s", in.logs.String())
			}
		}
	})

	// The limiter puts each key's hashtag in its Redis names itself; a
	// brace in the prefix would take that over. With "{}" Redis hashes the
	// whole name, so a key's two windows land in different slots; with a
	// lone "}" the limiter's batches mixed keys of different slots. Either
	// way every script failed CROSSSLOT and each instance counted alone,
	// for good. A prefix must be refused, or share limits exactly.
	t.Run("a prefix cannot break the hashtag", func(t *testing.T) {
		for i, prefix := range []string{"rl:{}:", "rl}:", "{rl}:", "a{b}c:", "x{", "app:rl:", "x"} {
			policies := []ratelimit.Policy{{Name: "prefix" + strconv.Itoa(i), Limit: 5, Window: time.Hour, Key: ratelimit.ByHeader("X-Key")}}
			if _, err := ratelimit.New(policies, ratelimit.WithRedis(admin), ratelimit.WithPrefix(prefix)); err != nil {
				if !strings.Contains(err.Error(), strconv.Quote(prefix)) {
					t.Errorf("prefix %q refused without naming it: %v", prefix, err)
				}
				continue
			}
			a := newInstanceOn(t, newClusterClient(t, cluster), policies, ratelimit.WithPrefix(prefix))
			b := newInstanceOn(t, newClusterClient(t, cluster), policies, ratelimit.WithPrefix(prefix))
			var wg sync.WaitGroup
			for k := range 6 {
				wg.Go(func() {
					if counts := burst(t, 20, "key-"+strconv.Itoa(k), a, b); counts[200] != 5 {
						t.Errorf("prefix %q, key %d: statuses %v, want exactly 5 admitted", prefix, k, counts)
					}
				})
			}
			wg.Wait()
			if strings.Contains(a.logs.String()+b.logs.String(), "unreachable") {
				t.Errorf("prefix %q: Redis was considered down:\n%s%s", prefix, a.logs, b.logs)
			}
		}
	})

	t.Run("failover of the master owning the slot", func(t *testing.T) {
		failover := []ratelimit.Policy{{Name: "failover", Limit: limit, Window: time.Hour, Key: ratelimit.ByHeader("X-Key")}}
		// A dead master refuses connections at once; the timeout only has
		// to absorb a loaded machine.
		opts := []ratelimit.Option{ratelimit.WithRedisTimeout(300 * time.Millisecond), ratelimit.WithProbeInterval(50 * time.Millisecond)}
		a := newInstanceOn(t, newClusterClient(t, cluster), failover, opts...)
		b := newInstanceOn(t, newClusterClient(t, cluster), failover, opts...)
		for _, in := range []instance{a, b} {
			admitted(t, in, 3, "warm-up")
		}
		before := burst(t, limit-5, "victim", a, b)[200]
		master := masterHolding(t, admin, "failover")

		var mu sync.Mutex
		statuses := map[int]int{}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for c := range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					resp, _ := get(t, []instance{a, b}[(c+i)%2].url, map[string]string{"X-Key": "victim"})
					mu.Lock()
					statuses[resp.StatusCode]++
					mu.Unlock()
					time.Sleep(5 * time.Millisecond)
				}
			})
		}
		killed := time.Now()
		cluster.Node(master).Kill()
		if err := cluster.WaitHealthy(15 * time.Second); err != nil {
			t.Fatal(err)
		}
		promoted := time.Since(killed)
		for _, in := range []instance{a, b} {
			waitForLog(t, in, "reachable again")
		}
		shared := time.Since(killed)
		waitForStableRedis(t, a, b)
		close(stop)
		wg.Wait()
		t.Logf("replica promoted %v after the kill, both instances back on Redis after %v; statuses during the failover %v",
			promoted.Round(time.Millisecond), shared.Round(time.Millisecond), statuses)

		for status, n := range statuses {
			if status != 200 && status != 429 {
				t.Errorf("%d responses with status %d during the failover (fail-open)", n, status)
			}
		}
		// The documented bound: while the shared counter is unreachable each
		// instance enforces the limit on its own, from the counts Redis last
		// gave it, so two instances admit at most twice the limit; and what
		// the killed master had not yet replicated can be admitted again
		// once. Replication over loopback lags by well under a request, so
		// at most the requests in flight at the kill (one per client).
		const inFlight = 4
		if total := before + statuses[200]; total > 2*limit+inFlight {
			t.Errorf("%d admitted for one key across the failover, bound %d", total, 2*limit+inFlight)
		}
		// Back on Redis, what was admitted locally counts: no fresh limit.
		if after := burst(t, 10, "victim", a, b)[200]; after != 0 {
			t.Errorf("%d more admitted after the failover", after)
		}
		// And the promoted master shares limits exactly.
		if counts := burst(t, 2*limit, "fresh", a, b); counts[200] != limit {
			t.Errorf("after the failover: statuses %v, want exactly %d admitted\n%s\n%s", counts, limit, a.logs, b.logs)
		}
	})
}

// waitForStableRedis waits until requests on keys of every slot range pass
// without a new outage record. A Cluster client that reached the promoted
// replica for one slot may still send another slot of the dead master's to
// it until its slot map is reloaded, which the limiter's next failure asks
// for: one more short fallback, bounded like the first.
func waitForStableRedis(t *testing.T, instances ...instance) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		before := make([]int, len(instances))
		for i, in := range instances {
			before[i] = strings.Count(in.logs.String(), "redis unreachable")
		}
		for i := range 30 {
			for _, in := range instances {
				get(t, in.url, map[string]string{"X-Key": "spread-" + strconv.Itoa(i)})
			}
		}
		time.Sleep(200 * time.Millisecond)
		stable := true
		for i, in := range instances {
			logs := in.logs.String()
			stable = stable && strings.Count(logs, "redis unreachable") == before[i] &&
				strings.LastIndex(logs, "reachable again") > strings.LastIndex(logs, "redis unreachable")
		}
		if stable {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the instances still switch between Redis and the fallback after 5s:\n%s\n%s", instances[0].logs, instances[1].logs)
		}
	}
}
