package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The rules of RFC 9457 Appendix A's JSON Schema and Appendix B's RELAX NG
// grammar, written out so the binary depends on no schema file.

// problemDoc is a problem read from either representation: the core
// members the judgements compare, and every member for the others.
type problemDoc struct {
	members map[string]any
	// strings are the text values the leak oracle reads, by member path.
	strings [][2]string
	// xml: the members are element texts, status among them.
	xml bool
}

func (d *problemDoc) str(name string) (string, bool) {
	s, ok := d.members[name].(string)
	return s, ok
}

// status is the status member as an integer, or false.
func (d *problemDoc) status() (int, bool) {
	switch v := d.members["status"].(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1e9 {
			return int(f), true
		}
	case string:
		n, err := strconv.Atoi(v)
		return n, err == nil && d.xml
	}
	return 0, false
}

// parseProblemJSON checks Appendix A's schema: one JSON object whose core
// members, when present, have the types and formats it names.
func parseProblemJSON(body []byte) (*problemDoc, []string) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, []string{"the body is not JSON: " + err.Error()}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, []string{"the body holds more than one JSON value"}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, []string{fmt.Sprintf("the body is a JSON %s, not an object", jsonKind(v))}
	}
	d := &problemDoc{members: obj}
	var why []string
	if !utf8.Valid(body) {
		// encoding/json reads invalid bytes as U+FFFD; a strict peer refuses
		// the whole document (RFC 8259 §8.1: JSON between systems is UTF-8).
		why = append(why, "the body is not valid UTF-8")
	}
	if name := duplicateName(body); name != "" {
		why = append(why, fmt.Sprintf("member %s appears twice in one object", clip(name)))
	}
	for _, name := range []string{"type", "title", "detail", "instance"} {
		raw, present := obj[name]
		if !present {
			continue
		}
		s, ok := raw.(string)
		if !ok {
			why = append(why, fmt.Sprintf("%q is a %s, not a string", name, jsonKind(raw)))
			continue
		}
		if (name == "type" || name == "instance") && !isURIReference(s) {
			why = append(why, fmt.Sprintf("%q %s is not a URI reference", name, clip(s)))
		}
	}
	if raw, present := obj["status"]; present {
		if n, ok := d.status(); !ok {
			why = append(why, fmt.Sprintf("\"status\" %v is not an integer", raw))
		} else if n < 100 || n > 599 {
			why = append(why, fmt.Sprintf("\"status\" %d is outside 100..599", n))
		}
	}
	collectStrings(&d.strings, "", obj)
	return d, why
}

// duplicateName is a member name some object of body holds twice. RFC 8259
// leaves such an object's meaning to each parser: encoding/json keeps the
// last value, others the first, strict ones refuse the document, so two
// clients would read two different problems.
func duplicateName(body []byte) string {
	type frame struct {
		names map[string]bool // nil in an array
		key   bool            // the next string is a member name
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].names != nil {
			stack[n-1].key = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{names: map[string]bool{}, key: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].key {
				if stack[n-1].names[t] {
					return t
				}
				stack[n-1].names[t], stack[n-1].key = true, false
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

func collectStrings(out *[][2]string, path string, v any) {
	switch v := v.(type) {
	case string:
		*out = append(*out, [2]string{path, v})
	case map[string]any:
		for k, e := range v {
			collectStrings(out, path+"/"+k, e)
		}
	case []any:
		for i, e := range v {
			collectStrings(out, path+"/"+strconv.Itoa(i), e)
		}
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// problemNS is Appendix B's namespace.
const problemNS = "urn:ietf:rfc:7807"

// parseProblemXML checks Appendix B's grammar: a problem element in the
// RFC's namespace whose children are all in that namespace, the five core
// elements at most once each, status a positive integer, type and instance
// URIs.
func parseProblemXML(body []byte) (*problemDoc, []string) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	d := &problemDoc{members: map[string]any{}, xml: true}
	var why []string
	depth, roots := 0, 0
	var child string
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) && depth == 0 && roots == 1 {
				break
			}
			if roots == 0 {
				return nil, []string{"the body is not XML with a root element: " + err.Error()}
			}
			return nil, append(why, "the XML is not well-formed: "+err.Error())
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1:
				roots++
				if roots > 1 {
					return nil, append(why, "the XML has more than one root element")
				}
				if t.Name.Space != problemNS || t.Name.Local != "problem" {
					return nil, []string{fmt.Sprintf("the root element is {%s}%s, not {%s}problem", t.Name.Space, t.Name.Local, problemNS)}
				}
			case t.Name.Space != problemNS:
				why = append(why, fmt.Sprintf("element {%s}%s is outside the RFC's namespace", t.Name.Space, t.Name.Local))
			case depth == 2:
				child = t.Name.Local
				if _, dup := d.members[child]; dup && isCore(child) {
					why = append(why, fmt.Sprintf("element %s appears twice", child))
				}
				text.Reset()
			}
		case xml.CharData:
			if depth >= 2 {
				text.Write(t)
			} else if depth == 1 && len(bytes.TrimSpace(t)) > 0 {
				why = append(why, "the problem element holds text outside its child elements")
			}
		case xml.EndElement:
			if depth == 2 {
				s := text.String()
				d.members[child] = s
				d.strings = append(d.strings, [2]string{"/" + child, s})
			}
			depth--
		}
	}
	for _, name := range []string{"type", "instance"} {
		if s, ok := d.str(name); ok && !isURIReference(strings.TrimSpace(s)) {
			why = append(why, fmt.Sprintf("%s %s is not a URI", name, clip(s)))
		}
	}
	if s, ok := d.str("status"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err != nil || n <= 0 {
			why = append(why, fmt.Sprintf("status %s is not a positive integer", clip(s)))
		} else {
			d.members["status"] = strconv.Itoa(n)
		}
	}
	return d, why
}

func isCore(name string) bool {
	switch name {
	case "type", "title", "status", "detail", "instance":
		return true
	}
	return false
}

// isURIReference is RFC 3986's URI-reference: only its characters, every
// percent sign followed by two hex digits, and a structure url.Parse reads.
func isURIReference(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0:
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
		default:
			return false
		}
	}
	_, err := url.Parse(s)
	return err == nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// clip quotes s for a report line, cut short.
func clip(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:57]) + "…"
	}
	return strconv.Quote(s)
}
