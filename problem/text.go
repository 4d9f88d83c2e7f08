package problem

import (
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/sanitize"
)

// AppendText appends the plain-text proxy plane: a first line
// "<brand>: <code>: <message>" that no JSON, XML or HTML parser accepts as
// the upstream's payload, then one "name: value" line per guidance member.
func (p *Problem) AppendText(dst []byte, brand string) []byte {
	dst = append(dst, oneLine(brand)...)
	dst = append(dst, ": "...)
	dst = append(dst, p.CLILine()...)
	dst = append(dst, '\n')
	line := func(name, value string) {
		dst = append(dst, name...)
		dst = append(dst, ": "...)
		dst = append(dst, oneLine(value)...)
		dst = append(dst, '\n')
	}
	if p.hasStatus() {
		line("status", strconv.Itoa(p.Status))
	}
	g := p.renderedGuidance()
	if g.action != "" {
		line("action", string(g.action))
	}
	if g.cause != "" {
		line("cause", string(g.cause))
	}
	line("retryable", strconv.FormatBool(p.Retryable))
	if ms := g.retryAfterMS; ms > 0 {
		line("retry_after_ms", strconv.FormatInt(ms, 10))
	}
	if g.outcome != "" {
		line("outcome", string(g.outcome))
	}
	if p.CorrelationID != "" {
		line("correlation_id", p.CorrelationID)
	}
	for _, fe := range p.Errors {
		value := sanitize.Public(fe.Detail)
		if fe.Pointer != "" {
			value = sanitize.Public(fe.Pointer) + " " + value
		}
		line("error", value)
	}
	return dst
}

// CLILine is the one-line form for command-line tools: "<code>: <message>".
func (p *Problem) CLILine() string {
	return oneLine(p.peerText(p.Code)) + ": " + oneLine(sanitize.Public(p.Message()))
}

// oneLine folds line breaks and other control characters into spaces so a
// value can never start a line of its own.
func oneLine(s string) string {
	if strings.IndexFunc(s, isLineControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isLineControl(r) {
			return ' '
		}
		return r
	}, s)
}

// isLineControl covers C0, DEL and C1 (U+0080 to U+009F: a terminal may
// read U+009B as the start of an escape sequence, as it reads ESC [), the
// line and paragraph separators, and the invisible runes.
func isLineControl(r rune) bool {
	return r < 0x20 || 0x7f <= r && r <= 0x9f || r == '\u2028' || r == '\u2029' || sanitize.IsInvisible(r)
}
