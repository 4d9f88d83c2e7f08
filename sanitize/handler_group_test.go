package sanitize

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// A group named like a credential holds it in a member that names nothing
// of its own: slog.Group("password", "value", pw), or a logger's
// WithGroup("api_key") and then "value". The member goes; a member with a
// name of its own ("user", "expires") stays, and so does a holder in a
// group that names no credential.
func TestGroupNamedLikeACredentialHidesItsHolders(t *testing.T) {
	const pw = "correct horse battery staple"
	for _, json := range []bool{true, false} {
		var buf bytes.Buffer
		var next slog.Handler = slog.NewTextHandler(&buf, nil)
		if json {
			next = slog.NewJSONHandler(&buf, nil)
		}
		l := slog.New(NewLogHandler(next))
		l.Info("login", slog.Group("password", "value", pw, "user", "bob"))
		l.Info("login", slog.Group("db", slog.Group("api_key", "Data", pw)))
		l.WithGroup("client_secret").Info("rotated", "value", pw, "expires", "2026-12-31")
		l.WithGroup("token").With("raw", pw).Info("seen")
		l.Info("plain", slog.Group("config", "value", "eu-west-1"))
		out := buf.String()
		if strings.Contains(out, "horse") {
			t.Errorf("json=%v: a holder kept the credential:\n%s", json, out)
		}
		for _, kept := range []string{"bob", "2026-12-31", "eu-west-1"} {
			if !strings.Contains(out, kept) {
				t.Errorf("json=%v: %q lost:\n%s", json, kept, out)
			}
		}
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: ReplaceAttr})).Info("login", slog.Group("passphrase", "value", pw))
	if strings.Contains(buf.String(), "horse") {
		t.Errorf("ReplaceAttr kept the credential: %s", buf.String())
	}
}
