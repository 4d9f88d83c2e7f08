package problem

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/faultline-go/faultline/sanitize"
)

// appendXML appends the application/problem+xml form of RFC 9457
// Appendix B: namespace urn:ietf:rfc:7807, members as elements in the JSON
// order, array entries as <i> elements, with the legacy members only when
// legacy is set. It carries exactly the members and values AppendJSON
// does; a member name that is not an XML name, or that starts with "xml"
// in any case (a name XML reserves), becomes <member name="...">. The
// output is well-formed XML whatever the problem holds.
func (p *Problem) appendXML(dst []byte, legacy bool) []byte {
	dst = append(dst, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<problem xmlns="urn:ietf:rfc:7807">`...)
	elem := func(name, value string, public bool) {
		if public {
			value = sanitize.Public(value)
		}
		dst = append(dst, '<')
		dst = append(dst, name...)
		dst = append(dst, '>')
		dst = appendXMLText(dst, value)
		dst = append(dst, '<', '/')
		dst = append(dst, name...)
		dst = append(dst, '>')
	}
	if p.typ != "" {
		elem("type", p.renderedType(), false)
	}
	elem("title", p.renderedTitle(), false)
	if p.hasStatus() {
		elem("status", strconv.Itoa(p.status), false)
	}
	if d := p.renderedDetail(); d != "" {
		elem("detail", d, false)
	}
	if p.instance != "" {
		elem("instance", publicInstance(p.instance), false)
	}
	elem("code", p.peerText(p.code), false)
	g := p.renderedGuidance()
	if g.action != "" {
		elem("action", string(g.action), false)
	}
	if g.cause != "" {
		elem("cause", string(g.cause), false)
	}
	elem("retryable", strconv.FormatBool(p.retryable), false)
	if ms := g.retryAfterMS; ms > 0 {
		elem("retry_after_ms", strconv.FormatInt(ms, 10), false)
	}
	if g.outcome != "" {
		elem("outcome", string(g.outcome), false)
	}
	if p.correlationID != "" {
		elem("correlation_id", p.renderedCorrelationID(), false)
	}
	if len(p.fieldErrors) > 0 {
		dst = append(dst, "<errors>"...)
		for _, fe := range p.fieldErrors {
			dst = append(dst, "<i>"...)
			elem("detail", fe.Detail, true)
			elem("pointer", publicPointer(fe.Pointer), false)
			if fe.Code != "" {
				elem("code", sanitize.Public(fe.Code), false)
			}
			dst = append(dst, "</i>"...)
		}
		dst = append(dst, "</errors>"...)
	}
	for _, e := range p.extensionMembers(legacy) {
		dst = appendXMLValue(dst, e.Name, toGeneric(e.Value))
	}
	if legacy {
		elem("error", p.peerText(p.code), false)
		elem("message", p.Message(), true)
	}
	return append(dst, "</problem>"...)
}

// appendXMLValue renders a value of the JSON data model (see toGeneric)
// as the element name. Its strings and keys already passed the public tier
// on the way to that model.
func appendXMLValue(dst []byte, name string, v any) []byte {
	if xmlName(name) {
		dst = append(dst, '<')
		dst = append(dst, name...)
		dst = append(dst, '>')
	} else {
		dst = append(dst, `<member name="`...)
		dst = appendXMLText(dst, name)
		dst = append(dst, `">`...)
		name = "member"
	}
	switch v := v.(type) {
	case string:
		dst = appendXMLText(dst, v)
	case bool:
		dst = strconv.AppendBool(dst, v)
	case json.Number:
		dst = append(dst, v...)
	case []any:
		for _, e := range v {
			dst = appendXMLValue(dst, "i", e)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			dst = appendXMLValue(dst, k, v[k])
		}
	}
	dst = append(dst, '<', '/')
	dst = append(dst, name...)
	return append(dst, '>')
}

// xmlName reports whether s can be an element name as it is: an ASCII
// NCName (no colon, so no namespace prefix) not starting with "xml",
// which XML reserves.
func xmlName(s string) bool {
	if s == "" || len(s) >= 3 && strings.EqualFold(s[:3], "xml") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		case i > 0 && ('0' <= c && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// toGeneric reduces a value to the JSON data model (nil, string, bool,
// json.Number, []any, map[string]any) by reading back what AppendJSON
// writes for it, so XML and JSON always agree on what a value is: the same
// public tier, the same keys, the same redactions.
func toGeneric(v any) any {
	raw := appendValue(nil, v)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// appendXMLText escapes text for element content and attribute values.
// The runes of isReplaced and invalid UTF-8 become U+FFFD.
func appendXMLText(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '&':
				dst = append(dst, "&amp;"...)
			case c == '<':
				dst = append(dst, "&lt;"...)
			case c == '>':
				dst = append(dst, "&gt;"...)
			case c == '"':
				dst = append(dst, "&quot;"...)
			case c == '\'':
				dst = append(dst, "&apos;"...)
			case c == '\t', c == '\n':
				dst = append(dst, c)
			case c == '\r':
				dst = append(dst, "&#xD;"...)
			case c < 0x20 || c == 0x7f:
				dst = append(dst, "\uFFFD"...)
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || isReplaced(r) {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}
