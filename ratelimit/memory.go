package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// DefaultMaxKeys is how many keys the in-process counter of one policy
// tracks unless WithMaxKeys says otherwise.
const DefaultMaxKeys = 100_000

// WithMaxKeys bounds how many keys the in-process counter of each policy
// tracks (default DefaultMaxKeys; at least 64). A tracked key costs at most
// about 128 bytes (24 bytes of data in a Go map, whose tables double as
// they grow and keep deleted slots for a while), so the default bounds a
// policy's counter to about 12 MiB whatever the traffic, where an unbounded counter would grow with every
// distinct key a client invents (ByHeader on a client-chosen value: 36 MiB
// per million keys). Redis limiters keep the same bound for their fail-open
// fallback.
//
// When the counter is full, a new key evicts a stale one: of a few sampled
// keys, one whose windows have ended, else the one with the lowest rate.
// What an attacker who floods fresh keys can cost is therefore this bound
// in memory, plus forgotten counts: an evicted key starts over, so a flood
// can give back part of the limit to keys that used little of it (a key
// near its limit is evicted only if every sampled key is at least as busy).
// Fresh keys never buy more than a key each anyway, which is why a limit on
// a client-chosen key needs a coarser limit (ByIP) beside it.
func WithMaxKeys(n int) Option { return func(c *config) { c.maxKeys = n } }

// memoryShards spreads keys over independently locked maps, so requests for
// different keys rarely wait on one another.
const memoryShards = 64

// evictionSample is how many entries a full shard looks at to choose the
// one to evict, as Redis samples for its approximated LRU: enough to find a
// stale or little-used counter, few enough to keep an insertion cheap.
const evictionSample = 8

// memoryCounter counts in process with httprate's sliding-window rule (see
// window.go), in bounded maps.
type memoryCounter struct {
	limit    int
	window   time.Duration
	perShard int
	hashSeed maphash.Seed
	shards   [memoryShards]memoryShard
}

type memoryShard struct {
	mu     sync.Mutex
	counts map[uint64]slot
	// Keeps two shards' hot mutexes off one cache line.
	_ [40]byte
}

// slot holds one key's counts: curr for the window starting at start, prev
// for the one before. A slot whose start is older than the previous window
// counts nothing and is free to evict. Keys are 64-bit hashes: a collision
// among 100,000 keys has a probability near 3e-10.
type slot struct {
	start      int64 // UnixNano
	curr, prev uint32
}

// at returns the counts for the window starting at start.
func (s slot) at(start, window int64) (curr, prev int64) {
	switch s.start {
	case start:
		return int64(s.curr), int64(s.prev)
	case start - window:
		return 0, int64(s.curr)
	}
	return 0, 0
}

func newMemoryCounter(limit int, window time.Duration, maxKeys int) *memoryCounter {
	m := &memoryCounter{limit: limit, window: window, perShard: maxKeys / memoryShards, hashSeed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].counts = map[uint64]slot{}
	}
	return m
}

func (m *memoryCounter) take(_ context.Context, key string) (result, error) {
	now := time.Now().UTC()
	start := now.Truncate(m.window)
	elapsed := now.Sub(start)
	s, sh, h := m.lock(key)
	defer sh.mu.Unlock()
	curr, prev := sh.counts[h].at(start.UnixNano(), int64(m.window))
	admitted := math.Round(rate(curr, prev, m.window, elapsed))+1 <= float64(m.limit)
	if admitted {
		curr++
		sh.store(h, slot{start: start.UnixNano(), curr: clamp(curr), prev: clamp(prev)}, s, m)
	}
	return newResult(admitted, m.limit, curr, prev, m.window, start, now), nil
}

// seed raises key's counts to those Redis returned for the window starting
// at start, so that a switch to this counter continues from what the shared
// counter had seen instead of from zero.
func (m *memoryCounter) seed(key string, start time.Time, curr, prev int64) {
	s, sh, h := m.lock(key)
	defer sh.mu.Unlock()
	lc, lp := sh.counts[h].at(start.UnixNano(), int64(m.window))
	sh.store(h, slot{start: start.UnixNano(), curr: clamp(max(lc, curr)), prev: clamp(max(lp, prev))}, s, m)
}

// current returns key's count in the window starting at start.
func (m *memoryCounter) current(key string, start time.Time) int64 {
	_, sh, h := m.lock(key)
	defer sh.mu.Unlock()
	curr, _ := sh.counts[h].at(start.UnixNano(), int64(m.window))
	return curr
}

// lock hashes key and locks its shard; the caller unlocks sh.mu. s reports
// whether the key is tracked already.
func (m *memoryCounter) lock(key string) (tracked bool, sh *memoryShard, h uint64) {
	h = maphash.String(m.hashSeed, key)
	sh = &m.shards[h%memoryShards]
	sh.mu.Lock()
	_, tracked = sh.counts[h]
	return tracked, sh, h
}

// store writes a key's slot, making room first when the key is new and the
// shard is full.
func (sh *memoryShard) store(h uint64, s slot, tracked bool, m *memoryCounter) {
	if !tracked && len(sh.counts) >= m.perShard {
		sh.evict(s.start, m)
	}
	sh.counts[h] = s
}

// evict removes the stale entries among a few sampled ones (map iteration
// starts at a random place), or, if all are live, the least busy of them.
func (sh *memoryShard) evict(start int64, m *memoryCounter) {
	window := int64(m.window)
	var victim uint64
	lowest := math.Inf(1)
	freed, seen := false, 0
	for h, s := range sh.counts {
		curr, prev := s.at(start, window)
		if curr == 0 && prev == 0 {
			delete(sh.counts, h)
			freed = true
		} else if r := float64(curr + prev); r < lowest {
			victim, lowest = h, r
		}
		if seen++; seen == evictionSample {
			break
		}
	}
	if !freed {
		delete(sh.counts, victim)
	}
}

func clamp(n int64) uint32 { return uint32(min(max(n, 0), math.MaxUint32)) }
