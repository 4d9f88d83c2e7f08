package problem

import (
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/internal/textclass"
	"github.com/faultline-go/faultline/sanitize"
)

// appendText appends the plain-text proxy plane: a first line
// "<brand>: <code>: <message>" that no JSON, XML or HTML parser accepts as
// the upstream's payload, then one "name: value" line per guidance member.
func (p *Problem) appendText(dst []byte, brand string) []byte {
	dst = append(dst, oneLine(brand)...)
	dst = append(dst, ": "...)
	dst = append(dst, p.cliLine()...)
	dst = append(dst, '\n')
	line := func(name, value string) {
		dst = append(dst, name...)
		dst = append(dst, ": "...)
		dst = append(dst, oneLine(value)...)
		dst = append(dst, '\n')
	}
	if p.hasStatus() {
		line("status", strconv.Itoa(p.status))
	}
	g := p.renderedGuidance()
	if g.action != "" {
		line("action", string(g.action))
	}
	if g.cause != "" {
		line("cause", string(g.cause))
	}
	line("retryable", strconv.FormatBool(p.retryable))
	if ms := g.retryAfterMS; ms > 0 {
		line("retry_after_ms", strconv.FormatInt(ms, 10))
	}
	if g.outcome != "" {
		line("outcome", string(g.outcome))
	}
	if p.correlationID != "" {
		line("correlation_id", p.renderedCorrelationID())
	}
	for _, fe := range p.fieldErrors {
		value := sanitize.Public(fe.Detail)
		if fe.Pointer != "" {
			value = publicPointer(fe.Pointer) + " " + value
		}
		line("error", value)
	}
	return dst
}

// cliLine is the one-line form for command-line tools, "<code>: <message>":
// client.Line and mcpfault's tool errors show it.
func (p *Problem) cliLine() string {
	return oneLine(p.peerText(p.code)) + ": " + oneLine(sanitize.Public(p.Message()))
}

// oneLine folds line breaks and other control characters into spaces so a
// value can never start a line of its own (see textclass.IsEscaped).
func oneLine(s string) string {
	if strings.IndexFunc(s, textclass.IsEscaped) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if textclass.IsEscaped(r) {
			return ' '
		}
		return r
	}, s)
}

func init() {
	problemhook.AppendText = func(p any, dst []byte, brand string) []byte { return p.(*Problem).appendText(dst, brand) }
	problemhook.CLILine = func(p any) string { return p.(*Problem).cliLine() }
}
