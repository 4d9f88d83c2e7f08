package problemdocs

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// entry is one code as the docs show it, built from the registry on each
// request so codes registered after start-up appear too.
type entry struct {
	Code      string         `json:"code"`
	Type      string         `json:"type"`
	Status    int            `json:"status"`
	Title     string         `json:"title"`
	Action    problem.Action `json:"action"`
	Cause     problem.Cause  `json:"cause"`
	Retryable bool           `json:"retryable"`
	// Outcome is the outcome every occurrence starts with, when the code
	// guarantees one.
	Outcome       problem.Outcome `json:"outcome,omitempty"`
	ShowsDetail   bool            `json:"shows_detail"`
	DefaultDetail string          `json:"default_detail,omitempty"`
	Meaning       string          `json:"meaning,omitempty"`
	Reaction      string          `json:"client_reaction"`
	Deprecated    *deprecation    `json:"deprecated,omitempty"`
	Legacy        *legacyNotice   `json:"legacy,omitempty"`
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
	// SuccessorPage: the registry documents the successor, so the page
	// links it. Register accepts a successor not registered (yet, or a
	// typo) and Retire may retire one later; a link would answer 404 or
	// 410.
	SuccessorPage bool `json:"-"`
}

// legacyNotice announces the Writer's legacy window, as DESIGN.md has the
// type-URI pages do: which members are sent besides the contract's, until
// when, and whether they still are.
type legacyNotice struct {
	Members []string `json:"members"`
	// Until is the last moment the members are sent (RFC 3339, UTC);
	// empty when the window has no announced end.
	Until string `json:"until,omitempty"`
	// UntilDate is Until's day, for the page.
	UntilDate string `json:"-"`
	// Active: the members are sent now; after Until they are gone.
	Active bool `json:"active"`
}

func legacyOf(wr *problem.Writer) *legacyNotice {
	facts := problemhook.FactsOf(wr)
	l, ok := facts.Legacy.(problem.Legacy)
	if !ok {
		return nil
	}
	n := &legacyNotice{Members: []string{"error", "message"}, Active: facts.LegacyActive}
	if !l.Until.IsZero() {
		n.Until = l.Until.UTC().Format(time.RFC3339)
		n.UntilDate = l.Until.UTC().Format(time.DateOnly)
	}
	return n
}

// withLegacyMembers adds to a problem+json document the members the
// Writer sends during its legacy window, as it sends them: error, the code;
// message, the detail, or the title when there is none.
func withLegacyMembers(doc []byte) []byte {
	var m struct {
		Code   string `json:"code"`
		Title  string `json:"title"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(doc, &m) != nil || len(doc) < 2 {
		return doc
	}
	msg := m.Detail
	if msg == "" {
		msg = m.Title
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.Write(doc[:len(doc)-1])
	b.WriteString(`,"error":`)
	_ = enc.Encode(m.Code) // a string always encodes
	b.Truncate(b.Len() - 1)
	b.WriteString(`,"message":`)
	_ = enc.Encode(msg)
	b.Truncate(b.Len() - 1)
	b.WriteByte('}')
	return b.Bytes()
}

// exampleCorrelationID is a UUIDv7 like those the kit generates.
const exampleCorrelationID = "0193b1c2-7d4e-7a51-9c3f-2b8e4f6a1d90"

func newEntry(wr *problem.Writer, c problem.Definition) entry {
	res := wr.Resolve(exampleRequest(), exampleOf(c))
	example := res.AppendJSON(nil)
	legacy := legacyOf(wr)
	if legacy != nil && legacy.Active {
		example = withLegacyMembers(example)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, example, "", "  ") != nil {
		pretty.Reset()
		pretty.Write(example)
	}
	var dep *deprecation
	if !c.Deprecated.IsZero() {
		// A date, not an instant: the day the Definition names, in its own
		// zone, as the registry's code table shows it.
		_, documented := wr.Registry().Lookup(c.Successor)
		dep = &deprecation{Since: c.Deprecated.Format(time.DateOnly), Successor: string(c.Successor), SuccessorPage: documented}
	}
	return entry{
		Deprecated:    dep,
		Legacy:        legacy,
		Code:          string(c.Code),
		Type:          res.Type(),
		Status:        c.Status,
		Title:         c.Title,
		Action:        c.Action,
		Cause:         c.Cause,
		Retryable:     c.Retryable,
		Outcome:       c.Outcome,
		ShowsDetail:   c.ShowDetail,
		DefaultDetail: c.DefaultDetail,
		Meaning:       c.Meaning,
		Reaction:      reaction(c.Action),
		Example:       json.RawMessage(example),
		examplePage:   pretty.String(),
		exampleText:   string(problemhook.AppendText(res, nil, problemhook.FactsOf(wr).Brand)),
	}
}

// exampleOf is a typical occurrence of c: the retry hint a retryable code
// carries, and field errors for validation_failed.
func exampleOf(c problem.Definition) *problem.Problem {
	p := problem.New(c.Code)
	if c.Retryable {
		p = p.WithRetryAfter(2400 * time.Millisecond)
	}
	if c.Code == problem.ValidationFailed {
		p = p.WithErrors(
			problem.FieldError{Pointer: "/quantity", Detail: "quantity must be at least 1", Code: "min"},
			problem.FieldError{Pointer: "/sku", Detail: "sku is required", Code: "required"},
		)
	}
	return p
}

// exampleRequest is the request every example answers: its path is the
// example's instance and its correlation ID one like the kit generates.
func exampleRequest() *http.Request {
	r, _ := http.NewRequest(http.MethodGet, "/v1/orders", nil)
	return r.WithContext(correlation.WithID(r.Context(), exampleCorrelationID))
}

func entries(wr *problem.Writer) []entry {
	codes := wr.Registry().Definitions()
	out := make([]entry, len(codes))
	for i, c := range codes {
		out[i] = newEntry(wr, c)
	}
	return out
}
