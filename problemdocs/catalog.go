package problemdocs

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/faultline-go/faultline/problem"
)

// entry is one code as the docs show it, built from the registry on each
// request so codes registered after start-up appear too.
type entry struct {
	Code          string          `json:"code"`
	Type          string          `json:"type"`
	Status        int             `json:"status"`
	Title         string          `json:"title"`
	Action        problem.Action  `json:"action"`
	Cause         problem.Cause   `json:"cause"`
	Retryable     bool            `json:"retryable"`
	ShowsDetail   bool            `json:"shows_detail"`
	DefaultDetail string          `json:"default_detail,omitempty"`
	Meaning       string          `json:"meaning,omitempty"`
	Reaction      string          `json:"client_reaction"`
	Deprecated    *deprecation    `json:"deprecated,omitempty"`
	Example       json.RawMessage `json:"example"`
	// examplePage is Example indented for reading on the HTML page.
	examplePage string
	// exampleText is the same occurrence as text/plain.
	exampleText string
}

// ExamplePage is for the page template, which cannot read unexported
// fields.
func (e entry) ExamplePage() string { return e.examplePage }

// deprecation announces that a code is on its way out.
type deprecation struct {
	Since     string `json:"since"`
	Successor string `json:"successor,omitempty"`
}

// exampleCorrelationID is a UUIDv7 like those the kit generates.
const exampleCorrelationID = "0193b1c2-7d4e-7a51-9c3f-2b8e4f6a1d90"

func newEntry(wr *problem.Writer, c problem.Kind) entry {
	p := exampleOf(c)
	res := wr.Resolve(nil, p)
	res.CorrelationID = exampleCorrelationID
	example := res.AppendJSON(nil)
	var pretty bytes.Buffer
	if json.Indent(&pretty, example, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(example)
	}
	var dep *deprecation
	if !c.Deprecated.Since.IsZero() {
		dep = &deprecation{Since: c.Deprecated.Since.UTC().Format(time.DateOnly), Successor: c.Deprecated.Successor}
	}
	return entry{
		Deprecated:    dep,
		Code:          c.Name,
		Type:          res.Type,
		Status:        c.Status,
		Title:         c.Title,
		Action:        c.Action,
		Cause:         c.Cause,
		Retryable:     c.Retryable,
		ShowsDetail:   c.ShowDetail,
		DefaultDetail: c.DefaultDetail,
		Meaning:       c.Meaning,
		Reaction:      reaction(c.Action),
		Example:       json.RawMessage(example),
		examplePage:   pretty.String(),
		exampleText:   string(res.AppendText(nil, wr.Brand())),
	}
}

// exampleOf is a typical occurrence of c: the retry hint a retryable code
// carries, and field errors for validation_failed.
func exampleOf(c problem.Kind) *problem.Problem {
	p := problem.New(c)
	p.Instance = "/v1/orders"
	if c.Retryable {
		p = p.WithRetryAfter(2400 * time.Millisecond)
	}
	if c.Name == problem.ValidationFailed.Name {
		p = p.WithErrors(
			problem.FieldError{Pointer: "/quantity", Detail: "quantity must be at least 1", Code: "min"},
			problem.FieldError{Pointer: "/sku", Detail: "sku is required", Code: "required"},
		)
	}
	return p
}

func entries(wr *problem.Writer) []entry {
	codes := wr.Registry().Kinds()
	out := make([]entry, len(codes))
	for i, c := range codes {
		out[i] = newEntry(wr, c)
	}
	return out
}
