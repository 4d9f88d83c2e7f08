package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// The judgements, by the names the reports use.
const (
	jAnswered     = "answered"
	jBounded      = "bounded"
	jRedirect     = "no-redirect"
	jStatus       = "status"
	jMediaType    = "media-type"
	jSchema       = "schema"
	jStatusMember = "status-member"
	jTypeStable   = "type-stable"
	jCache        = "cache-control"
	jRetry        = "retry-signals"
	jOutcome      = "outcome"
	jAllow        = "allow"
	jVary         = "vary"
	jCorrelation  = "correlation"
	jHostileID    = "hostile-id"
	jCanary       = "canary"
	jLeak         = "leak"
	jContract     = "contract"
	jHead         = "head"
	jBurst        = "burst-429"
)

// The closed sets of faultline's contract, from the problem package's
// constants so they follow the kit.
var (
	closedActions = []problem.Action{problem.ActionRetry, problem.ActionVerify, problem.ActionFixRequest, problem.ActionReauthenticate,
		problem.ActionConfigure, problem.ActionApprove, problem.ActionUnlock, problem.ActionNone}
	closedCauses = []problem.Cause{problem.CauseRequest, problem.CauseAuth, problem.CausePolicy, problem.CauseConfig,
		problem.CauseInternal, problem.CauseUpstream, problem.CauseEnvironment}
	closedOutcomes = []problem.Outcome{problem.OutcomeNotStarted, problem.OutcomeNotCommitted, problem.OutcomeCommitted, problem.OutcomeUnknown}
)

// judge judges each answer as it arrives, from any goroutine (it only
// reads its fields), then what spans the run once all are in.
type judge struct {
	cfg config
	can canaries
}

// problemID is what the judgements spanning the run compare of a parsed
// problem: its type, title and status.
type problemID struct {
	typ, title string
	status     int
}

func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return strings.ToLower(strings.TrimSpace(h.Get("Content-Type")))
	}
	return mt
}

// answer judges one exchange on its own, and lets go of its body: the
// run keeps what the report and the later judgements need, so its memory
// is one -max-read per request in flight, not per request sent.
func (j *judge) answer(ex *exchange) {
	defer func() { ex.body = nil }()
	r := ex.req
	if ex.err != nil {
		ex.fail(jAnswered, "%v", ex.err)
		return
	}
	if hits := j.can.found(ex.header, ex.body); len(hits) > 0 {
		ex.fail(jCanary, "the answer carries %s", strings.Join(hits, ", "))
	}
	if r.hostile != "" {
		j.hostile(ex)
	}
	if ex.truncated {
		ex.fail(jBounded, "the body is longer than -max-read %d bytes; reading stopped there", j.cfg.maxRead)
	}
	if ex.status >= 300 && ex.status < 400 {
		loc := ex.header.Get("Location")
		where := "the same origin"
		if u, err := url.Parse(loc); err == nil && u.Host != "" && !sameOrigin(u, j.cfg.base) {
			where = "another origin"
		}
		ex.fail(jRedirect, "%d redirect to %s (%s), not followed: a failure must be answered, not redirected", ex.status, clip(loc), where)
		return
	}
	if r.headOf != nil {
		j.head(ex)
	}
	if r.burst && ex.status != http.StatusTooManyRequests && ex.status < 500 {
		return
	}
	if r.noJudge && ex.status < 400 {
		return
	}
	want := r.expect
	if r.burst {
		want = []int{http.StatusTooManyRequests}
	}
	if len(want) > 0 && !slices.Contains(want, ex.status) {
		ex.fail(jStatus, "%d, want %s for this input", ex.status, statusList(want))
	}
	if ex.status < 400 {
		return
	}
	j.leak(ex, headerTexts(ex.header))
	media := mediaType(ex.header)
	if r.refusalOK && ex.status == http.StatusBadRequest && !isProblemMedia(media) {
		// The HTTP layer refused the request before any handler saw it;
		// there is no application answer to hold to the contract, but
		// what was sent must still not leak.
		j.leak(ex, [][2]string{{"body", string(ex.body)}})
		return
	}
	j.headers(ex, media)
	if r.method == http.MethodHead {
		return
	}
	var doc *problemDoc
	var why []string
	switch media {
	case "application/problem+json":
		doc, why = parseProblemJSON(ex.body)
	case "application/problem+xml":
		doc, why = parseProblemXML(ex.body)
	default:
		j.leak(ex, [][2]string{{"body", string(ex.body)}})
	}
	for _, w := range why {
		ex.fail(jSchema, "%s", w)
	}
	if doc == nil {
		return
	}
	ex.problem = identify(doc, ex.status)
	if r.hostile != "" {
		j.hostileDecoded(ex, doc)
	}
	j.problem(ex, doc)
}

