package sanitize

import (
	"bytes"
	"log/slog"
	"testing"
	"time"
)

// LogAttr's attribute reads as its key and value through the log tier,
// through any handler: a plain JSON handler, the sanitize handler (which
// passes it without a second look), or the sanitize handler after the
// marked value was moved under another key, whose key the handler then
// checks.
func FuzzLogAttr(f *testing.F) {
	f.Add("error", "dial postgres://app:hunter2@10.1.2.3:5432/orders: refused", "path")
	f.Add("password=hunter2", "line\nforged", "token ghp_16C7e42F292c6912E7710c838347Ae178B4a")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, key, value, other string) {
		// A zero time leaves the time out of the line.
		log := func(h slog.Handler, a slog.Attr) {
			r := slog.NewRecord(time.Time{}, slog.LevelInfo, "m", 0)
			r.AddAttrs(a)
			if err := h.Handle(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
		a := LogAttr(key, value)
		if a.Key != Log(key) || a.Value.Resolve().String() != attrText(key, value) {
			t.Fatalf("LogAttr(%q, %q) = %q=%q", key, value, a.Key, a.Value.Resolve())
		}
		var want, plain, through bytes.Buffer
		log(slog.NewJSONHandler(&want, nil), slog.String(Log(key), attrText(key, value)))
		log(slog.NewJSONHandler(&plain, nil), a)
		log(NewLogHandler(slog.NewJSONHandler(&through, nil)), a)
		if plain.String() != want.String() || through.String() != want.String() {
			t.Fatalf("plain %s through %s want %s", plain.String(), through.String(), want.String())
		}
		moved := a
		moved.Key = other
		want.Reset()
		through.Reset()
		movedText := attrText(key, value)
		if credentialText(other, movedText) {
			movedText = Redacted
		}
		log(slog.NewJSONHandler(&want, nil), slog.String(Log(other), movedText))
		log(NewLogHandler(slog.NewJSONHandler(&through, nil)), moved)
		if through.String() != want.String() {
			t.Fatalf("moved under %q: %s, want %s", other, through.String(), want.String())
		}
	})
}
