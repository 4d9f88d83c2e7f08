package problem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// ErrNotProblem is wrapped by Parse's error when the body is not a problem
// document.
var ErrNotProblem = errors.New("problem: not a problem document")

// Parse reads a problem+json body back into a Problem, for clients,
// gateways and tests. It reads what any server sends, not only faultline:
// as RFC 9457 §3.1 requires, a member whose value has the wrong type
// ("status":"404", a numeric title, "errors":["x"]) is ignored and the
// rest of the document is kept, and no member is mandatory. A body is
// refused only when it is not one JSON object or has none of the members
// of a problem (type, title, status, detail, instance, code).
//
// Extension members keep their order; numbers in them are json.Number; a
// name given twice keeps its last value, as encoding/json does. The
// legacy members error and message are dropped: they only repeat code and
// detail. Entries of errors keep detail (or a peer's message), pointer and
// code. Details of a parsed problem are shown when it is rendered again,
// through the public tier like every rendering. A leading byte order mark
// is skipped, as RFC 8259 §8.1 lets a reader do.
func Parse(data []byte) (*Problem, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotProblem, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrNotProblem)
	}
	p := &Problem{}
	known := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotProblem, err)
		}
		name := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: member %q: %v", ErrNotProblem, name, err)
		}
		known = p.parseMember(name, v) || known
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotProblem, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the object", ErrNotProblem)
	}
	if !known {
		return nil, fmt.Errorf("%w: none of type, title, status, detail, instance or code", ErrNotProblem)
	}
	return p, nil
}

// parseMember sets one member from its decoded value, ignoring a value of
// the wrong type, and reports whether the name is a problem member.
func (p *Problem) parseMember(name string, v any) bool {
	s, isString := v.(string)
	switch name {
	case "type":
		if isString {
			p.Type = s
		}
		return isString
	case "title":
		if isString {
			p.Title = s
		}
		return isString
	case "status":
		// 404.0 and 4.04e2 are the same JSON number as 404.
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil && f >= 100 && f <= 999 && f == math.Trunc(f) {
				p.Status = int(f)
				return true
			}
		}
		return false
	case "detail":
		if isString {
			p.Detail = s
		}
		return isString
	case "instance":
		if isString {
			p.Instance = s
		}
		return isString
	case "code":
		if isString {
			p.Code = s
		}
		return isString
	case "action":
		if a := Action(s); isString && a.valid() {
			p.Action = a
		}
		return false
	case "cause":
		if c := Cause(s); isString && c.valid() {
			p.Cause = c
		}
		return false
	case "outcome":
		if o := Outcome(s); isString && o != "" && o.valid() {
			p.Outcome = o
		}
		return false
	case "retryable":
		if b, ok := v.(bool); ok {
			p.Retryable = b
		}
		return false
	case "retry_after_ms":
		if n, ok := v.(json.Number); ok {
			if ms, err := n.Int64(); err == nil && ms > 0 && ms <= math.MaxInt64/int64(time.Millisecond) {
				p.RetryAfter = time.Duration(ms) * time.Millisecond
			}
		}
		return false
	case "correlation_id":
		if isString {
			p.CorrelationID = s
		}
		return false
	case "errors":
		p.Errors = parseFieldErrors(v)
		return false
	case "error", "message":
		return false
	}
	p.setParsedExtension(name, v)
	return false
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
	p.ext = append(p.ext, Extension{Name: name, Value: v})
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
