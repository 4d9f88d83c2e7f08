package middleware

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

type panicConfig struct {
	Host     string
	Password string
}

type panicSession struct {
	User  string
	Token string `json:"token"`
}

// A panic with a struct, map or slice is logged with its field names and
// each value under a credential's name redacted whole, as sanitize's log
// handler writes such a value: fmt's %v wrote a struct's values bare
// ("{db correct horse battery}"), where the log tier cannot tell the
// password from the host, and the tier read a map's spaced passphrase
// only up to its first space.
func TestPanicWithACompositeValueKeepsItsSecrets(t *testing.T) {
	cases := []struct {
		value  any
		secret []string
		keep   string
	}{
		{panicConfig{"db.internal", "correct horse battery"}, []string{"horse", "battery"}, "db.internal"},
		{&panicConfig{"cache.internal", "Zq8wLm3n"}, []string{"Zq8wLm3n"}, "cache.internal"},
		{map[string]string{"passphrase": "purple monkey dish", "region": "eu-west-1"}, []string{"monkey", "dish"}, "eu-west-1"},
		{[]panicSession{{User: "alice", Token: "tok en 42"}}, []string{"en 42"}, "alice"},
	}
	for _, c := range cases {
		k := newKit()
		srv := k.serve(t, Stack(WithWriter(k.writer))(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			panic(c.value)
		})))
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		logs := k.logs.String()
		for _, s := range c.secret {
			if strings.Contains(logs, s) || strings.Contains(string(body), s) {
				t.Errorf("%#v: %q reached the log or the client:\n%s", c.value, s, logs)
			}
		}
		if !strings.Contains(logs, c.keep) {
			t.Errorf("%#v: the log lost %q:\n%s", c.value, c.keep, logs)
		}
	}
}
