package testlog

import (
	"io"
	"log/slog"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// Writer is a problem writer for tests and examples whose log goes to w as
// text records, or nowhere when w is nil, so a test's output is what the
// client sees unless the test reads the log.
func Writer(w io.Writer, opts ...problem.Option) *problem.Writer {
	h := slog.Handler(slog.DiscardHandler)
	if w != nil {
		h = slog.NewTextHandler(w, nil)
	}
	return problem.NewWriter(append([]problem.Option{problem.WithLogger(slog.New(h))}, opts...)...)
}

// Logger is the logger a service wires as the README shows: JSON records,
// each logged with a request's context carrying its correlation_id, with
// credentials redacted by the log tier.
func Logger(w io.Writer) *slog.Logger {
	return slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(w, nil))))
}
