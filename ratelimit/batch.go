package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// batcher coalesces concurrent checks into pipelined round trips. One
// script run per request would cost each request a round trip of its own,
// and go-redis would spend a pooled connection, a write and a read on each:
// under concurrency the limiter would be bound by round trips, not by
// Redis. Instead, checks that arrive while a round trip is in flight wait in
// a queue, and the next round trip carries all of them as one pipeline:
// Redis runs the scripts back to back, and the client writes and reads once
// for the whole batch.
//
// There is no goroutine of its own: a request whose check finds the lane
// idle sends the batch it belongs to (the leader), and when that round trip
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
	// busy: a round trip is in flight, so arriving checks queue.
	busy  bool
	queue []*check
}

// check is one script run waiting for its batch.
type check struct {
	ctx  context.Context
	keys [2]string
	args [5]any
	// deadline bounds the check's wait: the batch it goes out in must be
	// back by then, so no request waits longer than the Redis timeout
	// however many batches were ahead of it.
	deadline time.Time
	reply    []int64
	err      error
	// lead is the batch this check's goroutine must send: it was handed the
	// lane when the round trip before it came back.
	lead []*check
	// done is signalled once per use: with the reply, or with lead set.
	done chan struct{}
}

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
func (b *batcher) laneFor(ctx context.Context, key string) *lane {
	if b.cluster == nil {
		return &b.single
	}
	m, err := b.cluster.MasterForKey(ctx, key)
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

// run sends c, alone or with the checks that queue beside it, and returns
// when its reply (or error) is there. c goes back to the pool afterwards,
// so the caller reads reply and err before releasing it.
func (b *batcher) run(c *check) {
	l := b.laneFor(c.ctx, c.keys[0])
	l.mu.Lock()
	l.queue = append(l.queue, c)
	if l.busy {
		l.mu.Unlock()
		<-c.done
		if c.lead == nil {
			return
		}
	} else {
		l.busy = true
		c.lead = l.queue
		l.queue = nil
		l.mu.Unlock()
	}
	batch := c.lead
	c.lead = nil
	b.send(batch)

	l.mu.Lock()
	next := l.queue
	l.queue = nil
	if len(next) == 0 {
		l.busy = false
	}
	l.mu.Unlock()
	if len(next) > 0 {
		next[0].lead = next
		next[0].done <- struct{}{}
	}
	for _, o := range batch {
		if o != c {
			o.done <- struct{}{}
		}
	}
}

// send runs every check of batch in one pipeline. A script Redis does not
// know yet (right after a restart) is loaded by running it with EVAL in a
// second pipeline, for the checks that met NOSCRIPT.
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
	cmds := make([]*redis.Cmd, len(batch))
	pipe := b.client.Pipeline()
	for i, c := range batch {
		cmds[i] = slidingWindow.EvalSha(ctx, pipe, c.keys[:], c.args[:]...)
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
			cmds[i] = slidingWindow.Eval(ctx, pipe, batch[i].keys[:], batch[i].args[:]...)
		}
		_, _ = pipe.Exec(ctx)
	}
	for i, c := range batch {
		c.reply, c.err = cmds[i].Int64Slice()
	}
}
