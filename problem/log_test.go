package problem

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// With AddSource the record names the code that wrote the problem, not the
// writer's own logging line.
func TestLogSourceIsTheCaller(t *testing.T) {
	var buf bytes.Buffer
	wr := NewWriter(WithLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{AddSource: true}))))
	_ = wr.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), New(NotFound))
	_ = wr.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), wr.FromError(errors.New("boom")))
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

type sourceHandlers struct{}

func (sourceHandlers) fail(http.ResponseWriter, *http.Request) error { return errors.New("boom") }

// A problem a handler returns names that handler as its record's source
// (where the adapter's own frame would name this package on every record);
// a method value, whose entry names no file, leaves the adapter's frame.
func TestLogSourceOfAReturnedError(t *testing.T) {
	var buf bytes.Buffer
	wr := NewWriter(WithLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{AddSource: true}))))
	fail := func(http.ResponseWriter, *http.Request) error { return errors.New("boom") }
	for _, tc := range []struct {
		name     string
		h        http.Handler
		file, fn string
	}{
		{"Writer.Handler", wr.Handler(fail), "log_test.go", "TestLogSourceOfAReturnedError.func1"},
		{"method value", wr.Handler(sourceHandlers{}.fail), "handler.go", "problem.(*Writer).Handler.func1"},
	} {
		for range 2 { // the second answer comes from sourceOf's memory
			buf.Reset()
			r := httptest.NewRequest("GET", "/", nil)
			tc.h.ServeHTTP(httptest.NewRecorder(), r.WithContext(problemhook.NewContext(r.Context(), wr)))
			var rec struct {
				Source struct{ File, Function string }
			}
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("%s: %v: %q", tc.name, err, buf.String())
			}
			if !strings.HasSuffix(rec.Source.File, tc.file) || !strings.HasSuffix(rec.Source.Function, tc.fn) {
				t.Errorf("%s: source = %+v, want %s in %s", tc.name, rec.Source, tc.fn, tc.file)
			}
		}
	}
}
