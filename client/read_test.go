package client_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// get serves one canned response over real HTTP and returns it.
func get(t *testing.T, status int, header map[string]string, body string) *http.Response {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// readProblem reads res and returns the problem errors.As finds, with the
// ResponseError.
func readProblem(t *testing.T, res *http.Response) (*problem.Problem, *client.ResponseError) {
	t.Helper()
	err := client.ReadError(res)
	var re *client.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("ReadError = %v, not a *ResponseError", err)
	}
	var p *problem.Problem
	if !errors.As(err, &p) || p == nil {
		t.Fatalf("errors.As finds no *problem.Problem in %v", err)
	}
	if p.Status() != res.StatusCode {
		t.Errorf("status %d, response said %d", p.Status(), res.StatusCode)
	}
	return p, re
}

// requireLenientParse skips a test of a body that only a lenient
// problem.Parse (issue 10, item 7) reads.
func requireLenientParse(t *testing.T, body string) {
	t.Helper()
	if _, err := problem.Parse([]byte(body)); err != nil {
		t.Skipf("problem.Parse is still strict (issue 10 item 7): %v", err)
	}
}

func TestReadErrorSuccessIsNil(t *testing.T) {
	res := get(t, 200, nil, `{"error":"not an error"}`)
	if err := client.ReadError(res); err != nil {
		t.Fatalf("ReadError(200) = %v", err)
	}
}

// TestReadErrorFromKitWriter reads what the kit's own writer sends, in both
// representations, over real HTTP.
func TestReadErrorFromKitWriter(t *testing.T) {
	srv := kitServer(t, func(http.ResponseWriter, *http.Request) error {
		p := problem.New(problem.RateLimited)
		p = p.WithDetail("The limit of 100 requests per minute was reached.")
		return p.WithRetryAfter(2400 * time.Millisecond)
	})
	for _, accept := range []string{"application/problem+json", "application/problem+xml", "text/plain"} {
		t.Run(accept, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+"/v1/orders", nil)
			req.Header.Set("Accept", accept)
			req.Header.Set("X-Request-Id", "req-7f3a")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			p, re := readProblem(t, res)
			if re.Err != nil {
				t.Errorf("Err = %v", re.Err)
			}
			if p.Code() != "rate_limited" || p.Action() != problem.ActionRetry || !p.Retryable() ||
				p.RetryAfter() != 2400*time.Millisecond || p.Detail() != "The limit of 100 requests per minute was reached." {
				t.Errorf("got code %q action %q retryable %v retry %s detail %q", p.Code(), p.Action(), p.Retryable(), p.RetryAfter(), p.Detail())
			}
			if p.CorrelationID() != "req-7f3a" {
				t.Errorf("correlation ID %q", p.CorrelationID())
			}
			if got := client.Line(re); got != "rate_limited: The limit of 100 requests per minute was reached." {
				t.Errorf("Line = %q", got)
			}
			// The body is still there for the caller.
			b, _ := io.ReadAll(res.Body)
			if !strings.Contains(string(b), "rate_limited") {
				t.Errorf("body after ReadError: %q", b)
			}
		})
	}
}

const (
	rfcOutOfCredit = `{
 "type": "https://example.com/probs/out-of-credit",
 "title": "You do not have enough credit.",
 "detail": "Your current balance is 30, but that costs 50.",
 "instance": "/account/12345/msgs/abc",
 "balance": 30,
 "accounts": ["/account/12345", "/account/67890"]
}`
	rfcValidation = `{
"type": "https://example.net/validation-error",
"title": "Your request is not valid.",
"errors": [
            {
              "detail": "must be a positive integer",
              "pointer": "#/age"
            },
            {
              "detail": "must be 'green', 'red' or 'blue'",
              "pointer": "#/profile/color"
            }
         ]
}`
	rfcOutOfCreditXML = `<?xml version="1.0" encoding="UTF-8"?>
<problem xmlns="urn:ietf:rfc:7807">
  <type>https://example.com/probs/out-of-credit</type>
  <title>You do not have enough credit.</title>
  <detail>Your current balance is 30, but that costs 50.</detail>
  <instance>https://example.net/account/12345/msgs/abc</instance>
  <balance>30</balance>
  <accounts>
    <i>https://example.net/account/12345</i>
    <i>https://example.net/account/67890</i>
  </accounts>
</problem>`
	// humaErrorModel is what huma v2's ErrorModel renders for a validation
	// failure.
	humaErrorModel = `{"$schema":"https://api.example.com/schemas/ErrorModel.json","title":"Unprocessable Entity","status":422,"detail":"validation failed","errors":[{"message":"expected number","location":"body.count","value":"abc"}]}`
)

