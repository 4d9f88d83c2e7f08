package problem_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// wellFormedXML reports the first syntax error of an XML document.
func wellFormedXML(doc []byte) error {
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// A self-referencing extension value used to recurse until the runtime
// killed the process with a stack overflow, which no recover catches.
func TestRenderCyclicExtensionValue(t *testing.T) {
	selfMap := map[string]any{"id": "a1"}
	selfMap["self"] = selfMap
	selfSlice := make([]any, 2)
	selfSlice[0] = "x"
	selfSlice[1] = selfSlice
	wide := map[string]any{}
	for _, k := range []string{"aaa", "bbb", "ccc", "ddd", "eee", "fff", "ggg", "hhh"} {
		wide[k] = wide
	}
	mutualA := map[string]any{}
	mutualB := []any{mutualA}
	mutualA["b"] = mutualB
	for name, v := range map[string]any{"map": selfMap, "slice": selfSlice, "wide": wide, "mutual": mutualA} {
		p := problem.New(problem.BadRequest).WithExtension("payload", v)
		doc := p.AppendJSON(nil)
		if !json.Valid(doc) {
			t.Errorf("%s: invalid JSON %s", name, doc)
		}
		if err := wellFormedXML(problem.AppendXML(p, nil)); err != nil {
			t.Errorf("%s: XML: %v", name, err)
		}
	}
	doc := problem.New(problem.BadRequest).WithExtension("payload", selfMap).AppendJSON(nil)
	if !bytes.Contains(doc, []byte(`"payload":{"id":"a1","self":null}`)) {
		t.Errorf("cycle not cut where it recurs: %s", doc)
	}
}

// The same map twice side by side is not a cycle and renders in full.
func TestRenderSharedNonCyclicValue(t *testing.T) {
	leaf := map[string]any{"id": "a1"}
	doc := problem.New(problem.BadRequest).WithExtension("pair", []any{leaf, leaf}).AppendJSON(nil)
	if !bytes.Contains(doc, []byte(`"pair":[{"id":"a1"},{"id":"a1"}]`)) {
		t.Errorf("shared value lost: %s", doc)
	}
}

// A peer document nested as deep as encoding/json reads renders whole and
// valid, without quadratic cycle checks.
func TestParseDeepNestingRenders(t *testing.T) {
	const depth = 9990
	body := `{"status":400,"deep":` + strings.Repeat(`[{"k":`, depth/2) + `1` + strings.Repeat(`}]`, depth/2) + `}`
	p, err := problem.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	doc := p.AppendJSON(nil)
	if !json.Valid(doc) || bytes.Count(doc, []byte(`[{"k":`)) != depth/2 {
		t.Fatalf("deep document not rendered whole (%d bytes)", len(doc))
	}
	if err := wellFormedXML(problem.AppendXML(p, nil)); err != nil {
		t.Fatal(err)
	}
}

// FromError hands back an occurrence its caller may change: a field set on
// it never reaches the sentinel a handler returned, wrapped or not.
func TestFromErrorNeverReturnsTheSentinel(t *testing.T) {
	sentinel := problem.New(problem.NotFound).WithDetail("No such book.")
	for _, err := range []error{sentinel, fmt.Errorf("load: %w", sentinel)} {
		p := problem.From(nil, err)
		p = p.WithDetail("Book 7 (owned by alice@example.com) is gone.").WithRetryable(true)
		if sentinel.Detail() != "No such book." || sentinel.Retryable() {
			t.Fatalf("sentinel changed through FromError(%v): %+v", err, sentinel)
		}
		if !errors.Is(p, problem.NotFound) {
			t.Fatal("occurrence lost its kind")
		}
	}
}

// A copy of a copy still matches the sentinel it came from, and the log
// keeps the evidence the sentinel wraps.
func TestFromErrorCopyKeepsIdentityAndEvidence(t *testing.T) {
	evidence := errors.New("ldap: user alice not in group admins")
	sentinel := problem.New(problem.Forbidden).Wrap(evidence)
	first := problem.From(nil, sentinel)
	second := problem.From(nil, first)
	for _, p := range []*problem.Problem{first, second} {
		if !errors.Is(p, sentinel) || !errors.Is(p, evidence) || !errors.Is(p, problem.Forbidden) {
			t.Errorf("copy lost its identity: Is(sentinel)=%v Is(evidence)=%v", errors.Is(p, sentinel), errors.Is(p, evidence))
		}
	}
	if errors.Is(first, problem.New(problem.Forbidden)) {
		t.Error("a copy matches an unrelated problem of the same kind by identity")
	}
}

// A map encoding/json refuses (interface keys, as YAML decoders return) is
// kept as a member with its keys formatted, its secrets redacted in every
// rendering, and a cycle through it cut.
func TestRenderMapWithInterfaceKeys(t *testing.T) {
	cyclic := map[any]any{"id": "a1"}
	cyclic["self"] = cyclic
	v := map[any]any{
		"db":   map[any]any{"host": "db1", "password": "S3cretValue9", 5432: "port"},
		"list": []map[any]any{{"api_key": "S3cretValue9"}},
		"cyc":  cyclic,
	}
	p := problem.New(problem.BadRequest).WithExtension("config", v)
	doc := p.AppendJSON(nil)
	if !json.Valid(doc) || bytes.Contains(doc, []byte("S3cretValue9")) {
		t.Fatalf("invalid or leaking: %s", doc)
	}
	for _, want := range []string{`"host":"db1"`, `"5432":"port"`, `"password":"[redacted]"`, `"api_key":"[redacted]"`, `"self":null`} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("missing %s in %s", want, doc)
		}
	}
	x := problem.AppendXML(p, nil)
	if err := wellFormedXML(x); err != nil || bytes.Contains(x, []byte("S3cretValue9")) || !bytes.Contains(x, []byte("db1")) {
		t.Errorf("XML: %v %s", err, x)
	}
}
