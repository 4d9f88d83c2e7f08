package ratelimit

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"
)

func (m *memoryCounter) tracked() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += len(sh.counts)
		sh.mu.Unlock()
	}
	return n
}

// bytesPerKey is what WithMaxKeys documents a tracked key may cost.
const bytesPerKey = 128

func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestMemoryStaysUnderTheCapWithAMillionKeys floods one policy with a
// million distinct keys, as a client choosing its own ByHeader value can.
// Before the cap, the counter held every key (36 MiB per million).
func TestMemoryStaysUnderTheCapWithAMillionKeys(t *testing.T) {
	const keys, maxKeys = 1_000_000, 10_000
	// What WithMaxKeys promises per tracked key.
	const bound = maxKeys * bytesPerKey
	m := newMemoryCounter(100, time.Hour, maxKeys)
	before := heapInUse()
	buf := make([]byte, 0, 16)
	for i := range keys {
		buf = strconv.AppendInt(append(buf[:0], 'k'), int64(i), 10)
		if _, err := m.take(context.Background(), string(buf)); err != nil {
			t.Fatal(err)
		}
	}
	grown := heapInUse() - before
	n := m.tracked()
	runtime.KeepAlive(m)
	t.Logf("%d keys sent, %d tracked, heap grew by %d bytes (%.1f bytes per tracked key; bound %d)", keys, n, grown, float64(grown)/float64(n), bound)
	if n > maxKeys {
		t.Errorf("%d keys tracked, cap %d", n, maxKeys)
	}
	if grown > bound {
		t.Errorf("heap grew by %d bytes, bound %d", grown, bound)
	}
}

// TestEvictionSparesBusyKeys checks what the cap costs a real client: a
// flood of one-request keys evicts its own kind, never a key at its limit.
func TestEvictionSparesBusyKeys(t *testing.T) {
	const limit = 5
	m := newMemoryCounter(limit, time.Hour, 64*16)
	for range limit {
		m.take(context.Background(), "busy")
	}
	for i := range 100_000 {
		m.take(context.Background(), "fresh-"+strconv.Itoa(i))
	}
	if res, _ := m.take(context.Background(), "busy"); res.admitted {
		t.Error("the busy key was forgotten: a flood of fresh keys reset its limit")
	}
	if n := m.tracked(); n > 64*16 {
		t.Errorf("%d keys tracked", n)
	}
}

// BenchmarkMemoryCounter measures admission of known keys, and of fresh
// keys into a full counter, where every request evicts one.
func BenchmarkMemoryCounter(b *testing.B) {
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	for _, bc := range []struct {
		name    string
		maxKeys int
	}{{"known", len(keys) * 2}, {"evicting", len(keys) / 16}} {
		b.Run(bc.name, func(b *testing.B) {
			m := newMemoryCounter(1<<30, time.Hour, bc.maxKeys)
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_, _ = m.take(ctx, keys[i&(len(keys)-1)])
				i++
			}
		})
	}
}
