package problem

import "strings"

type media uint8

// The representations a problem can take, in order of preference when the
// client rates several equally.
const (
	mediaJSON media = iota
	mediaXML
	mediaText
)

// negotiate picks a representation from an Accept header. A client that
// asks for nothing we have still gets problem+json: an error body nobody
// asked for beats an empty one (a 406 about a 500 helps no one).
func negotiate(accept string) media {
	if accept == "" {
		return mediaJSON
	}
	var best [3]struct{ q, specificity int }
	for _, m := range [...]media{mediaJSON, mediaXML, mediaText} {
		best[m].q = -1
	}
	for accept != "" {
		var part string
		part, accept, _ = strings.Cut(accept, ",")
		rangePart, params, _ := strings.Cut(part, ";")
		rangePart = strings.TrimSpace(rangePart)
		q := parseQ(params)
		for _, m := range [...]media{mediaJSON, mediaXML, mediaText} {
			spec := matches(rangePart, m)
			if spec > best[m].specificity || spec > 0 && best[m].q < 0 {
				best[m].q, best[m].specificity = q, spec
			}
		}
	}
	chosen, chosenQ := mediaJSON, 0
	for _, m := range [...]media{mediaJSON, mediaXML, mediaText} {
		if best[m].q > chosenQ {
			chosen, chosenQ = m, best[m].q
		}
	}
	return chosen
}

// matches returns how specifically a media range names m: 4 the type sent
// (application/problem+json), 3 a type it also serves (application/json),
// 2 a type wildcard, 1 */*, 0 not at all. The type sent outranks its
// relatives, so "application/json;q=0.5, application/problem+json" rates
// problem+json at 1, whichever range comes first.
func matches(mediaRange string, m media) int {
	if mediaRange == "*/*" {
		return 1
	}
	typ, sub, ok := strings.Cut(mediaRange, "/")
	if !ok {
		return 0
	}
	switch m {
	case mediaJSON:
		if strings.EqualFold(typ, "application") {
			if sub == "*" {
				return 2
			}
			if strings.EqualFold(sub, "problem+json") {
				return 4
			}
			if strings.EqualFold(sub, "json") {
				return 3
			}
		}
	case mediaXML:
		if strings.EqualFold(typ, "application") && sub == "*" {
			// problem+xml is an application type too; on a tie the order
			// of preference keeps JSON first.
			return 2
		}
		if strings.EqualFold(typ, "application") && strings.EqualFold(sub, "problem+xml") {
			return 4
		}
		if strings.EqualFold(typ, "application") && strings.EqualFold(sub, "xml") {
			return 3
		}
		if strings.EqualFold(typ, "text") && strings.EqualFold(sub, "xml") {
			return 3
		}
	case mediaText:
		if strings.EqualFold(typ, "text") {
			if sub == "*" {
				return 2
			}
			if strings.EqualFold(sub, "plain") {
				return 4
			}
		}
	}
	return 0
}

// parseQ returns the quality in thousandths; a malformed q counts as 1, as
// most servers treat it, rather than silently excluding the range.
func parseQ(params string) int {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		name, value, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "q") {
			continue
		}
		value = strings.TrimSpace(value)
		if value == "" || len(value) > 5 {
			return 1000
		}
		q, frac, scale := 0, false, 1000
		for i := 0; i < len(value); i++ {
			c := value[i]
			switch {
			case c == '.' && !frac:
				frac = true
			case c >= '0' && c <= '9':
				if frac {
					scale /= 10
					q += int(c-'0') * scale
				} else {
					q = q*10 + int(c-'0')*1000
				}
			default:
				return 1000
			}
		}
		if q > 1000 {
			q = 1000
		}
		return q
	}
	return 1000
}
