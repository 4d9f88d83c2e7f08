package problem_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/corrstate"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// A correlation ID the problem names itself (a literal, or a field set on
// an occurrence of New) passes the public tier on every path: the body in
// each representation, the echoed header, the log and Report. The
// request's own ID goes out as it was accepted.
func TestLiteralCorrelationIDPassesThePublicTier(t *testing.T) {
	secrets := []struct{ id, secret string }{
		{"password=hunter2", "hunter2"},
		{"api_key=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
		{"req from 10.20.30.40", "10.20.30.40"},
		{"token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "eyJhbGciOiJIUzI1NiJ9"},
	}
	var logs bytes.Buffer
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	var current string
	var built func(id string) *problem.Problem
	h := correlation.Middleware()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wr.Write(w, r, built(current))
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	builders := map[string]func(id string) *problem.Problem{
		"peer's": func(id string) *problem.Problem {
			return peerDoc(map[string]any{"code": "not_found", "correlation_id": id})
		},
		"peer's with a detail": func(id string) *problem.Problem {
			return peerDoc(map[string]any{"code": "conflict", "detail": "Taken.", "correlation_id": id})
		},
		"unregistered": func(id string) *problem.Problem {
			return peerDoc(map[string]any{"code": "no_such_code_here", "correlation_id": id})
		},
	}
	for name, b := range builders {
		built = b
		for _, s := range secrets {
			current = s.id
			for _, accept := range []string{"application/json", "application/problem+xml", "text/plain"} {
				logs.Reset()
				req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
				req.Header.Set("Accept", accept)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !bytes.Contains(body, []byte("correlation_id")) {
					t.Fatalf("%s %s: no correlation_id in %q", name, accept, body)
				}
				for where, text := range map[string]string{
					"body": string(body), "header": resp.Header.Get(correlation.DefaultHeader), "log": logs.String(),
				} {
					if strings.Contains(text, s.secret) {
						t.Errorf("%s %q (%s): %s carries the secret: %q", name, s.id, accept, where, text)
					}
				}
			}
			p := b(s.id)
			for where, out := range map[string][]byte{
				"AppendJSON": p.AppendJSON(nil), "AppendXML": problem.AppendXML(p, nil), "AppendText": problem.AppendText(p, nil, "svc"),
				"Report": wr.Report(context.Background(), "", p).AppendJSON(nil),
			} {
				if bytes.Contains(out, []byte(s.secret)) {
					t.Errorf("%s %q: %s carries the secret: %s", name, s.id, where, out)
				}
			}
		}
	}

	// The request's own ID, accepted by the correlation layer, is echoed
	// unchanged, also when the problem repeats it.
	for _, own := range []string{"req-7f3a9c21e4", "0193b1c2-7d1e-7a3b-9c4d-5e6f70819203", "YWJjZGVmZ2hpams="} {
		built = func(string) *problem.Problem { return problem.New(problem.NotFound) }
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
		req.Header.Set(correlation.DefaultHeader, own)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(body, []byte(`"correlation_id":"`+own+`"`)) || resp.Header.Get(correlation.DefaultHeader) != own {
			t.Errorf("own ID %q: header %q body %s", own, resp.Header.Get(correlation.DefaultHeader), body)
		}
	}
}

// A peer's type or title is text like any other: it passes the public tier
// in every representation, with or without a Writer; what the registry gave
// is sent as it is.
func TestPeerTypeAndTitlePassThePublicTier(t *testing.T) {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	for _, secret := range []string{"hunter2", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "10.20.30.40"} {
		members := map[string]any{"code": "conflict", "title": "Taken, password=" + secret, "type": "https://x.test/p?api_key=" + secret}
		if secret == "10.20.30.40" {
			members["title"], members["type"] = "Taken by "+secret, "https://"+secret+"/p"
		}
		p := peerDoc(members)
		rec := httptest.NewRecorder()
		_ = wr.Write(rec, httptest.NewRequest("GET", "/x", nil), p)
		for where, out := range map[string][]byte{
			"AppendJSON": p.AppendJSON(nil), "AppendXML": problem.AppendXML(p, nil), "AppendText": problem.AppendText(p, nil, "svc"),
			"Write": rec.Body.Bytes(),
		} {
			if bytes.Contains(out, []byte(secret)) {
				t.Errorf("%s carries %q: %s", where, secret, out)
			}
		}
	}
	rec := httptest.NewRecorder()
	_ = wr.Write(rec, httptest.NewRequest("GET", "/x", nil), problem.New(problem.Conflict))
	if !bytes.Contains(rec.Body.Bytes(), []byte(`"type":"`+problem.DefaultBaseURI+`conflict","title":"`+definition(problem.Conflict).Title+`"`)) {
		t.Errorf("registry type and title changed: %s", rec.Body)
	}
}

// peerDoc is the problem Parse reads from a peer's document of these
// members: the one way a correlation ID the writer did not accept reaches
// a Problem.
func peerDoc(members map[string]any) *problem.Problem {
	b, err := json.Marshal(members)
	if err != nil {
		panic(err)
	}
	return peer(string(b))
}

// TestAcceptedCorrelationIDRendersAsJSON: the ID the correlation layer
// accepted (an inbound one of every byte correlation.Valid allows, or one
// it generated) is copied into the body without a pass for escapes; over
// real HTTP the body carries it exactly as encoding/json writes it. An ID
// a context names with correlation.WithID is trusted, not checked, and is
// still escaped.
func TestAcceptedCorrelationIDRendersAsJSON(t *testing.T) {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	fail := wr.Handler(func(http.ResponseWriter, *http.Request) error { return problem.NotFound })
	hostile := correlation.Middleware()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Inside the correlation layer, a context naming its own ID.
		fail(w, r.WithContext(correlation.WithID(r.Context(), `id"<x>&\`+"\u2028")))
	}))
	for _, c := range []struct {
		name    string
		h       http.Handler
		inbound string
	}{
		{"alphabet", correlation.Middleware()(fail), "AZaz09._~+/=-azAZ"},
		{"uuid", correlation.Middleware()(fail), "0192f1c3-7a1e-7c3b-9f00-1234567890ab"},
		{"generated", correlation.Middleware()(fail), ""},
		{"rejected then generated", correlation.Middleware()(fail), `bad"id<script>`},
		{"with id", hostile, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.h)
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
			if c.inbound != "" {
				req.Header.Set(correlation.DefaultHeader, c.inbound)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var doc struct {
				CorrelationID string `json:"correlation_id"`
			}
			if err := json.Unmarshal(body, &doc); err != nil || doc.CorrelationID == "" {
				t.Fatalf("body %s: %v", body, err)
			}
			if c.inbound != "" && correlation.Valid(c.inbound) && doc.CorrelationID != c.inbound {
				t.Fatalf("correlation_id %q, want the inbound %q", doc.CorrelationID, c.inbound)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			_ = enc.Encode(doc.CorrelationID)
			member := `"correlation_id":` + strings.TrimSuffix(want.String(), "\n")
			if c.name == "with id" {
				// The kit escapes what encoding/json leaves (U+2028, as
				// valid JavaScript needs), so only the quote is compared.
				member = `"correlation_id":"id\"\u003cx\u003e\u0026\\`
			}
			if !bytes.Contains(body, []byte(member)) {
				t.Fatalf("body %s lacks %s", body, member)
			}
		})
	}
}

// TestGeneratedIDsPassTheLogTier is why a generated correlation ID goes
// into the record without a pass of the log tier: the tier answers every
// UUIDv7 the correlation layer makes with the ID itself.
func TestGeneratedIDsPassTheLogTier(t *testing.T) {
	for range 20000 {
		if id := corrstate.NewID(); sanitize.Log(id) != id {
			t.Fatalf("Log(%q) = %q", id, sanitize.Log(id))
		}
	}
}

// TestRecordCorrelationIDPassesTheLogTier: over real HTTP, the record's
// correlation_id is the log tier's text of the ID whether the layer
// generated it or took it from the request, through a handler that does
// not redact. An inbound ID shaped like a token is refused for a fresh one,
// so the record and the response carry the same ID and the token neither.
func TestRecordCorrelationIDPassesTheLogTier(t *testing.T) {
	for _, inbound := range []string{"", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "req-0001-abcd"} {
		var logs bytes.Buffer
		wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
		srv := httptest.NewServer(correlation.Middleware()(wr.Handler(func(http.ResponseWriter, *http.Request) error {
			return errors.New("boom")
		})))
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
		if inbound != "" {
			req.Header.Set(correlation.DefaultHeader, inbound)
		}
		res, err := http.DefaultClient.Do(req)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		id := res.Header.Get(correlation.DefaultHeader)
		var rec struct {
			CorrelationID string `json:"correlation_id"`
		}
		if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
			t.Fatalf("%v: %s", err, logs.Bytes())
		}
		kept := inbound != "" && sanitize.Log(inbound) == inbound
		if rec.CorrelationID != id || !correlation.Valid(id) || kept != (id == inbound) {
			t.Errorf("inbound %q: header %q, record %q, want the same valid ID (the inbound one: %v)", inbound, id, rec.CorrelationID, kept)
		}
		if strings.Contains(logs.String(), "ghp_abcdefghijklmnop") {
			t.Errorf("inbound %q: token in the record: %s", inbound, logs.Bytes())
		}
	}
}
