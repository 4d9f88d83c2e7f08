package problem_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline-go/faultline/problem"
)

// A client sends request lines up to net/http's header limit (1 MiB by
// default): each of its failures must not become a record of that size.
// The record quotes the path's start, cut at a rune, marked as cut.
func TestLoggedPathIsBounded(t *testing.T) {
	for _, path := range []string{"/" + strings.Repeat("a", 30<<10), "/" + strings.Repeat("é", 20<<10), "/orders/" + strings.Repeat("%2F..", 8<<10)} {
		var logs bytes.Buffer
		wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
		srv := httptest.NewServer(wr.Handler(func(http.ResponseWriter, *http.Request) error { return errors.New("boom") }))
		res, err := http.Get(srv.URL + path)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		var rec struct{ Path string }
		if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
			t.Fatalf("%v: %.200s", err, logs.Bytes())
		}
		if len(rec.Path) > 3<<10 || !strings.HasSuffix(rec.Path, "[truncated]") || !utf8.ValidString(rec.Path) {
			t.Errorf("logged path of %d bytes: %d bytes, ends %q", len(path), len(rec.Path), rec.Path[max(0, len(rec.Path)-20):])
		}
	}
}
