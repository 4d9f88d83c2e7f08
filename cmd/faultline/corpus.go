package main

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// check is one named probe: the requests it sends and what their answers
// must be. run returns the exchanges, or why the check could not run.
type check struct {
	name string
	doc  string
	run  func(p *prober) ([]*exchange, string)
}

// checks is the corpus, in the order the report lists it.
var checks = []check{
	{"unknown-route", "GET on a path no API serves: 404 as a problem", checkUnknownRoute},
	{"method-not-allowed", "every method a known route does not allow: 405 with Allow", checkMethods},
	{"head", "HEAD on a GET route answers as GET does, without a body", checkHead},
	{"malformed-json", "a truncated JSON body: 400", checkMalformedJSON},
	{"wrong-content-type", "a body sent as text/plain: 415", checkWrongContentType},
	{"body-too-large", "a body one byte over -max-body, by Content-Length and chunked: 413", checkTooLarge},
	{"duplicate-members", "a JSON object with one member name twice: refused", checkDuplicateMembers},
	{"case-members", "a JSON object with two names differing only in case: refused", checkCaseMembers},
	{"request-id", "hostile X-Request-Id values (CR LF, obs-fold, NUL, 10 KiB, non-ASCII): never echoed", checkRequestID},
	{"accept", "Accept: problem+xml, text/html, */*, application/json and none: a problem each, Vary: Accept when negotiated", checkAccept},
	{"canary", "secrets planted in path, query, headers and body never come back", checkCanary},
	{"slow-body", "a body trickled over -slow: a problem, not a hang", checkSlowBody},
	{"burst", "-burst requests at once: a 429 whose retry signals agree", checkBurst},
}

func checkNames() []string {
	names := make([]string, len(checks))
	for i, c := range checks {
		names[i] = c.name
	}
	return names
}

// The statuses each kind of input may get.
var (
	wantNotFound = []int{http.StatusNotFound, http.StatusGone}
	wantMethod   = []int{http.StatusMethodNotAllowed}
	wantSyntax   = []int{http.StatusBadRequest, http.StatusUnprocessableEntity}
	wantMedia    = []int{http.StatusUnsupportedMediaType}
	wantTooLarge = []int{http.StatusRequestEntityTooLarge}
	wantRefused  = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity}
	wantSlow     = []int{http.StatusBadRequest, http.StatusRequestTimeout, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity}
)

// prober is one run: its configuration, its client, the routes it knows
// and the canaries it planted.
type prober struct {
	cfg    config
	c      *client
	j      *judge
	can    canaries
	routes []route
	// discovery holds the TRACE requests that learnt routes' methods; they
	// count for method-not-allowed.
	discovery []*exchange
}

var templateParam = regexp.MustCompile(`\{[^}/]*\}`)

// target joins the base path and a route, filling {params} with a value no
// API holds.
func (p *prober) target(path string) string {
	path = templateParam.ReplaceAllString(path, "faultline-probe")
	return (&url.URL{Path: p.cfg.base.Path + path}).EscapedPath()
}

func (p *prober) unknownTarget() string {
	return p.target("/faultline-probe-" + p.c.run + "/no-such-route")
}

// send sends a request within the rate limit and judges its answer.
func (p *prober) send(check string, r *request) *exchange {
	ex := p.c.do(check, r, true)
	p.j.answer(ex)
	return ex
}

// discover learns the methods of the routes that came without them from
// the Allow header of a TRACE (which no API should allow); with no route
// given at all, the base path is tried.
func (p *prober) discover() {
	implicit := len(p.routes) == 0
	if implicit {
		p.routes = []route{{path: "/"}}
	}
	var known []route
	for _, rt := range p.routes {
		if rt.methods != nil {
			known = append(known, rt)
			continue
		}
		ex := p.send("method-not-allowed", &request{method: "TRACE", target: p.target(rt.path), expect: wantMethod})
		if ex.err == nil && ex.status == http.StatusMethodNotAllowed {
			rt.methods = allowList(ex.header)
		}
		if implicit && rt.methods == nil {
			continue
		}
		p.discovery = append(p.discovery, ex)
		known = append(known, rt)
	}
	p.routes = known
}

