package problem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrNotProblem is wrapped by Parse's error when the body is not a problem
// document.
var ErrNotProblem = errors.New("problem: not a problem document")

// Parse reads a problem+json body back into a Problem, for clients and
// tests. Extension members keep their order; numbers in them are
// json.Number. The legacy members error and message are dropped: they only
// repeat code and detail.
func Parse(data []byte) (*Problem, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotProblem, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrNotProblem)
	}
	p := &Problem{showDetail: true}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotProblem, err)
		}
		name := tok.(string)
		if err := p.parseMember(dec, name); err != nil {
			return nil, fmt.Errorf("%w: member %q: %v", ErrNotProblem, name, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotProblem, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the object", ErrNotProblem)
	}
	if p.Status == 0 && p.Code == "" {
		return nil, fmt.Errorf("%w: neither status nor code", ErrNotProblem)
	}
	return p, nil
}

func (p *Problem) parseMember(dec *json.Decoder, name string) error {
	switch name {
	case "type":
		return dec.Decode(&p.Type)
	case "title":
		return dec.Decode(&p.Title)
	case "status":
		return dec.Decode(&p.Status)
	case "detail":
		return dec.Decode(&p.Detail)
	case "instance":
		return dec.Decode(&p.Instance)
	case "code":
		return dec.Decode(&p.Code)
	case "action":
		return dec.Decode(&p.Action)
	case "cause":
		return dec.Decode(&p.Cause)
	case "retryable":
		return dec.Decode(&p.Retryable)
	case "retry_after_ms":
		var ms int64
		if err := dec.Decode(&ms); err != nil {
			return err
		}
		if ms < 0 || ms > math.MaxInt64/int64(time.Millisecond) {
			return errors.New("out of range")
		}
		p.RetryAfter = time.Duration(ms) * time.Millisecond
		return nil
	case "outcome":
		return dec.Decode(&p.Outcome)
	case "correlation_id":
		return dec.Decode(&p.CorrelationID)
	case "errors":
		return dec.Decode(&p.Errors)
	case "error", "message":
		var skip json.RawMessage
		return dec.Decode(&skip)
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if reserved[name] || !validExtensionName(name) {
		// A peer may use names this side would refuse to set; keep them
		// readable rather than failing the whole document.
		p.ext = append(p.ext, Extension{Name: name, Value: v})
		return nil
	}
	return p.SetExtension(name, v)
}
