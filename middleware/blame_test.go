package middleware

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/problem"
)

type order struct {
	ID  int    `json:"id"`
	SKU string `json:"sku"`
}

// A handler's own JSON, size or media-type failure while it reads an
// upstream's answer is the server's (500 internal, never fix_request); the
// same failures in the request's own body, read through bind or under the
// body limit, blame the request.
func TestOnlyThisRequestsBodyBlamesTheClient(t *testing.T) {
	upstreamBodies := map[string]string{
		"/syntax":    `{"id": 1,`,
		"/garbage":   `<html>502 Bad Gateway</html>`,
		"/mistyped":  `{"id": "seven", "sku": 4}`,
		"/truncated": `{"id": 7, "sku": "b`,
		"/huge":      `{"sku":"` + strings.Repeat("x", 4096) + `"}`,
		"/mime":      ``,
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mime" {
			w.Header()["Content-Type"] = []string{"application/json; charset"}
		}
		io.WriteString(w, upstreamBodies[r.URL.Path])
	}))
	defer upstream.Close()

	fetch := func(path string) error {
		resp, err := http.Get(upstream.URL + path)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var o order
		switch path {
		case "/huge":
			body := http.MaxBytesReader(nil, resp.Body, 1024)
			return json.NewDecoder(body).Decode(&o)
		case "/truncated":
			return json.NewDecoder(resp.Body).Decode(&o)
		case "/mime":
			_, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			return err
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		return json.Unmarshal(b, &o)
	}

	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer), WithBodyLimit(2048)), map[string]http.HandlerFunc{
			"POST /relay": k.writer.Handler(func(w http.ResponseWriter, r *http.Request) error {
				if err := fetch(r.URL.Query().Get("up")); err != nil {
					return fmt.Errorf("fetch order: %w", err)
				}
				w.WriteHeader(http.StatusNoContent)
				return nil
			}),
			"POST /wrapped": func(w http.ResponseWriter, r *http.Request) {
				// The same upstream failure written from From directly.
				err := fetch(r.URL.Query().Get("up"))
				if r.URL.Query().Get("via") == "from" {
					_ = problem.Write(w, r, problem.From(r, err))
					return
				}
				_ = problem.Write(w, r, problem.From(r, err))
			},
			"POST /bind": k.writer.Handler(func(w http.ResponseWriter, r *http.Request) error {
				if _, err := bind.Decode[order](r); err != nil {
					return err
				}
				w.WriteHeader(http.StatusNoContent)
				return nil
			}),
			"POST /own": k.writer.Handler(func(w http.ResponseWriter, r *http.Request) error {
				// The handler decodes this request's body itself, under the
				// body limit: only the limit is the kit's to blame on the client.
				var o order
				if err := json.NewDecoder(r.Body).Decode(&o); err != nil {
					return err
				}
				w.WriteHeader(http.StatusNoContent)
				return nil
			}),
		})
		srv := k.serve(t, h)
		post := func(path, ct string, body io.Reader, chunked bool) response {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+path, body)
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			if chunked {
				req.ContentLength = -1
			}
			return do(t, req)
		}
		for up := range upstreamBodies {
			for _, path := range []string{"/relay?up=" + up, "/wrapped?up=" + up, "/wrapped?via=from&up=" + up} {
				resp := post(path, "application/json", strings.NewReader(`{"id":1}`), false)
				m := wantProblem(t, resp, 500, "internal", nil)
				if m["action"] == "fix_request" {
					t.Errorf("%s: the client is told to fix a valid request: %s", path, resp.body)
				}
			}
		}

		// The client's own body, read through the kit.
		big := `{"sku":"` + strings.Repeat("y", 3000) + `"}`
		cases := []struct {
			path, ct, body string
			chunked        bool
			status         int
			code           string
		}{
			{"/bind", "application/json", `{"id": 1,`, false, 400, "invalid_json"},
			{"/bind", "application/json", `[1,2]`, false, 400, "invalid_json"},
			{"/bind", "text/csv", `id,sku`, false, 415, "unsupported_media_type"},
			{"/bind", "application/json", `{"id":"x"}`, false, 422, "validation_failed"},
			{"/bind", "application/json", big, true, 413, "request_too_large"},
			{"/own", "application/json", big, true, 413, "request_too_large"},
			{"/own", "application/json", big, false, 413, "request_too_large"},
			// Decoded by the handler itself, not through bind: its JSON
			// error is no finding of the kit's about the request.
			{"/own", "application/json", `{"id": 1,`, false, 500, "internal"},
		}
		for _, c := range cases {
			resp := post(c.path, c.ct, strings.NewReader(c.body), c.chunked)
			want := map[string]any{}
			if c.status < 500 {
				want["action"] = "fix_request"
			}
			wantProblem(t, resp, c.status, c.code, want)
		}
	})
}

// The body limit's read error is the request_too_large problem and still
// wraps the *http.MaxBytesError it comes from.
func TestBodyLimitReadErrorIsTheProblem(t *testing.T) {
	k := newKit()
	var got error
	h := Stack(WithWriter(k.writer), WithBodyLimit(16))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, got = io.ReadAll(r.Body)
		_ = problem.Write(w, r, problem.From(r, got))
	}))
	srv := k.serve(t, h)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(strings.Repeat("z", 64)))
	req.ContentLength = -1
	wantProblem(t, do(t, req), 413, "request_too_large", nil)
	var mbe *http.MaxBytesError
	if !errors.As(got, &mbe) || mbe.Limit != 16 || !errors.Is(got, problem.RequestTooLarge) {
		t.Fatalf("read error %T %v: MaxBytesError %v", got, got, mbe)
	}
}
