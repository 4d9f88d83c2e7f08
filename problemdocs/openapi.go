package problemdocs

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// The closed sets of the contract, in the order DESIGN.md gives them.
var (
	actions = []string{"retry", "verify", "fix_request", "reauthenticate", "configure", "approve", "unlock", "none"}
	causes  = []string{"request", "auth", "policy", "config", "internal", "upstream", "environment"}
	outcome = []string{"not_started", "not_committed", "committed", "unknown"}
)

// JSONSchemaID is the $id of the schema JSONSchema returns.
const JSONSchemaID = "https://faultline.dev/schemas/problem.json"

// problemSchema is the problem document as the kit renders it, in JSON
// Schema 2020-12 (the dialect of OpenAPI 3.1). Extension members are
// allowed, as RFC 9457 §3.2 requires consumers to ignore unknown members.
func problemSchema(wr *problem.Writer) map[string]any {
	codes := wr.Registry().Definitions()
	names := make([]string, len(codes))
	for i, c := range codes {
		names[i] = string(c.Code)
	}
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	enum := func(desc string, values []string) map[string]any {
		return map[string]any{"type": "string", "enum": values, "description": desc}
	}
	return map[string]any{
		"type":        "object",
		"description": problemDescription(wr),
		"required":    []string{"type", "title", "status", "code", "action", "cause", "retryable"},
		"properties": map[string]any{
			"type":     map[string]any{"type": "string", "format": "uri-reference", "description": "Identifies the problem type; dereferenced, it documents it. about:blank for a bare status no code claims."},
			"title":    str("Fixed per type; never varies with the occurrence."),
			"status":   map[string]any{"type": "integer", "minimum": 400, "maximum": 599, "description": "The HTTP status actually sent."},
			"detail":   str("Public, sanitized text about this occurrence."),
			"instance": map[string]any{"type": "string", "format": "uri-reference", "description": "The escaped request path."},
			"code":     enum("The stable machine-readable code: branch on it.", names),
			"action":   enum("What the client does next.", actions),
			"cause":    enum("Whose problem it is.", causes),
			"retryable": map[string]any{"type": "boolean",
				"description": "Whether sending the same request again may succeed. Never false with action retry."},
			"retry_after_ms": map[string]any{"type": "integer", "minimum": 0,
				"description": "The earliest retry, in milliseconds; the Retry-After header carries the same in seconds."},
			"outcome":        enum("What became of an operation that may have side effects.", outcome),
			"correlation_id": str("Ties the response to the server's log records; quote it when reporting."),
			"errors": map[string]any{
				"type":        "array",
				"description": "Every field error of a validation_failed problem, at once.",
				"items":       map[string]any{"$ref": "#/components/schemas/FieldError"},
				// RFC 9457 Appendix B: an array's entries are <i> elements.
				"xml": map[string]any{"wrapped": true},
			},
			"error":   str("Legacy member, during the transition window only: equals code."),
			"message": str("Legacy member, during the transition window only: the detail, or the title."),
		},
		// The same document as application/problem+xml (RFC 9457
		// Appendix B).
		"xml": map[string]any{"name": "problem", "namespace": "urn:ietf:rfc:7807"},
	}
}

// problemDescription describes the document, announcing the legacy
// members while the Writer's window (problem.WithLegacy) is open, so a
// spec's readers learn of them and of their end date.
func problemDescription(wr *problem.Writer) string {
	description := "An RFC 9457 problem document with faultline's members."
	if l := legacyOf(wr); l != nil && l.Active {
		description += " Every problem also carries the legacy members error (the code) and message (the detail, or the title)"
		if l.UntilDate != "" {
			description += " until " + l.UntilDate + "; after that date they are no longer sent"
		}
		description += "."
	}
	return description
}

func fieldErrorSchema() map[string]any {
	return map[string]any{
		"type":     "object",
		"xml":      map[string]any{"name": "i"},
		"required": []string{"detail"},
		"properties": map[string]any{
			"detail":  map[string]any{"type": "string"},
			"pointer": map[string]any{"type": "string", "description": "A JSON Pointer (RFC 6901) to the field in the request body; empty for the root."},
			"code":    map[string]any{"type": "string", "description": "The rule the field broke."},
		},
	}
}

// textSchema is the plain-text representation: a first line
// "<brand>: <code>: <message>", then one "name: value" line per member.
var textSchema = map[string]any{
	"type":        "string",
	"pattern":     `^[^\n]*: [a-z][a-z0-9_]*: [^\n]*\n`,
	"description": "The problem for plain-text clients: a first line \"<brand>: <code>: <message>\", then one \"name: value\" line per member (status, action, cause, retryable, ...).",
}

// responseName is the component name of the reusable response for a
// status: Problem429 for 429.
func responseName(status int) string { return "Problem" + strconv.Itoa(status) }

