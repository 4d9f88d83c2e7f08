package client

import (
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/problem"
)

// parseText reads faultline's plain-text proxy plane: a first line
// "<brand>: <code>: <message>", then "name: value" lines for the guidance
// members. A text/plain body without an action line is not one: it is
// prose, and prose is never read for decisions.
func parseText(body []byte, status int) (*problem.Problem, bool) {
	lines := strings.Split(strings.TrimRight(string(body), "\r\n"), "\n")
	for i, l := range lines {
		// A CR before the LF is part of the line break: text/plain's
		// canonical one (RFC 2046 §4.1.1), which a gateway may send.
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if len(lines) < 2 {
		return nil, false
	}
	parts := strings.SplitN(lines[0], ": ", 3)
	if len(parts) != 3 || headerToken(parts[1]) == "" {
		return nil, false
	}
	doc := map[string]any{"status": status, "code": parts[1], "detail": parts[2]}
	var fieldErrors []map[string]any
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ": ")
		if !ok {
			return nil, false
		}
		switch name {
		case "action", "cause", "outcome", "correlation_id":
			doc[name] = value
		case "retryable":
			if b, err := strconv.ParseBool(value); err == nil {
				doc[name] = b
			}
		case "retry_after_ms":
			if n, ok := jsonNumber(value); ok {
				doc[name] = n
			}
		case "error":
			fe := map[string]any{"detail": value}
			if strings.HasPrefix(value, "/") {
				if pointer, detail, ok := strings.Cut(value, " "); ok {
					fe["pointer"], fe["detail"] = pointer, detail
				}
			}
			fieldErrors = append(fieldErrors, fe)
		}
	}
	if _, ok := doc["action"]; !ok {
		return nil, false
	}
	if fieldErrors != nil {
		doc["errors"] = fieldErrors
	}
	p, err := parseDoc(doc)
	return p, err == nil
}