func statusList(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " or ")
}

func isProblemMedia(m string) bool {
	return m == "application/problem+json" || m == "application/problem+xml"
}

// headers judges what every error answer's headers must say.
func (j *judge) headers(ex *exchange, media string) {
	switch {
	case isProblemMedia(media):
	case media == "text/plain" && strings.HasPrefix(ex.req.accept, "text/"):
		// The plain-text plane, for a client that asked for text.
	default:
		ex.fail(jMediaType, "Content-Type %s is not application/problem+json", clip(ex.header.Get("Content-Type")))
	}
	if !hasDirective(ex.header.Values("Cache-Control"), "no-store") {
		ex.fail(jCache, "Cache-Control %s does not forbid storing the error (no-store)", clip(strings.Join(ex.header.Values("Cache-Control"), ", ")))
	}
	if ex.status == http.StatusMethodNotAllowed {
		allow := allowList(ex.header)
		switch {
		case len(allow) == 0:
			ex.fail(jAllow, "405 without an Allow header")
		case slices.Contains(allow, ex.req.method):
			// RFC 9110 §15.5.6: Allow lists what the resource supports, so
			// a client reading it would send the refused method again.
			ex.fail(jAllow, "Allow %s lists %s, the method refused", clip(strings.Join(allow, ", ")), ex.req.method)
		case slices.Contains(allow, http.MethodGet) && !slices.Contains(allow, http.MethodHead):
			ex.fail(jAllow, "Allow %s lists GET without HEAD", clip(strings.Join(allow, ", ")))
		}
	}
	// One answer names one correlation ID: a second, different value (a
	// proxy's, added beside the app's) leaves a client and an operator
	// with a different one each, whichever they read.
	name := j.cfg.idHeader
	if ids := slices.Compact(slices.Sorted(slices.Values(ex.header.Values(name)))); len(ids) > 1 {
		ex.fail(jCorrelation, "%s has %d different values: %s", name, len(ids), clip(strings.Join(ids, ", ")))
	}
	if !ex.req.noID && ex.req.hostile == "" {
		got := ex.header.Get(name)
		if j.cfg.contract == "faultline" && got != ex.id {
			ex.fail(jCorrelation, "%s %s, want the inbound %s echoed", name, clip(got), ex.id)
		}
	}
}

func hasDirective(values []string, directive string) bool {
	for _, v := range values {
		for d := range strings.SplitSeq(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(d), "=")
			if strings.EqualFold(name, directive) {
				return true
			}
		}
	}
	return false
}

// hostile judges an answer to an X-Request-Id that must never come back.
func (j *judge) hostile(ex *exchange) {
	if len(ex.header.Values(injectedHeader)) > 0 {
		ex.fail(jHostileID, "the CR LF in X-Request-Id became the answer's %s header", injectedHeader)
	}
	for name, values := range ex.header {
		for _, v := range values {
			if strings.Contains(v, ex.req.hostile) {
				ex.fail(jHostileID, "header %s echoes the hostile X-Request-Id", name)
			}
		}
	}
	if strings.Contains(string(ex.body), ex.req.hostile) {
		ex.fail(jHostileID, "the body echoes the hostile X-Request-Id")
	}
}

// hostileDecoded finds a hostile ID the body echoes in an escaped
// spelling (JSON's \u00f1, XML's &#241;), which the byte search in hostile
// misses: a client reads the member decoded.
func (j *judge) hostileDecoded(ex *exchange, d *problemDoc) {
	if strings.Contains(string(ex.body), ex.req.hostile) {
		return
	}
	for _, s := range d.strings {
		if strings.Contains(s[1], ex.req.hostile) {
			ex.fail(jHostileID, "the body echoes the hostile X-Request-Id, escaped, in %s", s[0])
			return
		}
	}
}

// head compares a HEAD answer with the GET beside it.
func (j *judge) head(ex *exchange) {
	get := ex.req.headOf
	if get.err != nil {
		return
	}
	if ex.status != get.status {
		ex.fail(jHead, "HEAD answered %d where GET answered %d", ex.status, get.status)
	}
	if g, h := mediaType(get.header), mediaType(ex.header); g != h {
		ex.fail(jHead, "HEAD's Content-Type %s differs from GET's %s", clip(h), clip(g))
	}
	if ex.headBody || len(ex.body) > 0 {
		ex.fail(jHead, "HEAD answered with a body")
	}
}

