package ratelimit

import (
	"context"
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// batcher coalesces concurrent checks into pipelined round trips. One
// script run per request would cost each request a round trip of its own,
// and go-redis would spend a pooled connection, a write and a read on each:
// under concurrency the limiter would be bound by round trips, not by
// Redis. Instead, checks that arrive while round trips are in flight wait
// in a queue, and the next round trip carries all of them in one script run
// (one per hashtag on a Cluster, pipelined): Redis runs them back to back,
// and the client writes and reads once for the whole batch.
//
// There is no goroutine of its own: a request whose check finds a round
// trip free sends the batch it belongs to (the leader), and when that one
// is back it hands what queued meanwhile to the first of those requests,
// which leads the next one. So a request leads at most the batch holding
// its own check, nothing runs when no request does, and there is nothing
// to stop.
//
// A Cluster gets a lane per master: a batch then goes to one node, and a
// stalled or failed master delays only the checks of its own slots.
type batcher struct {
	client  redis.UniversalClient
	cluster *redis.ClusterClient // nil for other clients
	single  lane

	mu    sync.Mutex
	lanes map[string]*lane // by master address, for a Cluster
}

// lane is the queue of one Redis node.
type lane struct {
	mu sync.Mutex
	// inFlight counts the round trips under way; at maxInFlight arriving
	// checks queue.
	inFlight int
	queue    []*check
}

// check is one admission check waiting for its batch.
type check struct {
	ctx  context.Context
	keys [2]string // the counters of the current and the previous window
	// The script's numbers (see sliding_window.lua), kept as integers: as
	// go-redis arguments each would be boxed, formatted and parsed again.
	limit, window, elapsed, ttl, floor int64
	// deadline bounds the check's wait: the batch it goes out in must be
	// back by then, so no request waits longer than the Redis timeout
	// however many batches were ahead of it.
	deadline time.Time
	// reply is admitted (1 or 0), the current and the previous count.
	reply [3]int64
	err   error
	// leads: this check's goroutine was handed the lane when the round
	// trip before it came back, and sends the next batch.
	leads bool
	// done is signalled once per use: with the reply, or with leads set.
	done chan struct{}
}

// maxInFlight is how many round trips a lane has under way at once: one,
// so that every check arriving meanwhile joins the next batch. Measured
// with 32 concurrent clients on a loaded 2-core machine (benchmarks/
// README.md), one round trip in flight made batches of 16 checks instead
// of 10 with two, and cost 7 to 20% less CPU per check on both sides,
// which is what bounds throughput when Redis and its clients share cores.
// The price is latency under moderate load: a check that arrives while a
// round trip is out waits for it before its own goes, at most one round
// trip more, which a loaded lane would queue it for anyway.
const maxInFlight = 1

var checkPool = sync.Pool{New: func() any { return &check{done: make(chan struct{}, 1)} }}

func newBatcher(client redis.UniversalClient) *batcher {
	b := &batcher{client: client}
	if cc, ok := client.(*redis.ClusterClient); ok {
		b.cluster = cc
		b.lanes = map[string]*lane{}
	}
	return b
}

// laneFor picks the lane of the master serving key's slot. When the slot
// map cannot say (it is still loading, or being reloaded after a
// failover), the check goes on the shared lane: the Cluster client routes
// every command of a pipeline by its own slot anyway, so this only decides
// which checks wait for one another.
func (b *batcher) laneFor(c *check) *lane {
	if b.cluster == nil {
		return &b.single
	}
	// The first look-up loads the slot map over the network: it is bounded
	// like the check itself.
	ctx, cancel := context.WithDeadline(context.WithoutCancel(c.ctx), c.deadline)
	m, err := b.cluster.MasterForKey(ctx, c.keys[0])
	cancel()
	if err != nil {
		return &b.single
	}
	addr := m.Options().Addr
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.lanes[addr]
	if l == nil {
		l = &lane{}
		b.lanes[addr] = l
	}
	return l
}

// maxBatch bounds the checks of one round trip: the script unpacks the
// batch's keys (at most two per check) into one MGET, and Lua's C stack
// holds about 8000 values; a check's record names its keys by 16-bit
// indexes.
const maxBatch = 1024

// take removes the next batch from the queue; l.mu is held.
func (l *lane) take() []*check {
	n := min(len(l.queue), maxBatch)
	batch := l.queue[:n:n]
	if l.queue = l.queue[n:]; len(l.queue) == 0 {
		l.queue = nil
	}
	return batch
}

// run sends c, alone or with the checks that queue beside it, and returns
// when its reply (or error) is there. c goes back to the pool afterwards,
// so the caller reads reply and err before releasing it.
func (b *batcher) run(c *check) {
	l := b.laneFor(c)
	l.mu.Lock()
	l.queue = append(l.queue, c)
	if l.inFlight >= maxInFlight {
		l.mu.Unlock()
		<-c.done
		if !c.leads {
			return
		}
		// c heads the queue: only a leader takes from it, and the lane
		// has been c's since the round trip before came back. Taking the
		// batch now rather than then lets it carry the checks that queued
		// while c was being woken.
		l.mu.Lock()
	} else {
		l.inFlight++
	}
	batch := l.take()
	l.mu.Unlock()
	defer b.handOff(l, c, batch)
	b.send(batch)
}

// handOff runs when the leader c's round trip is over, however it ended:
// the lane goes to the check at the head of the queue and every other
// check of c's batch gets its reply. A panic in send (a go-redis hook's,
// say) fails the batch's checks instead, which then take the failure mode,
// and goes on up c's own request as it would have without batching;
// without this the other checks, and every check after them, would wait
// forever.
func (b *batcher) handOff(l *lane, c *check, batch []*check) {
	v := recover()
	if v != nil {
		for _, o := range batch {
			o.reply, o.err = [3]int64{}, errBatchPanicked
		}
	}
	var next *check
	l.mu.Lock()
	if len(l.queue) > 0 {
		next = l.queue[0]
	} else {
		l.inFlight--
	}
	l.mu.Unlock()
	if next != nil {
		next.leads = true
		next.done <- struct{}{}
	}
	for _, o := range batch {
		if o != c {
			o.done <- struct{}{}
		}
	}
	if v != nil {
		panic(v)
	}
}

// send runs every check of batch in one round trip: one script run for
// all of them on a single Redis, one per hashtag in a pipeline on a Cluster
// or Ring (a script's keys must share a slot). A script Redis does not know
// yet (right after a restart) is loaded by running it with EVAL in a second
// round trip, for the groups that met NOSCRIPT.
func (b *batcher) send(batch []*check) {
	deadline := batch[0].deadline
	for _, c := range batch[1:] {
		if c.deadline.Before(deadline) {
			deadline = c.deadline
		}
	}
	// The requests' cancellation must not count as a Redis failure, but
	// their values (tracing) may matter to go-redis hooks: the leader's
	// stand for the batch. Only the deadline bounds the round trip.
	ctx, cancel := context.WithDeadline(context.WithoutCancel(batch[0].ctx), deadline)
	defer cancel()
	s := scratchPool.Get().(*scratch)
	defer s.release()
	if _, single := b.client.(*redis.Client); single {
		// One script run: no pipeline to build. Run loads the script on
		// NOSCRIPT.
		keys, recs := s.encode(batch)
		deliver(batch, slidingWindow.Run(ctx, b.client, keys, recs))
		return
	}
	groups := b.group(batch, s)
	keys := make([][]string, len(groups))
	recs := make([][]byte, len(groups))
	cmds := make([]*redis.Cmd, len(groups))
	pipe := b.client.Pipeline()
	for i, g := range groups {
		k, r := s.encode(g)
		// encode reuses its buffers: each group keeps copies.
		keys[i], recs[i] = slices.Clone(k), slices.Clone(r)
		cmds[i] = slidingWindow.EvalSha(ctx, pipe, keys[i], recs[i])
	}
	_, _ = pipe.Exec(ctx)
	var missing []int
	for i, cmd := range cmds {
		if redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		pipe := b.client.Pipeline()
		for _, i := range missing {
			cmds[i] = slidingWindow.Eval(ctx, pipe, keys[i], recs[i])
		}
		_, _ = pipe.Exec(ctx)
	}
	for i, g := range groups {
		deliver(g, cmds[i])
	}
}

// recordSize is the length of one check's reply record: admitted (1 byte),
// the current and the previous count (8 bytes each).
const recordSize = 17

// deliver hands each check of g its record of cmd's reply, or its error.
func deliver(g []*check, cmd *redis.Cmd) {
	v, err := cmd.Text()
	if err == nil && len(v) != recordSize*len(g) {
		err = errScriptReply
	}
	for j, c := range g {
		if c.err = err; err == nil {
			r := v[recordSize*j:]
			c.reply = [3]int64{int64(r[0]), int64(le64(r[1:])), int64(le64(r[9:]))}
		}
	}
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// scratch holds the buffers one batch is encoded in, reused across batches
// so that a check costs no allocation of its own for them.
type scratch struct {
	keys   []string
	index  map[string]uint16
	recs   []byte
	groups [][]*check
	tags   map[string]int
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{index: map[string]uint16{}, tags: map[string]int{}}
}}

func (s *scratch) release() {
	clear(s.keys)
	s.keys = s.keys[:0]
	clear(s.index)
	s.recs = s.recs[:0]
	for i := range s.groups {
		clear(s.groups[i])
		s.groups[i] = s.groups[i][:0]
	}
	s.groups = s.groups[:0]
	clear(s.tags)
	scratchPool.Put(s)
}

// encode lays out the script's input for the checks of g: every counter
// once in keys, and a record per check naming its two counters by their
// index in keys (see sliding_window.lua). Both results are s's buffers.
func (s *scratch) encode(g []*check) ([]string, []byte) {
	clear(s.index)
	s.keys = s.keys[:0]
	s.recs = s.recs[:0]
	for _, c := range g {
		for _, k := range c.keys {
			i, ok := s.index[k]
			if !ok {
				s.keys = append(s.keys, k)
				i = uint16(len(s.keys)) // Lua counts from 1
				s.index[k] = i
			}
			s.recs = binary.LittleEndian.AppendUint16(s.recs, i)
		}
		for _, n := range [5]int64{c.limit, c.window, c.elapsed, c.ttl, c.floor} {
			s.recs = binary.LittleEndian.AppendUint64(s.recs, uint64(n))
		}
	}
	return s.keys, s.recs
}

// group splits batch into the checks one script run can take on a Cluster
// or Ring: those of one hashtag (which holds the hashed key, so in practice
// the checks of one key). The groups are s's buffers.
func (b *batcher) group(batch []*check, s *scratch) [][]*check {
	for _, c := range batch {
		k := c.keys[0]
		tag := k[:strings.IndexByte(k, '}')+1]
		i, ok := s.tags[tag]
		if !ok {
			i = len(s.groups)
			s.tags[tag] = i
			if i < cap(s.groups) {
				s.groups = s.groups[:i+1]
			} else {
				s.groups = append(s.groups, nil)
			}
		}
		s.groups[i] = append(s.groups[i], c)
	}
	return s.groups
}
