// Command faultline is faultline's command-line tool. Its probe
// sub-command points at any HTTP API and reports where its failures break
// the contract: RFC 9457 problem details, retry signals that agree, no
// secret echoed, a correlation ID, a write's outcome.
//
//	go install github.com/faultline-go/faultline/cmd/faultline@latest
//	faultline probe [flags] BASE_URL
//
// The probe sends a bounded corpus of failing requests, in named checks
// that -checks and -skip select: unknown-route, method-not-allowed (every
// method a known route does not allow; routes from -openapi, -route or the
// Allow header of a TRACE), head, malformed-json, wrong-content-type,
// body-too-large (by Content-Length and chunked, with -max-body),
// duplicate-members, case-members, request-id (CR LF, obs-fold, NUL,
// 10 KiB, non-ASCII), accept (problem+xml, text/html, */*,
// application/json, none), canary (a vendor token, a DSN with a password
// and a private address in path, query, headers and body), slow-body
// (-slow) and burst (-burst, to observe a 429). It judges every answer: the status class for the input, a problem media
// type, the body against RFC 9457's JSON Schema (Appendix A) or its XML
// grammar (Appendix B), the status member equal to the HTTP status, one
// title and status per type across the run, instance a URI reference,
// Cache-Control: no-store, retryable/action/retry_after_ms/Retry-After
// consistent, Allow on a 405 listing HEAD with GET, Vary: Accept when the
// representation is negotiated, X-Request-Id and correlation_id agreeing,
// a hostile inbound ID never echoed, no planted canary anywhere in the
// answer, and no text the kit's public sanitizer would rewrite in the
// body or in a header other than Set-Cookie (a stack trace, SQL, a file
// path, a credential).
//
// -contract rfc9457 (the default) judges what RFC 9457 and HTTP ask of any
// API, so a team that does not use faultline gets a report about its own
// promises. -contract faultline adds the kit's members: code (snake_case,
// equal to X-Error-Code), action and cause within the closed sets, status
// and retryable present, correlation_id present and the inbound
// X-Request-Id echoed, retry_after_ms with its Retry-After header, and an
// outcome on every failed write that ran (a 5xx, or cause internal,
// upstream or environment): a 4xx refusal of a write carries none.
//
// Safety: only BASE_URL's origin is contacted (a redirect is reported, not
// followed; an -openapi URL must be on that origin), at most -rate requests
// a second and -concurrency at a time, each request bounded by
// -request-timeout and each answer's body by -max-read, the run by
// -timeout. Writes (POST, PUT, PATCH, DELETE) are sent only with
// -allow-writes, and only with bodies that must fail validation (truncated
// JSON, member names no API defines). Every request carries a User-Agent
// naming the tool with the request's ID, and an X-Request-Id the report
// quotes. An API that takes and echoes its correlation ID under another
// header (faultline's WithCorrelationHeader) names it with
// -correlation-header; X-Request-Id above means that header.
//
// Exit codes: 0 every selected check passed (or was skipped), 1 a check
// failed, 2 a usage error, 3 the target could not be reached.
//
// # JSON report
//
// -format json writes one JSON document; its field names are stable:
//
//	{
//	  "tool": "faultline probe",       // string
//	  "version": 1,                    // integer, the report's schema version
//	  "target": "http://host:port",    // string, BASE_URL
//	  "contract": "rfc9457",           // "rfc9457" | "faultline"
//	  "started": "2026-12-01T13:00:00Z", // RFC 3339
//	  "duration_ms": 812,              // integer
//	  "summary": {"passed": 9, "failed": 1, "skipped": 3},
//	  "checks": [{                     // one object per check, in corpus order
//	    "check": "unknown-route",      // the check's name
//	    "verdict": "fail",             // "pass" | "fail" | "skip"
//	    "why": "...",                  // why skipped, or a count
//	    "requests": [{                 // empty when skipped
//	      "id": "fp-1a2b3c4d-001",     // the X-Request-Id sent
//	      "method": "GET",
//	      "target": "/path?query",     // the request-target sent
//	      "status": 404,               // 0 when no answer came
//	      "content_type": "text/plain; charset=utf-8",
//	      "elapsed_ms": 3,
//	      "failures": [{"judgement": "media-type", "why": "..."}]
//	    }]
//	  }]
//	}
//
// Judgement names: answered, bounded, no-redirect, status, media-type,
// schema, status-member, type-stable, cache-control, retry-signals,
// outcome, allow, vary, correlation, hostile-id, canary, leak, contract,
// head, burst-429.
//
// -format junit writes a JUnit XML report (one testcase per check), and the
// default table is for a person; its colours appear only on a terminal.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const (
	exitPass        = 0
	exitFail        = 1
	exitUsage       = 2
	exitUnreachable = 3
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "probe" {
		fmt.Fprintln(stderr, "usage: faultline probe [flags] BASE_URL")
		return exitUsage
	}
	cfg, err := parseConfig(args[1:], stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitPass
	}
	if err != nil {
		fmt.Fprintln(stderr, "faultline probe:", err)
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	p := &prober{cfg: cfg, c: newClient(ctx, cfg), can: newCanaries()}
	p.j = &judge{cfg: cfg, can: p.can}
	if err := p.c.reachable(); err != nil {
		fmt.Fprintf(stderr, "faultline probe: %s cannot be reached: %v\n", origin(cfg.base), err)
		return exitUnreachable
	}
	if cfg.openapi != "" {
		routes, err := loadOpenAPI(p.c, cfg.openapi)
		if err != nil {
			fmt.Fprintln(stderr, "faultline probe:", err)
			var ue usageError
			if errors.As(err, &ue) {
				return exitUsage
			}
			return exitUnreachable
		}
		p.routes = routes
	}
	p.routes = append(p.routes, cfg.routes...)

	started := time.Now()
	every := 3 * time.Second
	if isTerminal(stderr) {
		every = 250 * time.Millisecond
	}
	stopProgress := progress(stderr, p.c, started, every)
	rep := p.probe()
	stopProgress()
	rep.Started = started
	rep.DurationMS = time.Since(started).Milliseconds()

	switch cfg.format {
	case "json":
		err = writeJSON(stdout, rep)
	case "junit":
		err = writeJUnit(stdout, rep, cfg.base.Hostname())
	default:
		err = writeTable(stdout, rep, cfg.color == "always" || cfg.color == "auto" && isTerminal(stdout))
	}
	if err != nil {
		fmt.Fprintln(stderr, "faultline probe:", err)
		return exitFail
	}
	if rep.Summary.Failed > 0 {
		return exitFail
	}
	return exitPass
}