// problem judges a parsed problem's members.
func (j *judge) problem(ex *exchange, d *problemDoc) {
	if n, ok := d.status(); ok && n != ex.status {
		ex.fail(jStatusMember, "status member %d, HTTP status %d", n, ex.status)
	} else if !ok && j.cfg.contract == "faultline" {
		ex.fail(jStatusMember, "no status member")
	}
	j.retry(ex, d)
	j.correlation(ex, d)
	j.leak(ex, d.strings)
	if j.cfg.contract != "faultline" {
		return
	}
	code, _ := d.str("code")
	switch {
	case code == "":
		ex.fail(jContract, "no code member")
	case !snakeCase(code):
		ex.fail(jContract, "code %s is not snake_case", clip(code))
	}
	if h := ex.header.Get(problem.DefaultCodeHeader); h != "" && code != "" && h != code {
		ex.fail(jContract, "%s %s differs from code %s", problem.DefaultCodeHeader, clip(h), clip(code))
	}
	if a, _ := d.str("action"); !slices.Contains(closedActions, problem.Action(a)) {
		ex.fail(jContract, "action %s is not one of faultline's actions", clip(a))
	}
	if c, _ := d.str("cause"); !slices.Contains(closedCauses, problem.Cause(c)) {
		ex.fail(jContract, "cause %s is not one of faultline's causes", clip(c))
	}
	o, hasOutcome := d.str("outcome")
	if _, present := d.members["outcome"]; present && !slices.Contains(closedOutcomes, problem.Outcome(o)) {
		ex.fail(jOutcome, "outcome %s is not one of faultline's outcomes", clip(o))
	}
	// A refused request (cause request, auth, policy, config, a 4xx)
	// never started; a write that failed while it ran may have taken
	// effect, and only the server can say.
	c, _ := d.str("cause")
	ran := ex.status >= 500 || c == string(problem.CauseInternal) || c == string(problem.CauseUpstream) || c == string(problem.CauseEnvironment)
	if ex.req.write && ran && !hasOutcome {
		ex.fail(jOutcome, "a write failed with %d (cause %s) without saying its outcome", ex.status, clip(c))
	}
}

