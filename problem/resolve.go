package problem

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/sanitize"
)

// Resolve returns the problem as Write would render it for r: type,
// instance and correlation_id filled in and the contract's rules applied.
// It is for surfaces other than an HTTP response (JSON-RPC, CLI) that still
// want the request's context; r may be nil.
func (wr *Writer) Resolve(r *http.Request, p *Problem) *Problem {
	if p == nil {
		p = New(Internal)
	}
	res, _ := wr.usable().resolve(r, p, nil)
	return &res
}

// resolve returns the occurrence as it goes out, and the registry entry of
// its code when the lookup it made found one. retryAfter is the values of
// the response's Retry-After header, which may lend the problem its retry
// time.
func (wr *Writer) resolve(r *http.Request, p *Problem, retryAfter []string) (Problem, *codeEntry) {
	res := *p
	if res.code == "" {
		wr.standForStatus(&res)
	}
	reblameCancel(&res, r)
	entry := wr.applyCode(&res, p)
	settle(&res, r)
	fillFromRequest(&res, r)
	wr.applyRetryRules(&res, r, retryAfter)
	closeSets(&res)
	if err := misuse(p, &res); err != nil {
		// Loud for the developer, in the problem's own record; the client
		// gets the repaired problem.
		res.buildErr = errors.Join(p.buildErr, err)
	}
	if wr.dev {
		res.ext = append(slices.Clip(res.ext), developmentMembers(p)...)
	}
	return res, entry
}

// reblameCancel makes internal a client_closed_request that rests on a
// context.Canceled (the built-in mapping's, a mapper's such as pgfault's)
// answering a request whose context is alive: its client still waits for
// the answer, so it closed nothing, and whatever cancelled the work (a
// context the handler derived, a call shared with another request) is the
// server's. Blaming the caller would also tell it to replay a write that
// may have run, where internal's rules ask it to verify. The code's own
// members are cleared for applyCode to fill from internal's definition.
func reblameCancel(res *Problem, r *http.Request) {
	if res.code != string(ClientClosedRequest) || r == nil || r.Context().Err() != nil ||
		!errors.Is(res.err, context.Canceled) {
		return
	}
	k := builtinDefinition(Internal)
	res.code, res.typ, res.title, res.status = string(k.Code), "", "", k.Status
	res.action, res.cause, res.retryable, res.rpcCode = "", "", k.Retryable, k.jsonRPCCode()
}

// standForStatus gives a problem built by hand without a code the code of
// its status.
func (wr *Writer) standForStatus(res *Problem) {
	fs := wr.registry.ForStatus(res.status)
	res.code, res.action, res.cause, res.unclaimed = fs.code, fs.action, fs.cause, fs.unclaimed
	if res.status < 400 || res.status > 599 {
		res.status = fs.status
	}
	if fs.unclaimed && res.typ == "" {
		res.typ = fs.typ
	}
	if res.title == "" {
		res.title = fs.title
	}
}

// applyCode applies what res's code decides and returns the code's
// registry entry, nil for a family code or one the registry does not know
// (which turns res into internal).
func (wr *Writer) applyCode(res, p *Problem) *codeEntry {
	if res.unclaimed {
		// Family codes keep their family's rules whatever the registry.
		k := builtinDefinition(Internal)
		if res.status < 500 {
			k = builtinDefinition(BadRequest)
		}
		res.action, res.cause, res.hideDetail = k.Action, k.Cause, !k.ShowDetail
		return nil
	}
	e := wr.cached(res.code)
	if e == nil {
		*res = wr.unregistered(p)
		return nil
	}
	k := &e.def
	if res.pending {
		res.fillFrom(k)
	}
	res.seg = e.jsonSegments()
	if res.typ == "" || res.typ == e.typ {
		// A type documents one title and one status.
		res.typ, res.title, res.status, res.fromKind = e.typ, k.Title, k.Status, true
		res.kindType, res.kindTitle = e.typ, k.Title
	}
	if !res.action.valid() {
		res.action = k.Action
	}
	if !res.cause.valid() {
		res.cause = k.Cause
	}
	if !k.ShowDetail && !res.hideDetail {
		res.hideDetail, res.defaultDetail = true, k.DefaultDetail
	}
	return e
}

// settle makes status, outcome and title members a client can read: an
// error status, an outcome of the closed set, a title.
func settle(res *Problem, r *http.Request) {
	if res.status < 400 || res.status > 599 {
		res.status = http.StatusInternalServerError
	}
	if !res.outcome.valid() {
		res.outcome = OutcomeUnknown
	}
	if res.outcome == "" && res.retryable && r != nil && (res.cause == CauseInternal || res.cause == CauseUpstream) {
		// The server or a dependency failed while the request ran: what
		// became of a write nobody knows, so it says so, as a panic or a
		// timeout of the same request would.
		res.forRequest(r)
	}
	if res.title == "" {
		res.title = http.StatusText(res.status)
	}
}

