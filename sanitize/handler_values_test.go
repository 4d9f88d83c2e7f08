package sanitize

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

type dbConfig struct {
	Host     string
	User     string
	Password string `json:"-"`
	Port     int
}

type session struct {
	User  string `json:"user"`
	token string
}

type tokenJSON struct{ raw string }

func (t tokenJSON) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"access_token": t.raw})
}

// An attribute's key names its value: the same pair a message would
// have redacted as "key=value" is redacted as an attribute, whatever the
// value looks like alone, in both of slog's handlers.
func TestLogHandlerReadsKeyAndValueTogether(t *testing.T) {
	secrets := []string{"hunter2", "Zq8wLm3n", "tok_4f9a2b7c", "s3ss10n-c00k1e", "87654321", "p4ss w0rd", "raw-bytes-pw"}
	for _, mk := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
	} {
		var buf bytes.Buffer
		log := slog.New(NewLogHandler(mk.new(&buf)))
		log.Info("login",
			"password", "hunter2",
			"apiKey", "Zq8wLm3n",
			slog.Group("upstream", "access_token", "tok_4f9a2b7c", "region", "eu-west-1"),
			"Cookie", "s3ss10n-c00k1e",
			"passphrase", 87654321,
			"db_password", "p4ss w0rd",
			"client_secret", []byte("raw-bytes-pw"),
			"user", "alice", "token_count", 5, "password_set", true, "cache_key", "user:42:profile",
			"key", "orders", "auth", "basic",
		)
		out := buf.String()
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s: output keeps %q:\n%s", mk.name, s, out)
			}
		}
		for _, kept := range []string{"alice", "eu-west-1", "token_count", "password_set", "user:42:profile", "orders", "basic"} {
			if !strings.Contains(out, kept) {
				t.Errorf("%s: output lost %q:\n%s", mk.name, kept, out)
			}
		}
	}
}

// A map, struct or slice is read as the next handler would write it: the
// text handler's %+v shows fields json ignores and unexported ones, the
// JSON handler's marshalling shows what MarshalJSON adds.
func TestLogHandlerReadsCompositeValues(t *testing.T) {
	var jbuf, tbuf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&jbuf, nil), slog.NewTextHandler(&tbuf, nil)} {
		slog.New(NewLogHandler(h)).Info("call",
			"headers", map[string]string{"Authorization": "Bearer abcdef123456", "Accept": "application/json"},
			"cfg", dbConfig{Host: "db", User: "app", Password: "Pr1vatePw!", Port: 5432},
			"sess", &session{User: "bob", token: "ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
			"grant", tokenJSON{raw: "Xq7fK2mLp9sR4tVw8zYb"},
			"dsns", []string{"postgres://svc:Hunter2Pw@10.0.0.1/db"},
			"plain", map[string]int{"retries": 3},
		)
	}
	for name, out := range map[string]string{"json": jbuf.String(), "text": tbuf.String()} {
		for _, s := range []string{"abcdef123456", "Pr1vatePw!", "16C7e42F292c6912E7710c838347Ae178B4a", "Xq7fK2mLp9sR4tVw8zYb", "Hunter2Pw"} {
			if strings.Contains(out, s) {
				t.Errorf("%s: output keeps %q:\n%s", name, s, out)
			}
		}
		if !strings.Contains(out, "retries") || !strings.Contains(out, "application/json") {
			t.Errorf("%s: output lost clean members:\n%s", name, out)
		}
	}
	// A composite the tier leaves alone keeps its structure in JSON.
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(jbuf.String())), &rec); err != nil {
		t.Fatal(err)
	}
	if plain, ok := rec["plain"].(map[string]any); !ok || plain["retries"] != 3.0 {
		t.Errorf("plain = %#v, want the map as it was", rec["plain"])
	}
	if _, ok := rec["grant"].(map[string]any); !ok {
		t.Errorf("grant = %#v, want raw JSON with its token redacted", rec["grant"])
	}
}

// An error under a credential's key keeps its text when the text is no
// credential: "auth" failing says why.
func TestLogHandlerKeepsErrorsUnderCredentialKeys(t *testing.T) {
	var buf bytes.Buffer
	slog.New(NewLogHandler(slog.NewJSONHandler(&buf, nil))).Error("login", "auth", errors.New("token expired"), "token", errors.New("Zq8wLm3nXp2Kd9"))
	out := buf.String()
	if !strings.Contains(out, `"auth":"token expired"`) || strings.Contains(out, "Zq8wLm3nXp2Kd9") {
		t.Errorf("record = %s", out)
	}
}

// LogAttr reads its key with its value as the handler does, and a marked
// value moved under a credential's key is read again under it.
func TestLogAttrReadsKeyAndValueTogether(t *testing.T) {
	if got := LogAttr("password", "hunter2").Value.Resolve().String(); got != Redacted {
		t.Errorf("LogAttr(password, hunter2) = %q", got)
	}
	if got := LogAttr("note", "hunter2").Value.Resolve().String(); got != "hunter2" {
		t.Errorf("LogAttr(note, hunter2) = %q", got)
	}
	moved := LogAttr("note", "Zq8wLm3nXp")
	moved.Key = "api_key"
	var buf bytes.Buffer
	slog.New(NewLogHandler(slog.NewJSONHandler(&buf, nil))).Info("m", moved)
	if strings.Contains(buf.String(), "Zq8wLm3nXp") {
		t.Errorf("moved under api_key: %s", buf.String())
	}
}
