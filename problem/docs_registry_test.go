package problem

// The code table as Markdown and JSON, which README.md and the catalog tests
// compare against the registry.

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// markdown renders the registry as the documentation table. README.md's
// code table is this output for the default registry; a test keeps the two
// equal.
func (r *Registry) markdown() string {
	var b strings.Builder
	b.WriteString("| code | status | JSON-RPC | action | cause | retryable | title | meaning |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, k := range r.Definitions() {
		meaning := k.Meaning
		if k.Outcome != "" {
			meaning += " Outcome: `" + string(k.Outcome) + "`."
		}
		if !k.Deprecated.IsZero() {
			meaning += " **Deprecated** since " + k.Deprecated.Format(time.DateOnly)
			if k.Successor != "" {
				meaning += "; use `" + string(k.Successor) + "`"
			}
			meaning += "."
		}
		b.WriteString("| `" + string(k.Code) + "` | " + strconv.Itoa(k.Status) + " | " + strconv.Itoa(k.jsonRPCCode()) +
			" | `" + string(k.Action) + "` | `" + string(k.Cause) + "` | " + strconv.FormatBool(k.Retryable) + " | " +
			markdownCell(k.Title) + " | " + markdownCell(meaning) + " |\n")
	}
	if retired := r.retiredCodes(); len(retired) > 0 {
		b.WriteString("\nRetired, never to be reused: `" + strings.Join(retired, "`, `") + "`.\n")
	}
	return b.String()
}

func markdownCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

type codeDoc struct {
	Code       string         `json:"code"`
	Type       string         `json:"type"`
	Status     int            `json:"status"`
	RPCCode    int            `json:"jsonrpc_code"`
	Title      string         `json:"title"`
	Action     Action         `json:"action"`
	Cause      Cause          `json:"cause"`
	Retryable  bool           `json:"retryable"`
	Outcome    Outcome        `json:"outcome,omitempty"`
	Meaning    string         `json:"meaning,omitempty"`
	Deprecated *deprecatedDoc `json:"deprecated,omitempty"`
}

type deprecatedDoc struct {
	Since     string `json:"since"`
	Successor string `json:"successor,omitempty"`
}

// catalogJSON renders the registry as a JSON array, for tooling and agents that
// want the catalog ahead of time. Each entry carries its type URI, made
// from baseURI as the Writer makes it (pass the Writer's BaseURI).
func (r *Registry) catalogJSON(baseURI string) ([]byte, error) {
	kinds := r.Definitions()
	docs := make([]codeDoc, len(kinds))
	for i, k := range kinds {
		docs[i] = codeDoc{Code: string(k.Code), Type: typeFor(baseURI, string(k.Code)), Status: k.Status, RPCCode: k.jsonRPCCode(),
			Title: k.Title, Action: k.Action, Cause: k.Cause, Retryable: k.Retryable, Outcome: k.Outcome,
			Meaning: k.Meaning}
		if !k.Deprecated.IsZero() {
			docs[i].Deprecated = &deprecatedDoc{Since: k.Deprecated.Format(time.DateOnly), Successor: string(k.Successor)}
		}
	}
	return json.MarshalIndent(docs, "", "  ")
}
