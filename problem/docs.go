package problem

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Markdown renders the registry as the documentation table. README.md's
// code table is this output for the default registry; a test keeps the two
// equal.
func (r *Registry) Markdown() string {
	var b strings.Builder
	b.WriteString("| code | status | action | cause | retryable | title | meaning |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, c := range r.Codes() {
		b.WriteString("| `" + c.Name + "` | " + strconv.Itoa(c.Status) + " | `" + string(c.Action) +
			"` | `" + string(c.Cause) + "` | " + strconv.FormatBool(c.Retryable) + " | " +
			markdownCell(c.Title) + " | " + markdownCell(c.Meaning) + " |\n")
	}
	return b.String()
}

func markdownCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

type codeDoc struct {
	Code      string `json:"code"`
	Status    int    `json:"status"`
	Title     string `json:"title"`
	Action    Action `json:"action"`
	Cause     Cause  `json:"cause"`
	Retryable bool   `json:"retryable"`
	Meaning   string `json:"meaning,omitempty"`
}

// JSON renders the registry as a JSON array, for tooling and agents that
// want the catalog ahead of time.
func (r *Registry) JSON() ([]byte, error) {
	codes := r.Codes()
	docs := make([]codeDoc, len(codes))
	for i, c := range codes {
		docs[i] = codeDoc{c.Name, c.Status, c.Title, c.Action, c.Cause, c.Retryable, c.Meaning}
	}
	return json.MarshalIndent(docs, "", "  ")
}
