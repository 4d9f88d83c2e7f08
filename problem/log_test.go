package problem

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
)

// With AddSource the record names the code that wrote the problem, not the
// writer's own logging line.
func TestLogSourceIsTheCaller(t *testing.T) {
	var buf bytes.Buffer
	wr := NewWriter(WithLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{AddSource: true}))))
	_ = wr.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), New(NotFound))
	_ = wr.WriteError(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), errors.New("boom"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 records, got %q", buf.String())
	}
	for _, line := range lines {
		var rec struct {
			Source struct{ File, Function string }
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(rec.Source.File, "log_test.go") || !strings.HasSuffix(rec.Source.Function, "TestLogSourceIsTheCaller") {
			t.Errorf("source = %+v, want this test", rec.Source)
		}
	}
}