// Components returns OpenAPI 3.1 components: the schemas Problem and
// FieldError, and a response per status the registry's codes use, each
// with an example document per code, in every media type the Writer sends:
// application/problem+json, application/problem+xml (the Problem schema
// with its xml names, RFC 9457 Appendix B) and text/plain, and the headers
// the Writer sends with it (its correlation and code headers, Retry-After
// for a status with a retryable code, Deprecation and Sunset while its
// legacy window announces them). Merge them into
// the components of the service's spec (see the example) and refer to a
// status's response by its name, "Problem" and the status:
// {"$ref": "#/components/responses/Problem429"}. The Problem schema's
// description announces the legacy members while the Writer's legacy
// window is open.
func Components(opts ...Option) map[string]any {
	c := newConfig(opts)
	codes := c.writer.Registry().Definitions()
	byStatus := map[int][]entry{}
	for _, code := range codes {
		byStatus[code.Status] = append(byStatus[code.Status], newEntry(c.writer, code))
	}
	statuses := make([]int, 0, len(byStatus))
	for s := range byStatus {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)

	responses := map[string]any{}
	for _, status := range statuses {
		es := byStatus[status]
		names := make([]string, len(es))
		examples := map[string]any{}
		textExamples := map[string]any{}
		for i, e := range es {
			names[i] = "`" + e.Code + "`"
			examples[e.Code] = map[string]any{"summary": e.Title, "description": e.Reaction, "value": e.Example}
			textExamples[e.Code] = map[string]any{"summary": e.Title, "value": e.exampleText}
		}
		phrase := http.StatusText(status)
		if phrase == "" {
			// net/http knows no phrase for nonstandard statuses (499, a
			// team's own): the first code of the status names it, as it
			// stands for the status in ForStatus.
			phrase = es[0].Title
		}
		responses[responseName(status)] = map[string]any{
			"description": phrase + ": " + strings.Join(names, ", "),
			"headers":     responseHeaders(c.writer, es),
			// Every representation the Writer negotiates from Accept.
			"content": map[string]any{
				"application/problem+json": map[string]any{
					"schema":   map[string]any{"$ref": "#/components/schemas/Problem"},
					"examples": examples,
				},
				"application/problem+xml": map[string]any{
					"schema": map[string]any{"$ref": "#/components/schemas/Problem"},
				},
				"text/plain": map[string]any{
					"schema":   textSchema,
					"examples": textExamples,
				},
			},
		}
	}
	return map[string]any{
		"schemas": map[string]any{
			"Problem":    problemSchema(c.writer),
			"FieldError": fieldErrorSchema(),
		},
		"responses": responses,
	}
}

// responseHeaders declares the headers the Writer sends with a problem of
// one status, under the names it is configured with, so a client generated
// from the spec reads them where they are.
func responseHeaders(wr *problem.Writer, es []entry) map[string]any {
	header := func(desc, typ string) map[string]any {
		return map[string]any{"description": desc, "schema": map[string]any{"type": typ}}
	}
	facts := problemhook.FactsOf(wr)
	headers := map[string]any{}
	if facts.CorrelationHeader != "" {
		headers[http.CanonicalHeaderKey(facts.CorrelationHeader)] = header("The correlation ID, also in the body.", "string")
	}
	if facts.CodeHeader != "" {
		headers[http.CanonicalHeaderKey(facts.CodeHeader)] = header("The problem's code, for clients and proxies that do not read the body.", "string")
	}
	// The Writer sends Retry-After with every retryable problem that has a
	// retry time, whatever its status.
	if slices.ContainsFunc(es, func(e entry) bool { return e.Retryable }) {
		headers["Retry-After"] = header("Seconds to wait; agrees with retry_after_ms.", "integer")
	}
	if l, ok := facts.Legacy.(problem.Legacy); ok && l.DeprecationHeaders && facts.LegacyActive && !l.Until.IsZero() {
		headers["Deprecation"] = header("RFC 9745: when this API version was deprecated, as @ and Unix seconds.", "string")
		headers["Sunset"] = header("RFC 8594: the HTTP date after which this API version is gone.", "string")
	}
	return headers
}

// JSONSchema returns the problem document as a standalone JSON Schema
// (2020-12), for validating bodies without an OpenAPI toolchain.
func JSONSchema(opts ...Option) ([]byte, error) {
	c := newConfig(opts)
	s := problemSchema(c.writer)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = JSONSchemaID
	s["properties"].(map[string]any)["errors"].(map[string]any)["items"] = map[string]any{"$ref": "#/$defs/FieldError"}
	s["$defs"] = map[string]any{"FieldError": fieldErrorSchema()}
	return json.MarshalIndent(s, "", "  ")
}
