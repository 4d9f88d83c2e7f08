package sanitize

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

type vaultConfig struct {
	Addr     string
	Password string
	Secret   string `json:"client_secret"`
	Backup   *vaultConfig
	Keys     []string `json:"api_keys"`
	Raw      []byte   `json:"token"`
	private  string
}

type chain struct {
	Name     string
	Password string
	Next     *chain
}

// A field or map key names its value as an attribute's key does: a
// passphrase under Password is redacted whole in a struct or a map, at any
// depth, not only its first word, in both of slog's handlers.
func TestLogHandlerRedactsCompositeFieldsWhole(t *testing.T) {
	loop := &chain{Name: "loop", Password: "violet kestrel upon glacier"}
	loop.Next = loop
	values := []struct {
		v    any
		keep string
	}{
		{vaultConfig{Addr: "vault:8200", Password: "correct horse battery staple"}, "vault:8200"},
		{&vaultConfig{Addr: "vault:8200", Secret: "amber falcon river"}, "vault:8200"},
		{vaultConfig{Addr: "vault:8200", Backup: &vaultConfig{Password: "seven lazy otters"}}, "vault:8200"},
		{vaultConfig{Addr: "vault:8200", Keys: []string{"quiet", "marble", "lantern"}}, "vault:8200"},
		{vaultConfig{Addr: "vault:8200", Raw: []byte("crisp autumn meadow")}, "vault:8200"},
		{vaultConfig{Addr: "vault:8200", private: "x", Password: `with "quotes" and \ slash`}, "vault:8200"},
		{map[string]string{"password": "purple monkey dishwasher", "user": "bob"}, "bob"},
		{map[string]any{"db": map[string]any{"Passphrase": "two words", "host": "db"}}, "host"},
		{[]map[string]string{{"api_key": "ab cd ef gh"}}, "api_key"},
		{loop, "loop"},
		{struct{ Host, Password any }{"db", wrappedValue{"lime cactus"}}, "db"},
		{map[string]any{"host": "db", "token": map[string]string{"v": "nine pebbles"}}, "db"},
	}
	words := []string{"horse", "battery", "staple", "falcon", "river", "lazy", "otters", "marble", "lantern",
		"autumn", "meadow", "quotes", "slash", "monkey", "dishwasher", "words", "cd ef", "kestrel", "glacier", "cactus", "pebbles"}
	for _, mk := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
	} {
		for _, v := range values {
			var buf bytes.Buffer
			slog.New(NewLogHandler(mk.new(&buf))).Info("config", "v", v.v)
			out := buf.String()
			for _, w := range words {
				if strings.Contains(out, w) {
					t.Errorf("%s: %#v logged %q:\n%s", mk.name, v.v, w, out)
				}
			}
			if !strings.Contains(out, v.keep) {
				t.Errorf("%s: %#v lost %q:\n%s", mk.name, v.v, v.keep, out)
			}
		}
	}
}

type wrappedValue struct{ Value string }

// A map, struct or slice under a key that names a credential is read with
// that key, as a string would be: slog.Any("password", []string{pw}) went
// out as it was, since the tier read "[pw]" without its key.
func TestLogHandlerReadsCompositesWithTheirKey(t *testing.T) {
	for _, mk := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
	} {
		var buf bytes.Buffer
		slog.New(NewLogHandler(mk.new(&buf))).Info("login",
			slog.Any("password", wrappedValue{"abc def"}),
			slog.Any("token", []string{"qx rv"}),
			slog.Any("api_key", map[string]string{"primary": "k1k2k3k4"}),
			slog.Any("db_password", &wrappedValue{"Pw9z8y7"}),
			slog.Any("client_secret", [2]string{"s1s2s3s4", "t5t6t7t8"}),
			slog.Any("key", []string{"orders", "users"}),
			slog.Any("limits", map[string]int{"retries": 3}),
		)
		out := buf.String()
		for _, s := range []string{"abc def", "qx rv", "k1k2k3k4", "Pw9z8y7", "s1s2s3s4", "t5t6t7t8"} {
			if strings.Contains(out, s) {
				t.Errorf("%s: output keeps %q:\n%s", mk.name, s, out)
			}
		}
		for _, kept := range []string{"orders", "users", "retries"} {
			if !strings.Contains(out, kept) {
				t.Errorf("%s: output lost %q:\n%s", mk.name, kept, out)
			}
		}
	}
}

type bulkReport struct {
	Items []string
	Auth  struct{ Password string }
}

// A credential deep in a large composite is found wherever the log tier
// still reads the rendering: the walk stopped after 4096 values while the
// tier keeps 64 KiB, so a password after 5000 short items kept all but its
// first word.
func TestLogHandlerFindsFieldsThroughoutWhatTheTierKeeps(t *testing.T) {
	for _, n := range []int{5000, 12000} {
		var r bulkReport
		r.Items = make([]string, n)
		for i := range r.Items {
			r.Items[i] = "ok"
		}
		r.Auth.Password = "quiet orange lamp"
		var buf bytes.Buffer
		slog.New(NewLogHandler(slog.NewTextHandler(&buf, nil))).Info("report", "r", r)
		if out := buf.String(); strings.Contains(out, "orange") {
			t.Errorf("%d items: the password reached the log:\n%s", n, out[len(out)-200:])
		}
	}
}

type noteBytes []byte

// A byte slice of a named type (json.RawMessage, a []byte of the program's
// own) is text to slog's handlers as a []byte is: the text handler writes
// its bytes and the JSON handler their base64, so the tier reads it as
// text. It read "[112 97 ...]", the %+v of the slice, and passed the
// bytes on untouched.
func TestLogHandlerReadsNamedByteSlicesAsText(t *testing.T) {
	values := []struct {
		key   string
		value any
		leak  string
	}{
		{"note", noteBytes("password=hunter2 xyz"), "hunter2"},
		{"body", json.RawMessage(`dial postgres://app:Sup3rSecret@db/x`), "Sup3rSecret"},
		{"api_key", noteBytes("Zq8wLm3nXp"), "Zq8wLm3nXp"},
		{"body", json.RawMessage(`{"token":"ghp_16C7e42F292c6912E7710c838347Ae178B4a"}`), "16C7e42F292c6912E7710c838347Ae178B4a"},
	}
	for _, mk := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
	} {
		for _, v := range values {
			var buf bytes.Buffer
			slog.New(NewLogHandler(mk.new(&buf))).Info("call", v.key, v.value)
			raw := reflect.ValueOf(v.value).Bytes()
			out := buf.String()
			if strings.Contains(out, v.leak) || strings.Contains(out, base64.StdEncoding.EncodeToString(raw)) {
				t.Errorf("%s: %s=%s reached the log:\n%s", mk.name, v.key, raw, out)
			}
		}
	}
	var buf bytes.Buffer
	slog.New(NewLogHandler(slog.NewJSONHandler(&buf, nil))).Info("call", "body", values[3].value)
	if !strings.Contains(buf.String(), `"body":{"token":`) {
		t.Errorf("JSON that stays JSON after the tier lost its structure: %s", buf.String())
	}
}
