package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// userAgent names the tool on every request, so an operator can tell probe
// traffic from a client's.
const userAgent = "faultline-probe/1 (+https://github.com/faultline-go/faultline/tree/main/cmd/faultline)"

// request is one probe request, written byte for byte as given: the corpus
// needs header values net/http refuses to send (CR, LF, NUL), so the probe
// speaks HTTP/1.1 itself over one connection per request.
type request struct {
	method string
	// target is the request-target, path and query, already escaped.
	target string
	header [][2]string
	body   []byte
	// chunked sends the body with Transfer-Encoding: chunked instead of a
	// Content-Length.
	chunked bool
	// trickle spreads the body's bytes over this long.
	trickle time.Duration
	// noID leaves X-Request-Id to the header list (the hostile
	// variants write their own).
	noID bool

	// What the answer is judged against.
	expect []int
	write  bool
	accept string
	// hostile is an inbound X-Request-Id (or a part of one) that must never
	// come back.
	hostile string
	// refusalOK accepts a connection-level 400 without a problem body:
	// the request holds bytes HTTP forbids in a field (CR, LF, NUL), which
	// an HTTP layer may refuse before any handler runs.
	refusalOK bool
	// noJudge records a successful answer without judging it (the GET
	// beside a HEAD, an -openapi document).
	noJudge bool
	// headOf is the GET this HEAD is compared with.
	headOf *exchange
	// burst judges only the 429s (and 5xx) among the answers.
	burst bool
}

// exchange is a request and what came of it.
type exchange struct {
	check   string
	id      string
	req     *request
	status  int
	header  http.Header
	body    []byte
	elapsed time.Duration
	// truncated: the body was longer than -max-read and reading stopped.
	truncated bool
	// headBody: bytes followed the headers of an answer to HEAD.
	headBody bool
	err      error
	failures []failure
	// problem identifies the parsed problem, nil for any other answer.
	problem *problemID
}

type failure struct {
	judgement string
	why       string
}

func (ex *exchange) fail(judgement, format string, args ...any) {
	ex.failures = append(ex.failures, failure{judgement, fmt.Sprintf(format, args...)})
}

// client sends requests to one origin only, within a rate and a concurrency
// cap, each bounded in time and in the bytes it reads.
type client struct {
	base       *url.URL
	idHeader   string
	reqTimeout time.Duration
	maxRead    int64
	interval   time.Duration
	sem        chan struct{}
	ctx        context.Context

	run  string
	seq  atomic.Int64
	sent atomic.Int64

	mu   sync.Mutex
	next time.Time
}

func newClient(ctx context.Context, cfg config) *client {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &client{
		base:       cfg.base,
		idHeader:   cfg.idHeader,
		reqTimeout: cfg.reqTimeout,
		maxRead:    cfg.maxRead,
		interval:   rateInterval(cfg.rate),
		sem:        make(chan struct{}, cfg.concurrency),
		ctx:        ctx,
		run:        hex.EncodeToString(b[:]),
	}
}

// rateInterval is the time between two requests at rate a second. A rate
// so low that the interval overflows a Duration waits as long as one can,
// rather than wrapping to a negative interval, which would lift the cap.
func rateInterval(rate float64) time.Duration {
	// float64(math.MaxInt64) is 2^63, itself out of range, so the bound is
	// checked before the conversion.
	if d := float64(time.Second) / rate; d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// reachable dials the origin once, and shakes hands on https, so an
// address nobody listens on, or one the probe cannot speak TLS with, is
// exit code 3 rather than a report in which every check failed.
func (c *client) reachable() error {
	ctx, cancel := context.WithTimeout(c.ctx, c.reqTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", hostPort(c.base))
	if err != nil {
		return err
	}
	defer conn.Close()
	if c.base.Scheme == "https" {
		return c.tlsClient(conn).HandshakeContext(ctx)
	}
	return nil
}

func (c *client) tlsClient(conn net.Conn) *tls.Conn {
	return tls.Client(conn, &tls.Config{ServerName: c.base.Hostname()})
}

// wait takes the next slot of the rate limit; burst requests skip it.
func (c *client) wait(limited bool) error {
	if limited {
		c.mu.Lock()
		now := time.Now()
		if c.next.Before(now) {
			c.next = now
		}
		at := c.next
		c.next = c.next.Add(c.interval)
		c.mu.Unlock()
		if d := time.Until(at); d > 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-c.ctx.Done():
				return c.ctx.Err()
			}
		}
	}
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
}

// newID is the X-Request-Id of one probe request: the run's random part
// and a sequence number, quoted by the report.
func (c *client) newID() string {
	return fmt.Sprintf("fp-%s-%03d", c.run, c.seq.Add(1))
}

// fetch is a plain GET, for the -openapi document.
func (c *client) fetch(target string) *exchange {
	return c.do("openapi", &request{method: http.MethodGet, target: target, noJudge: true}, true)
}