func snakeCase(s string) bool {
	if len(s) == 0 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// retry judges that the retry signals do not contradict each other.
func (j *judge) retry(ex *exchange, d *problemDoc) {
	// XML spells every member as text; JSON has types, and a client
	// branches on them ("false" is truthy in JavaScript and Python).
	v, present := d.members["retryable"]
	retryable, isBool := v.(bool)
	mistyped := present && !isBool && !d.xml
	switch {
	case !present:
		if j.cfg.contract == "faultline" {
			ex.fail(jRetry, "no retryable member")
		}
	case d.xml:
		retryable = strings.TrimSpace(v.(string)) == "true"
	case mistyped:
		ex.fail(jRetry, "retryable is a %s, not a boolean", jsonKind(v))
	}
	if a, _ := d.str("action"); a == string(problem.ActionRetry) && !retryable && !mistyped {
		ex.fail(jRetry, "action retry with retryable false")
	}
	header := ex.header.Get("Retry-After")
	ms, hasMS := d.members["retry_after_ms"]
	if !hasMS {
		return
	}
	if _, isNumber := ms.(json.Number); !d.xml && !isNumber {
		ex.fail(jRetry, "retry_after_ms is a %s, not a number", jsonKind(ms))
		return
	}
	n, err := strconv.ParseInt(strings.TrimSpace(fmt.Sprint(ms)), 10, 64)
	if err != nil || n < 0 {
		ex.fail(jRetry, "retry_after_ms %v is not a non-negative integer", ms)
		return
	}
	want := strconv.FormatInt((n+999)/1000, 10)
	switch {
	case header == "" && j.cfg.contract == "faultline":
		ex.fail(jRetry, "retry_after_ms %d without a Retry-After header", n)
	case header != "" && header != want:
		ex.fail(jRetry, "Retry-After %s, want %s (retry_after_ms %d rounded up to seconds)", clip(header), want, n)
	}
}

// correlation judges that the header and the body name one correlation ID.
func (j *judge) correlation(ex *exchange, d *problemDoc) {
	body, inBody := d.str("correlation_id")
	header := ex.header.Get(j.cfg.idHeader)
	switch {
	case inBody && header != "" && body != header:
		ex.fail(jCorrelation, "correlation_id %s differs from %s %s", clip(body), j.cfg.idHeader, clip(header))
	case !inBody && j.cfg.contract == "faultline":
		ex.fail(jCorrelation, "no correlation_id member")
	}
}

// leak runs the kit's public tier over the answer's text: what it would
// rewrite (a stack trace, SQL, a file path, a credential) should not have
// reached a client.
func (j *judge) leak(ex *exchange, texts [][2]string) {
	for _, t := range texts {
		if t[1] == "" {
			continue
		}
		text := t[1]
		if u, err := url.Parse(text); err == nil && isURIReference(text) && u.User == nil && (u.Scheme == "" && strings.HasPrefix(text, "/") || u.Scheme == "http" || u.Scheme == "https") {
			// A link: its path is read decoded, as the public tier reads
			// it, so an escaped "[redacted]" is already public. Its host
			// is no leak when it is the target's own (an instance, a
			// $schema) or type's, the documentation host the server
			// chose, private or not; any other is judged, as an internal
			// address in a member or a header would be.
			text = u.Path + "?" + u.RawQuery
			if dec, err := url.QueryUnescape(text); err == nil {
				text = dec
			}
			if t[0] != "/type" && !strings.EqualFold(u.Hostname(), j.cfg.base.Hostname()) {
				text = u.Host + text
			}
		}
		if pub := sanitize.Public(text); pub != text {
			ex.fail(jLeak, "%s %s holds what the public tier rewrites (to %s)", t[0], clip(t[1]), clip(pub))
		}
	}
}

// headerTexts are an answer's header values for the leak oracle, by name,
// in a stable order. Set-Cookie is the server's own state handed to this
// client, a secret by design, not one that escaped.
func headerTexts(h http.Header) [][2]string {
	var texts [][2]string
	for _, name := range slices.Sorted(maps.Keys(h)) {
		if name == "Set-Cookie" {
			continue
		}
		for _, v := range h[name] {
			texts = append(texts, [2]string{"header " + name, v})
		}
	}
	return texts
}

func identify(doc *problemDoc, httpStatus int) *problemID {
	typ, ok := doc.str("type")
	if !ok {
		typ = "about:blank"
	}
	title, _ := doc.str("title")
	status, ok := doc.status()
	if !ok {
		// RFC 9457 makes the member optional; the HTTP status is the one
		// it would carry.
		status = httpStatus
	}
	return &problemID{typ, title, status}
}

// run judges what spans the run: one type keeps one title and status, and
// a negotiated answer says Vary: Accept.
func (j *judge) run(exs []*exchange) {
	type first struct {
		title  string
		status int
		ex     *exchange
	}
	types := map[string]first{}
	for _, ex := range exs {
		if ex.problem == nil {
			continue
		}
		typ, title, status := ex.problem.typ, ex.problem.title, ex.problem.status
		if typ == "about:blank" {
			// RFC 9457 §4.2.1: about:blank's title is the status phrase, so
			// it varies with the status.
			if title != "" && title != http.StatusText(status) {
				ex.fail(jTypeStable, "about:blank with title %s, want the status phrase %q", clip(title), http.StatusText(status))
			}
			continue
		}
		f, seen := types[typ]
		if !seen {
			types[typ] = first{title, status, ex}
			continue
		}
		if f.title != title || f.status != status {
			ex.fail(jTypeStable, "type %s has title %s and status %d here, title %s and status %d in %s", clip(typ), clip(title), status, clip(f.title), f.status, f.ex.id)
		}
	}
	var negotiated []*exchange
	medias := map[string]bool{}
	for _, ex := range exs {
		if ex.check == "accept" && ex.err == nil {
			negotiated = append(negotiated, ex)
			medias[mediaType(ex.header)] = true
		}
	}
	if len(medias) < 2 {
		return
	}
	for _, ex := range negotiated {
		if !varies(ex.header.Values("Vary")) {
			ex.fail(jVary, "the representation depends on Accept, and Vary %s does not say so", clip(strings.Join(ex.header.Values("Vary"), ", ")))
		}
	}
}

func varies(values []string) bool {
	for _, v := range values {
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f == "*" || strings.EqualFold(f, "Accept") {
				return true
			}
		}
	}
	return false
}
