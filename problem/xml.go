package problem

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/faultline-go/faultline/sanitize"
)

// AppendXML appends the application/problem+xml form of RFC 9457
// Appendix B: namespace urn:ietf:rfc:7807, members as elements in the JSON
// order, array entries as <i> elements.
func (p *Problem) AppendXML(dst []byte, legacy bool) []byte {
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
	if p.Type != "" {
		elem("type", p.Type, false)
	}
	elem("title", p.Title, false)
	elem("status", strconv.Itoa(p.Status), false)
	if p.Detail != "" {
		elem("detail", p.Detail, true)
	}
	if p.Instance != "" {
		elem("instance", p.Instance, false)
	}
	elem("code", p.Code, false)
	elem("action", string(p.Action), false)
	elem("cause", string(p.Cause), false)
	elem("retryable", strconv.FormatBool(p.Retryable), false)
	if ms := p.RetryAfter.Milliseconds(); ms > 0 {
		elem("retry_after_ms", strconv.FormatInt(ms, 10), false)
	}
	if p.Outcome != "" {
		elem("outcome", string(p.Outcome), false)
	}
	if p.CorrelationID != "" {
		elem("correlation_id", p.CorrelationID, false)
	}
	if len(p.Errors) > 0 {
		dst = append(dst, "<errors>"...)
		for _, fe := range p.Errors {
			dst = append(dst, "<i>"...)
			elem("detail", fe.Detail, true)
			elem("pointer", fe.Pointer, false)
			if fe.Code != "" {
				elem("code", fe.Code, false)
			}
			dst = append(dst, "</i>"...)
		}
		dst = append(dst, "</errors>"...)
	}
	for _, e := range p.ext {
		dst = appendXMLValue(dst, e.Name, e.Value)
	}
	if legacy {
		elem("error", p.Code, false)
		elem("message", p.Message(), true)
	}
	return append(dst, "</problem>"...)
}

// appendXMLValue renders an extension value by first reducing it to the
// JSON data model, so XML and JSON always agree on what a value is.
func appendXMLValue(dst []byte, name string, v any) []byte {
	dst = append(dst, '<')
	dst = append(dst, name...)
	dst = append(dst, '>')
	switch v := toGeneric(v).(type) {
	case nil:
	case string:
		dst = appendXMLText(dst, sanitize.Public(v))
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
			if validExtensionName(k) {
				keys = append(keys, k)
			}
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

// toGeneric reduces any value to nil, string, bool, json.Number, []any or
// map[string]any.
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

// appendXMLText escapes text for element content. Characters XML 1.0 cannot
// carry at all (most C0 controls, invalid UTF-8) and bidi controls become
// U+FFFD.
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
		if r == utf8.RuneError && size == 1 || r == 0xFFFE || r == 0xFFFF || isBidiControl(r) {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}