func TestReadErrorRFC9457Examples(t *testing.T) {
	t.Run("out of credit, no status", func(t *testing.T) {
		requireLenientParse(t, rfcOutOfCredit)
		res := get(t, 403, map[string]string{"Content-Type": "application/problem+json", "X-Request-Id": "c-1"}, rfcOutOfCredit)
		p, re := readProblem(t, res)
		if re.Err != nil || p.Title() != "You do not have enough credit." || p.Detail() != "Your current balance is 30, but that costs 50." ||
			p.Instance() != "/account/12345/msgs/abc" || p.CorrelationID() != "c-1" {
			t.Errorf("got %+v (err %v)", p, re.Err)
		}
		if v, ok := p.Extension("balance"); !ok || v == nil {
			t.Errorf("extension balance lost")
		}
		if got := client.Line(re); got != "http_403: Your current balance is 30, but that costs 50." {
			t.Errorf("Line = %q", got)
		}
	})
	t.Run("validation, no status", func(t *testing.T) {
		requireLenientParse(t, rfcValidation)
		res := get(t, 422, map[string]string{"Content-Type": "application/problem+json"}, rfcValidation)
		p, re := readProblem(t, res)
		if re.Err != nil || len(p.Errors()) != 2 || p.Errors()[1].Pointer != "#/profile/color" {
			t.Errorf("got errors %+v (err %v)", p.Errors(), re.Err)
		}
	})
	t.Run("out of credit as XML", func(t *testing.T) {
		res := get(t, 403, map[string]string{"Content-Type": "application/problem+xml"}, rfcOutOfCreditXML)
		p, re := readProblem(t, res)
		if re.Err != nil || p.Type() != "https://example.com/probs/out-of-credit" ||
			p.Detail() != "Your current balance is 30, but that costs 50." || p.Instance() != "https://example.net/account/12345/msgs/abc" {
			t.Errorf("got %+v (err %v)", p, re.Err)
		}
	})
}

func TestReadErrorForeignBodies(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		code, detail            string
		fieldErrors             int
	}{
		{"huma v2 ErrorModel", "application/problem+json", humaErrorModel, 422, "", "validation failed", 1},
		{"plain error", "application/json", `{"error": "database is read-only"}`, 503, "", "database is read-only", 0},
		{"oauth", "application/json; charset=utf-8", `{"error":"invalid_grant","error_description":"The refresh token expired."}`, 400, "invalid_grant", "The refresh token expired.", 0},
		{"legacy members", "application/json", `{"error":"rate_limited","message":"Slow down."}`, 429, "rate_limited", "Slow down.", 0},
		{"google", "application/json", `{"error":{"code":404,"message":"Book 7 not found.","status":"NOT_FOUND"}}`, 404, "", "Book 7 not found.", 0},
		{"github", "application/json", `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`, 401, "", "Bad credentials", 0},
		{"errors list", "application/vnd.api+json", `{"errors":[{"status":"409","message":"Version mismatch."}]}`, 409, "", "Version mismatch.", 0},
		{"problem under application/json", "application/json", `{"status":409,"code":"conflict","title":"Conflict","detail":"Order changed."}`, 409, "conflict", "Order changed.", 0},
		{"byte order mark before problem+json", "application/problem+json", "\ufeff" + `{"status":409,"code":"conflict","detail":"Order changed."}`, 409, "conflict", "Order changed.", 0},
		{"byte order mark before plain JSON", "application/json", "\ufeff" + `{"error":"rate_limited","message":"Slow down."}`, 429, "rate_limited", "Slow down.", 0},
		{"sentence in error is not a code", "application/json", `{"error":"Not Found: /v1/x","message":"no route"}`, 404, "", "no route", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := get(t, tc.status, map[string]string{"Content-Type": tc.contentType}, tc.body)
			p, re := readProblem(t, res)
			if re.Err != nil {
				t.Fatalf("Err = %v", re.Err)
			}
			if string(p.Code()) != tc.code || p.Message() != tc.detail || len(p.Errors()) != tc.fieldErrors {
				t.Errorf("code %q message %q errors %d, want %q %q %d", p.Code(), p.Message(), len(p.Errors()), tc.code, tc.detail, tc.fieldErrors)
			}
		})
	}
}