// fillFromRequest sets instance and correlation_id from the request.
func fillFromRequest(res *Problem, r *http.Request) {
	if r != nil && res.instance == "" && r.URL != nil {
		res.instance = r.URL.EscapedPath()
		if strings.HasPrefix(res.instance, "//") {
			// "//host/x" would read as a network-path reference to
			// another host; a leading dot segment keeps it the path it
			// is (RFC 3986 §3.3), and resolving removes the dot again.
			res.instance = "/." + res.instance
		}
	}
	res.correlationID, res.correlationPublic, res.correlationPlain, res.correlationFresh = correlationOf(r, res)
}

// applyRetryRules holds the retry rules, in one place for every problem.
// retryAfter is the response's Retry-After header, which may lend a
// retryable problem its retry time.
func (wr *Writer) applyRetryRules(res *Problem, r *http.Request, retryAfter []string) {
	// The key is canonical already: Header.Get would canonicalize it again
	// on every problem, which costs more than the rest of these rules.
	keyed := r != nil && firstValue(r.Header, "Idempotency-Key") != ""
	// A write whose outcome is unknown may be replayed only under an
	// Idempotency-Key; without one the client must find out what happened
	// first.
	if res.outcome == OutcomeUnknown && !keyed {
		res.retryable = false
		res.action = ActionVerify
	}
	// A write that took effect is not repeated: without an Idempotency-Key
	// the server could not tell the replay from a second write. Outside
	// HTTP (Report) only the caller knows whether the operation may be
	// repeated (mcpfault reads a tool's idempotent annotation), so it
	// decides.
	if res.outcome == OutcomeCommitted && r != nil && !safeMethod(r.Method) && !keyed {
		res.retryable = false
	}
	if res.action == ActionRetry && !res.retryable {
		// Telling a client to retry what it may not retry is the one
		// contradiction a client cannot resolve; refusing is the safe side.
		res.action = ActionNone
	}
	if !res.retryable {
		res.retryAfter = 0
	} else if res.retryAfter <= 0 && len(retryAfter) > 0 {
		res.retryAfter = retryAfterFromHeader(retryAfter[0], wr.now())
	}
}

// closeSets replaces what is still outside the closed sets.
func closeSets(res *Problem) {
	if !res.action.valid() {
		res.action = ActionNone
	}
	if !res.cause.valid() {
		res.cause = CauseInternal
	}
}

// correlationOf returns the correlation ID res goes out with and whether it
// is public as it is: the request's own ID when res names none or the
// same, otherwise res's own through the public tier, since a literal
// (`Problem{CorrelationID: ...}`) is text like any other. plain reports
// the ID the correlation layer accepted for r (corrstate.Request.Accepted):
// an inbound ID that passed correlation.Valid or one it generated, whose
// bytes JSON never escapes; fresh, one it generated. r may be nil.
func correlationOf(r *http.Request, res *Problem) (id string, public, plain, fresh bool) {
	id = res.correlationID
	if res.correlationPublic {
		return id, true, res.correlationPlain, res.correlationFresh
	}
	var own *corrstate.Request
	if r != nil {
		own = corrstate.From(r.Context())
	}
	if own == nil {
		if id == "" {
			return "", true, false, false
		}
		return sanitize.Public(id), true, false, false
	}
	if id == "" || id == own.ID {
		accepted := own.Accepted && own.ID != ""
		return own.ID, true, accepted, accepted && own.Generated
	}
	return sanitize.Public(id), true, false, false
}

// unregistered turns a problem whose code the registry does not know into
// internal: its action and cause would be guesses. The original code and
// error go to the log, and the problem's record names the misuse (see
// misuse).
func (wr *Writer) unregistered(p *Problem) Problem {
	res := *New(Internal)
	if e := wr.cached(string(Internal)); e != nil {
		res.typ = e.typ
	}
	res.err, res.logAttrs, res.buildErr = p.err, p.logAttrs, p.buildErr
	res.logAttrs = append(slices.Clip(res.logAttrs), logString("unregistered_code", p.code))
	if p.detail != "" {
		res.detail = p.detail
	}
	res.instance, res.correlationID = p.instance, p.correlationID
	return res
}

// developmentMembers are the members WithInsecureDevelopmentMode adds.
func developmentMembers(p *Problem) []extension {
	var out []extension
	if d := p.hiddenDetail(); d != "" {
		out = append(out, extension{"debug_detail", logText(sanitize.Log(d))})
	}
	var chain []any
	for err := p.err; err != nil; err = errors.Unwrap(err) {
		chain = append(chain, logText(sanitize.Log(errorText(err))))
	}
	if chain != nil {
		out = append(out, extension{"debug_errors", chain})
	}
	return out
}

// retryAfterFromHeader reads a Retry-After in delta-seconds or as an HTTP
// date (RFC 9110 §10.2.3) seen from now; a past date or anything malformed
// counts as absent.
func retryAfterFromHeader(v string, now time.Time) time.Duration {
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	if v == "" || len(v) > 9 {
		return 0
	}
	var s int64
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
		s = s*10 + int64(v[i]-'0')
	}
	return time.Duration(s) * time.Second
}
