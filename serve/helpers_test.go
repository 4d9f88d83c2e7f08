package serve

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// logSink collects JSON log records for assertions.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *logSink) records(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(s.buf.Bytes()))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func (s *logSink) withMsg(t *testing.T, msg string) []map[string]any {
	var out []map[string]any
	for _, r := range s.records(t) {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

func newWriter() (*problem.Writer, *logSink) {
	sink := &logSink{}
	logger := slog.New(slog.NewJSONHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return problem.NewWriter(problem.WithLogger(logger)), sink
}