func TestReadErrorWithoutProblemBody(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		why                     string // in the error's text
	}{
		{"proxy html", "text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"},
		{"empty", "", "", "empty"},
		{"json without error members", "application/json", `{"ok":false}`, "without error members"},
		{"truncated problem", "application/problem+json", `{"status":502,"code":"upstr`, "malformed"},
		{"array", "application/json", `[1,2]`, "malformed: not a JSON object"},
		{"not xml", "application/problem+xml", `<problem><title>x</problem>`, "malformed"},
		{"wrong xml root", "application/problem+xml", `<html/>`, "malformed: root element <html>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := get(t, 502, map[string]string{"Content-Type": tc.contentType, "X-Error-Code": "upstream_error", "X-Request-Id": "r-9"}, tc.body)
			p, re := readProblem(t, res)
			if !errors.Is(re, client.ErrNoProblemBody) || !strings.Contains(re.Err.Error(), tc.why) {
				t.Errorf("Err = %v, want ErrNoProblemBody saying %q", re.Err, tc.why)
			}
			// Built from the status line and the headers.
			if p.Type() != "about:blank" || p.Title() != "Bad Gateway" || p.Code() != "upstream_error" || p.CorrelationID() != "r-9" {
				t.Errorf("got type %q title %q code %q correlation %q", p.Type(), p.Title(), p.Code(), p.CorrelationID())
			}
			if !strings.HasPrefix(re.Error(), "upstream_error: Bad Gateway (client: ") {
				t.Errorf("Error() = %q", re.Error())
			}
		})
	}
	t.Run("hostile code header", func(t *testing.T) {
		res := get(t, 500, map[string]string{"X-Error-Code": "x: y\u2028pwned"}, "")
		p, re := readProblem(t, res)
		if p.Code() != "" || client.Line(re) != "http_500: Internal Server Error" {
			t.Errorf("code %q line %q", p.Code(), client.Line(re))
		}
	})
}

func TestReadErrorRetryAfter(t *testing.T) {
	date := time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "3"}, "", 3 * time.Second},
		{"http-date against Date", map[string]string{"Retry-After": date.Add(90 * time.Second).Format(http.TimeFormat), "Date": date.Format(http.TimeFormat)}, "", 90 * time.Second},
		{"date in the past", map[string]string{"Retry-After": date.Format(http.TimeFormat), "Date": date.Add(time.Minute).Format(http.TimeFormat)}, "", 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, "", 0},
		{"negative", map[string]string{"Retry-After": "-5"}, "", 0},
		{"retry_after_ms wins", map[string]string{"Retry-After": "3", "Content-Type": "application/problem+json"}, `{"status":429,"code":"rate_limited","retry_after_ms":2400}`, 2400 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := get(t, 429, tc.header, tc.body)
			p, _ := readProblem(t, res)
			if p.RetryAfter() != tc.want {
				t.Errorf("RetryAfter = %s, want %s", p.RetryAfter(), tc.want)
			}
		})
	}
	t.Run("http-date against the clock", func(t *testing.T) {
		res := get(t, 503, map[string]string{"Retry-After": date.Add(time.Minute).Format(http.TimeFormat)}, "")
		res.Header.Del("Date")
		err := client.ReadWith(client.Reader{Now: func() time.Time { return date }}, res)
		var p *problem.Problem
		if !errors.As(err, &p) || p.RetryAfter() != time.Minute {
			t.Errorf("got %v", err)
		}
	})
}

