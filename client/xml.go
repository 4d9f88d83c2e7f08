package client

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strconv"

	"github.com/faultline-go/faultline/problem"
)

// parseXML reads application/problem+xml (RFC 9457 Appendix B) by turning
// its members into a JSON document for problem.Parse, so both forms are
// read by the same rules. Leaf elements become string members (numbers and
// booleans of the known members are converted); <errors> keeps its <i>
// entries; other nested elements are skipped.
func parseXML(body []byte, status int) (*problem.Problem, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = true
	root, err := nextStart(dec)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errMalformedBody, err)
	}
	if root.Name.Local != "problem" {
		return nil, fmt.Errorf("%w: root element <%s>, not <problem>", errMalformedBody, root.Name.Local)
	}
	doc := map[string]any{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errMalformedBody, err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if _, ok := doc["status"].(json.Number); !ok {
				// RFC 9457 §3.1.2: the member is advisory and may be
				// absent; the status the response carried stands in.
				doc["status"] = status
			}
			p, err := parseDoc(doc)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", errMalformedBody, err)
			}
			return p, nil
		case xml.StartElement:
			name := t.Name.Local
			if name == "errors" {
				list, err := xmlFieldErrors(dec)
				if err != nil {
					return nil, fmt.Errorf("%w: %v", errMalformedBody, err)
				}
				doc[name] = list
				continue
			}
			text, leaf, err := xmlLeaf(dec)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", errMalformedBody, err)
			}
			if leaf {
				doc[name] = xmlMember(name, text)
			}
		}
	}
}

// xmlMember converts the members whose JSON type is not a string.
func xmlMember(name, text string) any {
	switch name {
	case "status", "retry_after_ms":
		if n, ok := jsonNumber(text); ok {
			return n
		}
	case "retryable":
		if b, err := strconv.ParseBool(text); err == nil {
			return b
		}
	}
	return text
}

func nextStart(dec *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := dec.Token()
		if err != nil {
			return xml.StartElement{}, err
		}
		if s, ok := tok.(xml.StartElement); ok {
			return s, nil
		}
	}
}

// xmlLeaf reads the element just started up to its end. leaf is false when
// it held elements.
func xmlLeaf(dec *xml.Decoder) (text string, leaf bool, err error) {
	var buf []byte
	leaf = true
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return "", false, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			leaf = false
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 1 {
				buf = append(buf, t...)
			}
		}
	}
	return string(buf), leaf, nil
}

// xmlFieldErrors reads <errors><i><detail/><pointer/><code/></i>...</errors>.
func xmlFieldErrors(dec *xml.Decoder) ([]map[string]any, error) {
	var list []map[string]any
	var cur map[string]any
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if cur == nil {
				cur = map[string]any{}
				continue
			}
			text, leaf, err := xmlLeaf(dec)
			if err != nil {
				return nil, err
			}
			if leaf {
				cur[t.Name.Local] = text
			}
		case xml.EndElement:
			if cur == nil {
				return list, nil
			}
			list = append(list, cur)
			cur = nil
		}
	}
}
