package sanitize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

type stringer string

func (s stringer) String() string { return string(s) }

type panicky struct{}

func (*panicky) Error() string { panic("boom") }

func TestLogHandlerJSON(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewLogHandler(slog.NewJSONHandler(&buf, nil)))

	log = log.With("dsn", "postgres://app:S3cretPw@db:5432/x").WithGroup("req")
	log.Info("login password=hunter2\nforged=line",
		"auth", "Bearer abcdef123456",
		slog.Group("http", "cookie", "Cookie: sid=c00k1e", "peer", "10.0.0.5"),
		"err", errors.New("dial: token=t0ps3cr3t"),
		"who", stringer("ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
		"count", 3,
		"nilerr", (*panicky)(nil),
	)
	log.Warn("second", "k", "v")

	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %d:\n%s", len(lines), out)
	}
	for _, secret := range []string{"S3cretPw", "hunter2", "abcdef123456", "c00k1e", "t0ps3cr3t", "16C7e42F292c6912E7710c838347Ae178B4a"} {
		if strings.Contains(out, secret) {
			t.Errorf("output leaks %q:\n%s", secret, out)
		}
	}

	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if got := rec["msg"]; got != `login password=[redacted]\nforged=line` {
		t.Errorf("msg = %q", got)
	}
	if got := rec["dsn"]; got != "postgres://[redacted]@db:5432/x" {
		t.Errorf("dsn = %q (WithAttrs)", got)
	}
	req, _ := rec["req"].(map[string]any)
	if req == nil {
		t.Fatalf("group req missing: %s", lines[0])
	}
	http, _ := req["http"].(map[string]any)
	if http["peer"] != "10.0.0.5" {
		t.Errorf("IP must stay in logs: %v", http["peer"])
	}
	if req["count"] != float64(3) {
		t.Errorf("count = %v", req["count"])
	}
	if req["err"] != "dial: token=[redacted]" {
		t.Errorf("err = %v", req["err"])
	}
	if req["nilerr"] != "<nil>" {
		t.Errorf("nilerr = %v", req["nilerr"])
	}
}

func TestLogHandlerEnabled(t *testing.T) {
	h := NewLogHandler(slog.NewJSONHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if h.Enabled(context.Background(), slog.LevelInfo) || !h.Enabled(context.Background(), slog.LevelError) {
		t.Fatal("Enabled must follow the wrapped handler")
	}
}

func TestReplaceAttr(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: ReplaceAttr}))
	log.Error("boom\nINFO fake", "err", errors.New("password=x1"), slog.Group("g", "c", "Cookie: a=b"))
	out := buf.String()
	if strings.Count(out, "\n") != 1 || strings.Contains(out, "x1") || strings.Contains(out, "a=b") {
		t.Fatalf("got %q", out)
	}
	if !strings.Contains(out, "level=ERROR") {
		t.Fatalf("level lost: %q", out)
	}
}

// LogAttr's value is already sanitized: through the handler or straight to
// a plain handler it reads the same, and never the secret.
func TestLogAttr(t *testing.T) {
	const raw = "dial postgres://app:S3cretPw@10.0.0.5:5432/x\nnext"
	want := Log(raw)
	for name, h := range map[string]func(*bytes.Buffer) slog.Handler{
		"through NewLogHandler": func(b *bytes.Buffer) slog.Handler { return NewLogHandler(slog.NewJSONHandler(b, nil)) },
		"plain JSON handler":    func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
	} {
		var buf bytes.Buffer
		slog.New(h(&buf)).Info("m", LogAttr("error", raw))
		var rec map[string]any
		if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["error"] != want || strings.Contains(buf.String(), "S3cretPw") || !strings.Contains(want, "10.0.0.5") {
			t.Errorf("%s: error = %q, want %q", name, rec["error"], want)
		}
	}
}

// LogAttr's mark covers the key it was made under: its own key passes the
// log tier, and the marked value moved under another key does not carry
// that key past the handler.
func TestLogAttrKey(t *testing.T) {
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("m", LogAttr("password=hunter2", "v"))
	if strings.Contains(buf.String(), "hunter2") {
		t.Errorf("LogAttr kept a secret in its key: %s", buf.String())
	}
	buf.Reset()
	moved := LogAttr("k", "v")
	moved.Key = "password=hunter2"
	slog.New(NewLogHandler(slog.NewJSONHandler(&buf, nil))).Info("m", moved)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "hunter2") || !strings.Contains(buf.String(), `"v"`) {
		t.Errorf("a marked value under another key: %s", buf.String())
	}
}

type countingStringer struct{ n *int }

func (c countingStringer) String() string { *c.n++; return "token=t0ps3cr3t" }

type secretValuer struct{}

func (secretValuer) LogValue() slog.Value { return slog.StringValue("Bearer abcdef123456") }

// Clean attributes are kept as they were around one that changes, a value is
// turned into text once, and a LogValuer's text is checked, not passed on to
// be resolved again.
func TestLogHandlerRebuildsAroundChanges(t *testing.T) {
	var buf bytes.Buffer
	calls := 0
	slog.New(NewLogHandler(slog.NewJSONHandler(&buf, nil))).Info("m",
		"a", 1, "b", "plain", "c", "x", "d", "y", "e", "z", "f", "w",
		"s", countingStringer{&calls},
		"v", secretValuer{},
		slog.Group("g", "ok", "fine", "pw", "password=hunter2"),
		"after", "kept",
	)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("String called %d times", calls)
	}
	for _, secret := range []string{"t0ps3cr3t", "abcdef123456", "hunter2"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("output leaks %q: %s", secret, buf.String())
		}
	}
	g, _ := rec["g"].(map[string]any)
	if rec["a"] != float64(1) || rec["f"] != "w" || rec["after"] != "kept" || g["ok"] != "fine" {
		t.Errorf("clean attributes lost: %s", buf.String())
	}
}

// A record the log tier leaves as it is goes on as it is: no allocation.
func TestLogHandlerPassesCleanRecords(t *testing.T) {
	h := NewLogHandler(slog.DiscardHandler)
	r := slog.NewRecord(time.Now(), slog.LevelError, "problem", 0)
	r.AddAttrs(slog.String("code", "internal"), slog.Int("status", 500), slog.String("cause", "internal"),
		slog.String("action", "retry"), slog.String("correlation_id", "0193b1c2-7d1e-7a3b-9c4d-5e6f70819203"),
		slog.String("method", "GET"), slog.String("path", "/fail"),
		LogAttr("error", "dial postgres://app:pw@10.1.2.3:5432/orders"))
	ctx := context.Background()
	if n := testing.AllocsPerRun(100, func() { _ = h.Handle(ctx, r) }); n != 0 {
		t.Errorf("%v allocations for a clean record", n)
	}
}
