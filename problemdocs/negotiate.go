package problemdocs

import "strings"

// negotiate picks between the two representations by RFC 9110 §12.5.1:
// each is weighed by the most specific media range that matches it
// ("text/html" over "text/*" over "*/*"). JSON is served as
// application/json, so that range rates it; another JSON type ("…/json",
// "…+json") stands in for it only when Accept does not name it. On equal
// weight the one named first wins, and HTML when the
// same wildcard names both, since a browser is the reader a type URI is
// for. acceptable is false when Accept gives both a weight of zero.
func negotiate(accept string) (asJSON, acceptable bool) {
	if strings.TrimSpace(accept) == "" {
		return false, true
	}
	html, json := weigh(accept, isHTML), weigh(accept, isJSON)
	switch {
	case html.q <= 0 && json.q <= 0:
		return false, false
	case html.q != json.q:
		return json.q > html.q, true
	default:
		return json.index < html.index, true
	}
}

type weight struct {
	q           float64
	specificity int // 0 none, 1 "*/*", 2 "type/*", 3 a related type, 4 exact
	index       int // position of the range in Accept
}

func weigh(accept string, matches func(media string) int) weight {
	best := weight{q: 0, specificity: 0, index: -1}
	i := 0
	for part := range strings.SplitSeq(accept, ",") {
		media, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		media = strings.ToLower(strings.TrimSpace(media))
		if media == "" {
			continue
		}
		if spec := matches(media); spec > best.specificity {
			best = weight{q: qValue(params), specificity: spec, index: i}
		}
		i++
	}
	return best
}

func isHTML(media string) int {
	switch media {
	case "text/html":
		return 4
	case "text/*":
		return 2
	case "*/*":
		return 1
	}
	return 0
}

func isJSON(media string) int {
	switch {
	case media == "application/json":
		return 4
	case strings.HasSuffix(media, "/json"), strings.HasSuffix(media, "+json"):
		return 3
	case media == "application/*":
		return 2
	case media == "*/*":
		return 1
	}
	return 0
}

func qValue(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			return parseQ(strings.TrimSpace(v))
		}
	}
	return 1
}

// parseQ reads a qvalue; anything malformed weighs zero.
func parseQ(s string) float64 {
	q, div, seenDot := 0.0, 1.0, false
	if s == "" {
		return 0
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !seenDot:
			seenDot = true
		case c >= '0' && c <= '9':
			if seenDot {
				div *= 10
				q += float64(c-'0') / div
			} else {
				q = q*10 + float64(c-'0')
			}
		default:
			return 0
		}
	}
	return min(q, 1)
}