func (c *client) do(check string, r *request, limited bool) *exchange {
	ex := &exchange{check: check, req: r, id: c.newID()}
	if err := c.wait(limited); err != nil {
		ex.err = fmt.Errorf("not sent: %w", err)
		return ex
	}
	defer func() { <-c.sem }()
	c.sent.Add(1)
	start := time.Now()
	defer func() { ex.elapsed = time.Since(start) }()

	deadline := start.Add(c.reqTimeout + r.trickle)
	if d, ok := c.ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(c.ctx, deadline)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", hostPort(c.base))
	if err != nil {
		ex.err = err
		return ex
	}
	if c.base.Scheme == "https" {
		conn = c.tlsClient(conn)
	}
	// A server that never answers, or trickles its answer, is cut off at
	// the deadline wherever the probe is waiting.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	_ = conn.SetDeadline(deadline)

	writeErr := c.write(ctx, conn, r, ex.id)
	in := &budget{r: conn, left: maxHead}
	br := bufio.NewReader(in)
	res, err := http.ReadResponse(br, &http.Request{Method: r.method})
	// A 1xx is interim (RFC 9110 §15.2: a client must read any number
	// before the final answer); the head budget bounds how many come.
	for err == nil && res.StatusCode < 200 && res.StatusCode != http.StatusSwitchingProtocols {
		res, err = http.ReadResponse(br, &http.Request{Method: r.method})
	}
	if err != nil {
		switch {
		case in.left <= 0:
			// The cut may fall inside a line, which the parser then calls
			// malformed: the budget is the reason.
			ex.err = errEndlessHead
		case ctx.Err() != nil || isTimeout(err):
			ex.err = fmt.Errorf("no complete answer within %s", deadline.Sub(start).Round(time.Millisecond))
		case writeErr != nil:
			ex.err = fmt.Errorf("sending failed (%v) and no answer came", writeErr)
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			ex.err = errors.New("the connection was closed without an answer")
		default:
			ex.err = err
		}
		return ex
	}
	// No res.Body.Close: it would drain the rest of the body, all 10 MB of
	// a hostile answer; closing the connection (deferred above) drops it.
	ex.status, ex.header = res.StatusCode, res.Header
	// The body is bounded by -max-read below, its chunk framing and
	// trailers by net/http itself.
	in.left = math.MaxInt64
	ex.body, err = io.ReadAll(io.LimitReader(res.Body, c.maxRead+1))
	if int64(len(ex.body)) > c.maxRead {
		ex.body, ex.truncated = ex.body[:c.maxRead], true
	} else if err != nil {
		ex.err = fmt.Errorf("reading the body: %w", timeoutText(err, deadline.Sub(start)))
	}
	if r.method == http.MethodHead {
		// net/http does not read a body after HEAD; a server that sends one
		// anyway corrupts the next answer on a kept-alive connection.
		_ = conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if n, _ := br.Read(make([]byte, 1)); n > 0 {
			ex.headBody = true
		}
	}
	return ex
}

// maxHead bounds an answer's status lines and header sections, interim
// ones included: http.ReadResponse keeps them in memory whole, however
// long a hostile server makes them.
const maxHead = 1 << 20

var errEndlessHead = fmt.Errorf("the answer's status line and headers run past %d bytes", maxHead)

// budget is the connection as the answer's parser reads it, cut off once
// the bytes it was allowed are spent.
type budget struct {
	r    io.Reader
	left int64
}

func (b *budget) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errEndlessHead
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, net.ErrClosed)
}

func timeoutText(err error, d time.Duration) error {
	if isTimeout(err) {
		return fmt.Errorf("the body did not end within %s", d.Round(time.Millisecond))
	}
	return err
}

func (c *client) write(ctx context.Context, conn net.Conn, r *request, id string) error {
	var b bytes.Buffer
	// The ID is in the User-Agent too, for the requests whose X-Request-Id
	// is hostile on purpose.
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s probe-id/%s\r\nConnection: close\r\n", r.method, r.target, c.base.Host, userAgent, id)
	if !r.noID {
		fmt.Fprintf(&b, "%s: %s\r\n", c.idHeader, id)
	}
	for _, h := range r.header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	switch {
	case r.chunked:
		b.WriteString("Transfer-Encoding: chunked\r\n\r\n")
		for chunk := range slices.Chunk(r.body, 1024) {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(chunk), chunk)
		}
		b.WriteString("0\r\n\r\n")
	case r.body != nil || r.write:
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(r.body))
		if r.trickle == 0 {
			b.Write(r.body)
		}
	default:
		b.WriteString("\r\n")
	}
	if _, err := conn.Write(b.Bytes()); err != nil {
		return err
	}
	if r.trickle == 0 || len(r.body) == 0 {
		return nil
	}
	step := r.trickle / time.Duration(len(r.body))
	for i := range r.body {
		select {
		case <-time.After(step):
		case <-ctx.Done():
			return ctx.Err()
		}
		if _, err := conn.Write(r.body[i : i+1]); err != nil {
			// The server gave up on the body: its answer is what counts.
			return err
		}
	}
	return nil
}
