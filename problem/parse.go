package problem

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// errNotProblem is wrapped by Parse's error when the body is not a problem
// document.
var errNotProblem = errors.New("problem: not a problem document")

// Parse reads a problem+json body back into a Problem, for clients,
// gateways and tests. It reads what any server sends, not only faultline:
// as RFC 9457 §3.1 requires, a member whose value has the wrong type
// ("status":"404", a numeric title, "errors":["x"]) is ignored and the
// rest of the document is kept, and no member is mandatory. A body is
// refused only when it is not one JSON object or nothing in it can be
// read: none of type, title, status, detail, instance or code has a value
// of its type, and there is no message to stand in for the detail.
//
// Numbers are read in every spelling JSON allows (1000, 1000.0, 1e3,
// 1E+3). A retry_after_ms too large for a time.Duration (9.3e12, 1e309)
// saturates at the largest one: a wait longer than any client's budget
// still says "not before then", which is not the same as saying nothing.
// A negative or zero retry_after_ms is no wait.
//
// The guidance members that steer a client's next step, action and
// outcome, keep a value outside their closed sets as it was sent, so that
// a client can tell "an action I do not know" (which it must not guess
// at) from "no action" (which it judges by the status). Renderings leave
// such values out, as they do for any Problem. A cause outside its set is
// dropped.
//
// Extension members keep their order; numbers in them are json.Number; a
// name given twice keeps its last value, as encoding/json does. The
// legacy members error and message are dropped, except that a message
// becomes the detail of a document without one, unless it only repeats
// the title (RFC 9457's detail is what other servers call message;
// faultline's own legacy message is the detail, or else the title). Entries of errors keep detail (or a peer's
// message), pointer and code. Details of a parsed problem are shown when
// it is rendered again, through the public tier like every rendering. A
// leading byte order mark is skipped, as RFC 8259 §8.1 lets a reader do.
func Parse(data []byte) (*Problem, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotProblem, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", errNotProblem)
	}
	p := &Problem{}
	known := false
	var message string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errNotProblem, err)
		}
		name := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: member %q: %v", errNotProblem, name, err)
		}
		if m, ok := v.(string); ok && name == "message" {
			message = m
		}
		known = p.parseMember(name, v) || known
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %v", errNotProblem, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the object", errNotProblem)
	}
	if p.detail == "" && message != "" && message != p.title {
		p.detail = message
		known = true
	}
	if !known {
		return nil, fmt.Errorf("%w: none of type, title, status, detail, instance, code or message", errNotProblem)
	}
	return p, nil
}

// parseMember sets one member from its decoded value, ignoring a value of
// the wrong type, and reports whether the name is one of the members that
// make a document a problem (type, title, status, detail, instance, code).
func (p *Problem) parseMember(name string, v any) bool {
	if dst := p.identifyingString(name); dst != nil {
		s, isString := v.(string)
		if isString {
			*dst = s
		}
		return isString
	}
	if name == "status" {
		// 404.0 and 4.04e2 are the same JSON number as 404.
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil && f >= 100 && f <= 999 && f == math.Trunc(f) {
				p.status = int(f)
				return true
			}
		}
		return false
	}
	if !p.parseGuidance(name, v) {
		p.setParsedExtension(name, v)
	}
	return false
}

// identifyingString is where a string member that identifies a problem
// document goes; nil for any other name.
func (p *Problem) identifyingString(name string) *string {
	switch name {
	case "type":
		return &p.typ
	case "title":
		return &p.title
	case "detail":
		return &p.detail
	case "instance":
		return &p.instance
	case "code":
		return &p.code
	}
	return nil
}

// parseGuidance sets one of faultline's members (or skips a legacy one)
// and reports whether name was one; a value of the wrong type, or a cause
// outside the closed set, is ignored.
func (p *Problem) parseGuidance(name string, v any) bool {
	s, isString := v.(string)
	switch name {
	case "action":
		if isString && s != "" {
			p.action = Action(s)
		}
	case "cause":
		if c := Cause(s); isString && c.valid() {
			p.cause = c
		}
	case "outcome":
		if isString && s != "" {
			p.outcome = Outcome(s)
		}
	case "retryable":
		if b, ok := v.(bool); ok {
			p.retryable = b
		}
	case "retry_after_ms":
		if n, ok := v.(json.Number); ok {
			p.retryAfter = parseMillis(n)
		}
	case "correlation_id":
		if isString {
			p.correlationID = s
		}
	case "errors":
		p.fieldErrors = parseFieldErrors(v)
	case "error", "message":
	default:
		return false
	}
	return true
}

// parseMillis reads a JSON number of milliseconds, whatever its spelling,
// as a Duration: zero for a value that is not positive, the largest
// Duration for one beyond it (ParseFloat's range error comes with ±Inf or
// ±0, which the comparisons below sort the same way).
func parseMillis(n json.Number) time.Duration {
	const most = math.MaxInt64 / int64(time.Millisecond)
	if ms, err := n.Int64(); err == nil {
		// The common spelling, exactly.
		switch {
		case ms <= 0:
			return 0
		case ms > most:
			return math.MaxInt64
		}
		return time.Duration(ms) * time.Millisecond
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0
	}
	switch ns := f * float64(time.Millisecond); {
	case !(ns > 0):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	default:
		return time.Duration(ns)
	}
}

// setParsedExtension keeps a peer's member whatever its name (renderers
// make any name safe); a repeated name keeps its last value.
func (p *Problem) setParsedExtension(name string, v any) {
	for i := range p.ext {
		if p.ext[i].Name == name {
			p.ext[i].Value = v
			return
		}
	}
	p.ext = append(p.ext, extension{Name: name, Value: v})
}

func parseFieldErrors(v any) []FieldError {
	entries, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []FieldError
	for _, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		var fe FieldError
		fe.Detail, _ = m["detail"].(string)
		if fe.Detail == "" {
			// huma and others call it message.
			fe.Detail, _ = m["message"].(string)
		}
		fe.Pointer, _ = m["pointer"].(string)
		fe.Code, _ = m["code"].(string)
		out = append(out, fe)
	}
	return out
}

func init() {
	problemhook.CompletePeer = func(v any, m problemhook.PeerMembers) {
		p := v.(*Problem)
		if m.Status != 0 {
			p.status = m.Status
		}
		p.code = cmp.Or(m.Code, p.code)
		p.title = cmp.Or(m.Title, p.title)
		p.detail = cmp.Or(m.Detail, p.detail)
		p.correlationID = cmp.Or(m.CorrelationID, p.correlationID)
		if m.RetryAfter != 0 {
			p.retryAfter = m.RetryAfter
		}
	}
}