func TestReadErrorHugeBody(t *testing.T) {
	huge := `{"status":500,"code":"internal","detail":"` + strings.Repeat("x", 1<<20) + `"}`
	res := get(t, 500, map[string]string{"Content-Type": "application/problem+json", "X-Error-Code": "internal"}, huge)
	err := client.ReadWith(client.Reader{Limit: 1 << 10}, res)
	if !errors.Is(err, client.ErrNoProblemBody) || !strings.Contains(err.Error(), "exceeds the limit (1024 bytes)") {
		t.Fatalf("ReadError = %v, want ErrNoProblemBody over the limit", err)
	}
	var p *problem.Problem
	if !errors.As(err, &p) || p.Status() != 500 || p.Code() != "internal" {
		t.Errorf("problem %+v", p)
	}
	// Nothing is lost for a caller that wants the whole body.
	b, rerr := io.ReadAll(res.Body)
	if rerr != nil || string(b) != huge {
		t.Errorf("body after ReadError: %d bytes, err %v; want %d", len(b), rerr, len(huge))
	}
}

// TestReadErrorStalledBody: a server that sends its headers and then
// nothing cannot hang the reader.
func TestReadErrorStalledBody(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(503)
		_, _ = io.WriteString(w, `{"status":503,`)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	start := time.Now()
	err = client.ReadWith(client.Reader{Timeout: 50 * time.Millisecond}, res)
	if !errors.Is(err, client.ErrNoProblemBody) || !strings.Contains(err.Error(), "reading it failed: no complete body within 50ms") {
		t.Fatalf("ReadError = %v, want ErrNoProblemBody for a read that timed out", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("took %s", waited)
	}
	var p *problem.Problem
	if !errors.As(err, &p) || p.Status() != 503 {
		t.Errorf("problem %+v", p)
	}
}

// TestReadErrorTextPlane reads the kit's plain-text proxy plane, field
// errors included; prose that merely looks like it is not read.
func TestReadErrorTextPlane(t *testing.T) {
	srv := kitServer(t, func(http.ResponseWriter, *http.Request) error {
		return problem.New(problem.ValidationFailed).WithErrors(
			problem.FieldError{Detail: "must be at least 1", Pointer: "/quantity", Code: "min"},
			problem.FieldError{Detail: "is required", Pointer: "/sku", Code: "required"})
	})
	req, _ := http.NewRequest("POST", srv.URL, nil)
	req.Header.Set("Accept", "text/plain")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	p, re := readProblem(t, res)
	if re.Err != nil || p.Code() != "validation_failed" || p.Action() != problem.ActionFixRequest || len(p.Errors()) != 2 ||
		p.Errors()[0].Pointer != "/quantity" || p.Errors()[0].Detail != "must be at least 1" {
		t.Errorf("got %+v (err %v)", p, re.Err)
	}

	prose := get(t, 503, map[string]string{"Content-Type": "text/plain"}, "Note: maintenance: back at 10:00\nsee: status page\n")
	p, re = readProblem(t, prose)
	if !errors.Is(re, client.ErrNoProblemBody) || p.Code() != "" || p.Action() != "" {
		t.Errorf("prose read as a problem: %+v (err %v)", p, re.Err)
	}
}

// A Reader is configured once, on the Transport: ReadError on the response
// a Transport returned gives what the Transport read with it, and without
// a Transport ReadError keeps its defaults.
func TestReadErrorUsesTheTransportsReader(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("X-Trace-Ref", "trace-4711")
		w.Header().Set("X-Failure", "policy_denied")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "<html>"+strings.Repeat("denied ", 40)+"</html>")
	}))
	defer srv.Close()
	rd := client.Reader{CorrelationHeader: "X-Trace-Ref", CodeHeader: "X-Failure", Limit: 64}
	hc := &http.Client{Transport: client.NewTransport(nil, client.WithReader(rd), client.WithLogger(quiet))}
	for name, c := range map[string]*http.Client{"transport": hc, "plain": http.DefaultClient} {
		res, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		err = client.ReadError(res)
		res.Body.Close()
		var p *problem.Problem
		if !errors.As(err, &p) || p.Status() != 403 {
			t.Fatalf("%s: %v", name, err)
		}
		configured := name == "transport"
		if (p.CorrelationID() == "trace-4711") != configured || (p.Code() == "policy_denied") != configured {
			t.Errorf("%s: correlation %q code %q", name, p.CorrelationID(), p.Code())
		}
		if strings.Contains(err.Error(), "exceeds the limit (64 bytes)") != configured {
			t.Errorf("%s: %v", name, err)
		}
	}
}
