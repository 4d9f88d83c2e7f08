package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// problemMembers are the members whose presence makes an application/json
// body a problem document sent with the wrong media type.
var problemMembers = []string{"type", "title", "status", "detail", "code"}

// parseJSON reads a JSON error body: a problem document (under
// application/problem+json, or sent under another JSON media type with a
// problem's members), or one of the plain shapes other servers use, whose
// code and message become the problem's code and detail:
//
//	{"error": "message"}
//	{"error": "invalid_grant", "error_description": "message"}   (OAuth 2.0)
//	{"error": "rate_limited", "message": "message"}               (faultline's legacy members)
//	{"error": {"code": "NOT_FOUND", "message": "message"}}       (Google APIs)
//	{"message": "message"}
//	{"errors": [{"message": "message"}]}
//
// The plain shapes also fill in the code and the message a problem
// document lacks, and stand in for one problem.Parse could read nothing
// from ({"status": "401", "error": "Bad credentials"}): a member of the
// wrong type is ignored, never the document.
func parseJSON(body []byte, status int, problemMedia bool) (*problem.Problem, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc == nil || dec.More() {
		return nil, fmt.Errorf("%w: not a JSON object", errMalformedBody)
	}
	code, message := plainError(doc)
	if problemMedia || slices.ContainsFunc(problemMembers, func(m string) bool { _, ok := doc[m]; return ok }) {
		p, err := problem.Parse(body)
		if err == nil {
			m := problemhook.PeerMembers{}
			if p.Code() == "" {
				m.Code = code
			}
			if p.Title() == "" && p.Detail() == "" {
				m.Detail = message
			}
			problemhook.CompletePeer(p, m)
			return p, nil
		}
		if code == "" && message == "" {
			return nil, fmt.Errorf("%w: %v", errMalformedBody, err)
		}
	} else if code == "" && message == "" {
		return nil, fmt.Errorf("%w (a JSON object without error members)", ErrNoProblemBody)
	}
	out := map[string]any{"status": status}
	if code != "" {
		out["code"] = code
	}
	if message != "" {
		out["detail"] = message
	}
	return mustParse(out), nil
}

// plainError finds a code and a message in the plain shapes parseJSON lists.
func plainError(doc map[string]any) (code, message string) {
	message = firstString(doc, "error_description", "message")
	switch e := doc["error"].(type) {
	case string:
		// A token next to a message is a code; a lone sentence is the
		// message itself.
		if message != "" && headerToken(e) != "" {
			code = e
		} else if message == "" {
			message = e
		}
	case map[string]any:
		if c, ok := e["code"].(string); ok {
			code = headerToken(c)
		}
		if message == "" {
			message = firstString(e, "message", "description")
		}
	}
	if message == "" {
		if list, ok := doc["errors"].([]any); ok && len(list) > 0 {
			if first, ok := list[0].(map[string]any); ok {
				message = firstString(first, "message", "detail")
			}
		}
	}
	return code, message
}

func firstString(m map[string]any, names ...string) string {
	for _, n := range names {
		if s, ok := m[n].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
