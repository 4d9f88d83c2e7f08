package problemdocs_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/problemdocs"
)

// genericHeaders are sent on every response and describe the
// representation, not the problem: an OpenAPI response does not list them.
var genericHeaders = map[string]bool{"Content-Type": true, "Content-Length": true, "Date": true,
	"Cache-Control": true, "Vary": true, "X-Content-Type-Options": true}

// TestResponsesDeclareTheHeadersTheWriterSends: every header a live
// problem carries is declared in the response of its status, under the
// name the Writer uses, and every declared header is sent. A generated
// client reads the correlation ID, the code and the retry time from the
// headers its spec names; a spec naming X-Request-Id for a Writer that
// echoes under another header, or leaving out Retry-After on a 502 that
// carries it, sends those clients looking in the wrong place.
func TestResponsesDeclareTheHeadersTheWriterSends(t *testing.T) {
	until := time.Now().Add(30 * 24 * time.Hour)
	for name, opts := range map[string][]problem.Option{
		"default": nil,
		"renamed": {problem.WithCorrelationHeader("X-Correlation-Id"), problem.WithCodeHeader("X-Problem-Code")},
		"no code header, legacy announced": {problem.WithCodeHeader(""), problem.WithCorrelationHeader("Trace-Ref"),
			problem.WithLegacy(problem.Legacy{Until: until, DeprecationHeaders: true})},
	} {
		t.Run(name, func(t *testing.T) {
			wr := problem.NewWriter(append(opts, problem.WithLogger(slog.New(slog.DiscardHandler)))...)
			responses := problemdocs.Components(problemdocs.WithWriter(wr))["responses"].(map[string]any)
			mux := http.NewServeMux()
			mux.HandleFunc("/fail/{code}", func(w http.ResponseWriter, r *http.Request) {
				k, _ := wr.Registry().Lookup(problem.Kind(r.PathValue("code")))
				p := problem.New(k.Code)
				if k.Retryable {
					p = p.WithRetryAfter(3 * time.Second)
				}
				wr.Write(w, r, p)
			})
			srv := httptest.NewServer(middleware.Stack(middleware.WithWriter(wr))(mux))
			defer srv.Close()
			sent := map[string]map[string]bool{}
			for _, k := range wr.Registry().Definitions() {
				resp, err := srv.Client().Get(srv.URL + "/fail/" + string(k.Code))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				status := "Problem" + strconv.Itoa(resp.StatusCode)
				declared := responses[status].(map[string]any)["headers"].(map[string]any)
				if sent[status] == nil {
					sent[status] = map[string]bool{}
				}
				for h := range resp.Header {
					if genericHeaders[h] {
						continue
					}
					sent[status][h] = true
					if declared[h] == nil {
						t.Errorf("%s (%s) sends %s, which %s does not declare", k.Code, status, h, status)
					}
				}
			}
			for status, sentHere := range sent {
				for h := range responses[status].(map[string]any)["headers"].(map[string]any) {
					if !sentHere[h] {
						t.Errorf("%s declares %s, which no problem of its status carries", status, h)
					}
				}
			}
		})
	}
	if correlation.DefaultHeader != "X-Request-Id" {
		t.Fatalf("the default correlation header is %s", correlation.DefaultHeader)
	}
}
