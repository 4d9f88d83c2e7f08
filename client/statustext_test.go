package client_test

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/client"
)

// TestLineOfAStatusWithoutAName: statuses that net/http has no text for
// are common behind proxies (nginx's 499, Cloudflare's 520-530, 599). A
// response with such a status and no message of its own rendered as
// "http_520: ", with nothing after the colon, although a ResponseError
// promises Line always has a message. The class of the status names it.
func TestLineOfAStatusWithoutAName(t *testing.T) {
	srv := foreignServer(t, func(w http.ResponseWriter, r *http.Request) {
		status, _ := strconv.Atoi(r.URL.Query().Get("status"))
		media, body, _ := strings.Cut(r.URL.Query().Get("body"), "|")
		if media != "" {
			w.Header().Set("Content-Type", media)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	})
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{499, "application/problem+json|{\"status\":499}", "Client Error"},
		{420, "", "Client Error"},
		{520, "text/html|<html><body>origin error</body></html>", "Server Error"},
		{530, "application/json|{}", "Server Error"},
		{599, "", "Server Error"},
		{502, "", "Bad Gateway"},
	} {
		res, err := http.Get(srv.URL + "?status=" + strconv.Itoa(tc.status) + "&body=" + url.QueryEscape(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		p, re := readProblem(t, res)
		res.Body.Close()
		want := "http_" + strconv.Itoa(tc.status) + ": " + tc.want
		if line := client.Line(re); line != want {
			t.Errorf("%d %q: line %q, want %q", tc.status, tc.body, line, want)
		}
		if p.Title() == "" {
			t.Errorf("%d %q: no title", tc.status, tc.body)
		}
	}
}