func allowList(h http.Header) []string {
	var methods []string
	for _, v := range h.Values("Allow") {
		for m := range strings.SplitSeq(v, ",") {
			if m = strings.ToUpper(strings.TrimSpace(m)); m != "" {
				methods = append(methods, m)
			}
		}
	}
	return methods
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

func checkUnknownRoute(p *prober) ([]*exchange, string) {
	return []*exchange{p.send("unknown-route", &request{method: http.MethodGet, target: p.unknownTarget(), expect: wantNotFound})}, ""
}

func checkMethods(p *prober) ([]*exchange, string) {
	exs := slices.Clone(p.discovery)
	probed := map[string]bool{}
	for _, ex := range exs {
		probed[ex.req.method+" "+ex.req.target] = true
	}
	for _, rt := range p.routes {
		if rt.methods == nil {
			continue
		}
		for _, m := range []string{"TRACE", http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			target := p.target(rt.path)
			if slices.Contains(rt.methods, m) || probed[m+" "+target] || isWrite(m) && !p.cfg.allowWrites {
				continue
			}
			r := &request{method: m, target: target, expect: wantMethod, write: isWrite(m)}
			if r.write {
				r.header = [][2]string{{"Content-Type", "application/json"}}
				r.body = []byte(`{"faultline_probe":`)
			}
			exs = append(exs, p.send("method-not-allowed", r))
		}
	}
	if len(exs) == 0 {
		return nil, "no route known: the base path answered TRACE without a 405 and Allow; give -route or -openapi"
	}
	return exs, ""
}

// getRoute is the first route that answers GET, or the unknown route.
func (p *prober) getRoute() string {
	for _, rt := range p.routes {
		if slices.Contains(rt.methods, http.MethodGet) {
			return p.target(rt.path)
		}
	}
	return p.unknownTarget()
}

func checkHead(p *prober) ([]*exchange, string) {
	target := p.getRoute()
	get := p.send("head", &request{method: http.MethodGet, target: target, noJudge: true})
	head := p.send("head", &request{method: http.MethodHead, target: target, headOf: get})
	return []*exchange{get, head}, ""
}

// writeRoute is the first route taking POST, PUT or PATCH, and that method.
func (p *prober) writeRoute() (string, string, string) {
	if !p.cfg.allowWrites {
		return "", "", "writes are not allowed: give -allow-writes (every body sent must fail validation)"
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch} {
		for _, rt := range p.routes {
			if slices.Contains(rt.methods, m) {
				return m, p.target(rt.path), ""
			}
		}
	}
	return "", "", "no known route takes POST, PUT or PATCH: give -route or -openapi"
}

func (p *prober) sendBody(check, contentType, body string, expect []int) ([]*exchange, string) {
	method, target, skip := p.writeRoute()
	if skip != "" {
		return nil, skip
	}
	return []*exchange{p.send(check, &request{method: method, target: target, write: true, expect: expect,
		header: [][2]string{{"Content-Type", contentType}}, body: []byte(body)})}, ""
}

func checkMalformedJSON(p *prober) ([]*exchange, string) {
	return p.sendBody("malformed-json", "application/json", `{"faultline_probe": [1, 2`, wantSyntax)
}

func checkWrongContentType(p *prober) ([]*exchange, string) {
	return p.sendBody("wrong-content-type", "text/plain; charset=utf-8", `faultline_probe=1`, wantMedia)
}

// Member-name checks send names no API defines, so a server that reads them
// leniently still refuses the body for what it lacks.
func checkDuplicateMembers(p *prober) ([]*exchange, string) {
	return p.sendBody("duplicate-members", "application/json", `{"faultline_probe":1,"faultline_probe":2}`, wantSyntax)
}

func checkCaseMembers(p *prober) ([]*exchange, string) {
	return p.sendBody("case-members", "application/json", `{"faultline_probe":1,"Faultline_Probe":2}`, wantSyntax)
}

func checkTooLarge(p *prober) ([]*exchange, string) {
	if p.cfg.maxBody == 0 {
		return nil, "the API's body limit is not known: give -max-body"
	}
	method, target, skip := p.writeRoute()
	if skip != "" {
		return nil, skip
	}
	const head, tail = `{"faultline_probe":"`, `"}`
	pad := max(p.cfg.maxBody+1-int64(len(head)+len(tail)), 0)
	body := []byte(head + strings.Repeat("x", int(pad)) + tail)
	var exs []*exchange
	for _, chunked := range []bool{false, true} {
		exs = append(exs, p.send("body-too-large", &request{method: method, target: target, write: true, expect: wantTooLarge,
			header: [][2]string{{"Content-Type", "application/json"}}, body: body, chunked: chunked}))
	}
	return exs, ""
}

func checkRequestID(p *prober) ([]*exchange, string) {
	prefix := "fp-" + p.c.run + "-hostile"
	long := strings.Repeat(randomText(64), 10240/64)
	variants := []struct{ value, hostile string }{
		{prefix + "\r\n" + injectedHeader + ": " + p.can.injected, p.can.injected},
		{prefix + "\r\n folded-" + p.can.injected, p.can.injected},
		{prefix + "\x00" + p.can.injected, p.can.injected},
		{long, long[:64]},
		{prefix + "-ñandú-" + p.can.injected, "ñandú"},
	}
	var exs []*exchange
	for _, v := range variants {
		exs = append(exs, p.send("request-id", &request{method: http.MethodGet, target: p.unknownTarget(), noID: true,
			header: [][2]string{{p.cfg.idHeader, v.value}}, hostile: v.hostile,
			expect: append(slices.Clone(wantNotFound), http.StatusBadRequest), refusalOK: strings.ContainsAny(v.value, "\r\n\x00")}))
	}
	return exs, ""
}

// acceptVariants are the Accept headers the accept check sends; "" sends
// none.
var acceptVariants = []string{"application/problem+xml", "text/html", "*/*", "application/json", ""}

func checkAccept(p *prober) ([]*exchange, string) {
	var exs []*exchange
	for _, a := range acceptVariants {
		r := &request{method: http.MethodGet, target: p.unknownTarget(), accept: a, expect: append(slices.Clone(wantNotFound), http.StatusNotAcceptable)}
		if a != "" {
			r.header = [][2]string{{"Accept", a}}
		}
		exs = append(exs, p.send("accept", r))
	}
	return exs, ""
}

func checkCanary(p *prober) ([]*exchange, string) {
	c := p.can
	q := url.Values{"access_token": {c.token}, "dsn": {c.dsn}, "next": {"http://" + c.addr + "/admin"}}
	target := p.target("/faultline-probe-"+p.c.run+"/"+c.token+"/"+c.addr) + "?" + q.Encode()
	exs := []*exchange{p.send("canary", &request{method: http.MethodGet, target: target, expect: wantRefused, header: [][2]string{
		{"Authorization", "Bearer " + c.token},
		{"Cookie", "session=" + c.token},
		{"X-Api-Key", c.token},
		{"X-Forwarded-For", c.addr},
		{"Referer", c.dsn},
	}})}
	if method, wtarget, skip := p.writeRoute(); skip == "" {
		body := `{"faultline_probe_token":"` + c.token + `","faultline_probe_dsn":"` + c.dsn + `","faultline_probe_host":"` + c.addr + `","faultline_probe":`
		exs = append(exs, p.send("canary", &request{method: method, target: wtarget, write: true, expect: wantRefused,
			header: [][2]string{{"Content-Type", "application/json"}, {"Authorization", "Bearer " + c.token}}, body: []byte(body)}))
	}
	return exs, ""
}

func checkSlowBody(p *prober) ([]*exchange, string) {
	if p.cfg.slow == 0 {
		return nil, "off by default: give -slow DURATION"
	}
	method, target, skip := p.writeRoute()
	if skip != "" {
		return nil, skip
	}
	return []*exchange{p.send("slow-body", &request{method: method, target: target, write: true, expect: wantSlow,
		header: [][2]string{{"Content-Type", "application/json"}}, body: []byte(`{"faultline_probe":"xxxxxxxx`), trickle: p.cfg.slow})}, ""
}

// checkBurst sends its requests outside the rate limit (the concurrency cap
// still holds) and judges the 429s it gets; the other answers are the
// route's own business.
func checkBurst(p *prober) ([]*exchange, string) {
	if p.cfg.burst == 0 {
		return nil, "off by default: give -burst N"
	}
	target := p.getRoute()
	if p.cfg.burstRoute != "" {
		target = p.target(p.cfg.burstRoute)
	}
	exs := make([]*exchange, p.cfg.burst)
	var wg sync.WaitGroup
	for i := range exs {
		wg.Go(func() {
			exs[i] = p.c.do("burst", &request{method: http.MethodGet, target: target, burst: true}, false)
			p.j.answer(exs[i])
		})
	}
	wg.Wait()
	return exs, ""
}
