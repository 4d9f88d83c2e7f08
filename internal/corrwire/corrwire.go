// Package corrwire accepts a request's correlation ID the way a problem
// writer echoes it, for the two places that accept it on a service's behalf:
// middleware.Stack and serve.Run, which runs in front of it.
package corrwire

import (
	"log/slog"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// Options returns the service's own correlation options (own) after those
// the writer implies, so they override them: a writer that echoes the ID
// under another header (problem.WithCorrelationHeader) gets it accepted
// from and echoed under that header alone, so a response never carries the
// ID twice under two names.
func Options(wr *problem.Writer, own ...correlation.Option) []correlation.Option {
	if wr == nil {
		return own
	}
	name := problemhook.FactsOf(wr).CorrelationHeader
	if name == "" || name == correlation.DefaultHeader {
		return own
	}
	inbound := []string{name, correlation.DefaultHeader}
	if name != "X-Correlation-Id" {
		inbound = append(inbound, "X-Correlation-Id")
	}
	return append([]correlation.Option{correlation.WithResponseHeader(name), correlation.WithHeaders(inbound...)}, own...)
}

// Env reports a rejected inbound ID to the writer's logger, the one a
// service configures, and reads the clock itself.
type Env struct{ Writer *problem.Writer }

func (e Env) Logger() *slog.Logger {
	if e.Writer == nil {
		return slog.Default()
	}
	return e.Writer.Logger()
}

func (Env) Now() time.Time { return time.Now() }