// probe runs the selected checks, at once within the client's caps, and
// judges every answer once all are in: some judgements compare answers.
func (p *prober) probe() *report {
	p.discover()
	type outcome struct {
		exs  []*exchange
		skip string
	}
	outcomes := make([]outcome, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		if !p.cfg.selected(c.name) {
			continue
		}
		wg.Go(func() {
			exs, skip := c.run(p)
			outcomes[i] = outcome{exs, skip}
		})
	}
	wg.Wait()

	var all []*exchange
	for _, o := range outcomes {
		all = append(all, o.exs...)
	}
	p.j.run(all)
	if o := outcomes[burstIndex()]; len(o.exs) > 0 && !anyStatus(o.exs, 429) {
		last := o.exs[len(o.exs)-1]
		last.fail(jBurst, "no 429 in %d requests sent at once", len(o.exs))
	}

	rep := &report{Tool: "faultline probe", Version: 1, Target: origin(p.cfg.base) + p.cfg.base.Path, Contract: p.cfg.contract}
	for i, c := range checks {
		if !p.cfg.selected(c.name) {
			continue
		}
		rep.Checks = append(rep.Checks, newCheckResult(c.name, outcomes[i].exs, outcomes[i].skip))
	}
	rep.tally()
	return rep
}

func burstIndex() int {
	for i, c := range checks {
		if c.name == "burst" {
			return i
		}
	}
	panic("the corpus has no burst check")
}

func anyStatus(exs []*exchange, status int) bool {
	for _, ex := range exs {
		if ex.status == status {
			return true
		}
	}
	return false
}

// progress writes how far the run is to stderr, every so often once it has
// taken a second: in place on a terminal, a line each time otherwise.
func progress(w io.Writer, c *client, started time.Time, every time.Duration) func() {
	tty := isTerminal(w)
	done := make(chan struct{})
	var wrote atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if time.Since(started) < time.Second {
					continue
				}
				line := fmt.Sprintf("faultline probe: %d requests sent, %s", c.sent.Load(), time.Since(started).Round(time.Second))
				if tty {
					fmt.Fprintf(w, "\r%s", line)
				} else {
					fmt.Fprintln(w, line)
				}
				wrote.Store(true)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		if tty && wrote.Load() {
			fmt.Fprintf(w, "\r%s\r", strings.Repeat(" ", 60))
		}
	}
}
