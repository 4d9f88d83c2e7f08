package correlation

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/faultline-go/faultline/internal/corrstate"
	"log/slog"
	"strings"
	"testing"
	"testing/slogtest"
)

const testTrace = "4bf92f3577b34da6a3ce929d0e0e4736"

func requestContext(id, trace string) context.Context {
	return &idContext{Context: context.Background(), req: corrstate.Request{ID: id, TraceID: trace}}
}

type jsonLog struct {
	buf bytes.Buffer
}

func (j *jsonLog) logger() *slog.Logger {
	return slog.New(NewHandler(slog.NewJSONHandler(&j.buf, nil)))
}

// lines returns the raw JSON lines, so duplicate keys (which a decode into a
// map would merge) stay visible.
func (j *jsonLog) lines() []string {
	return strings.Split(strings.TrimSuffix(j.buf.String(), "\n"), "\n")
}

func decode(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return m
}

func TestHandlerAddsIDs(t *testing.T) {
	var j jsonLog
	log := j.logger()
	log.InfoContext(requestContext("req-12345", testTrace), "hello", "k", 1)
	log.InfoContext(requestContext("req-67890", ""), "no trace")
	log.InfoContext(context.Background(), "no request")
	log.Info("no context")

	lines := j.lines()
	if len(lines) != 4 {
		t.Fatalf("got %d lines", len(lines))
	}
	m := decode(t, lines[0])
	if m[AttrKey] != "req-12345" || m[TraceAttrKey] != testTrace || m["k"] != 1.0 {
		t.Errorf("first record: %s", lines[0])
	}
	m = decode(t, lines[1])
	if _, has := m[TraceAttrKey]; m[AttrKey] != "req-67890" || has {
		t.Errorf("second record: %s", lines[1])
	}
	for _, l := range lines[2:] {
		if strings.Contains(l, AttrKey) {
			t.Errorf("record without a request has an ID: %s", l)
		}
	}
}

func TestHandlerTopLevelAfterWithGroup(t *testing.T) {
	var j jsonLog
	log := j.logger().With("service", "api").WithGroup("g").With("a", 1).WithGroup("h")
	log.InfoContext(requestContext("req-12345", testTrace), "grouped", "b", 2)

	var plain bytes.Buffer
	slog.New(slog.NewJSONHandler(&plain, nil)).With("service", "api").WithGroup("g").With("a", 1).WithGroup("h").
		Info("grouped", "b", 2)

	got, want := decode(t, j.lines()[0]), decode(t, plain.String())
	if got[AttrKey] != "req-12345" || got[TraceAttrKey] != testTrace {
		t.Fatalf("IDs not at the top level: %s", j.buf.String())
	}
	// Apart from the IDs, the output is what the wrapped handler's own
	// WithGroup produces.
	delete(got, AttrKey)
	delete(got, TraceAttrKey)
	delete(got, "time")
	delete(want, "time")
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Fatalf("grouped output differs:\n got %s\nwant %s", g, w)
	}
	if !strings.Contains(j.buf.String(), `"g":{"a":1,"h":{"b":2}}`) {
		t.Fatalf("group layout: %s", j.buf.String())
	}
}

func TestHandlerGroupWithoutAttrsIsOmitted(t *testing.T) {
	var j jsonLog
	j.logger().WithGroup("g").InfoContext(requestContext("req-12345", ""), "empty group")
	if m := decode(t, j.lines()[0]); m[AttrKey] != "req-12345" || m["g"] != nil {
		t.Fatalf("got %s", j.buf.String())
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandlerNoDuplicateKey(t *testing.T) {
	ctx := requestContext("req-12345", testTrace)
	for name, log := range map[string]func(*slog.Logger){
		"record attr": func(l *slog.Logger) { l.InfoContext(ctx, "explicit", AttrKey, "req-12345") },
		"attr":        func(l *slog.Logger) { l.LogAttrs(ctx, slog.LevelInfo, "explicit", slog.String(AttrKey, ID(ctx))) },
		"many attrs": func(l *slog.Logger) {
			l.InfoContext(ctx, "explicit", "a", 1, "b", 2, "c", 3, "d", 4, "e", 5, "f", 6, AttrKey, "req-12345", TraceAttrKey, testTrace)
		},
		"logger.With": func(l *slog.Logger) { l.With(AttrKey, "req-12345").InfoContext(ctx, "explicit") },
		// slog inlines a group without a key: its members are top-level.
		"inline group": func(l *slog.Logger) {
			l.InfoContext(ctx, "explicit", "a", 1, slog.Group("", AttrKey, "req-12345", slog.Group("", TraceAttrKey, testTrace)))
		},
		"logger.With inline group": func(l *slog.Logger) {
			l.With(slog.Group("", "a", 1, AttrKey, "req-12345"), slog.Group("", TraceAttrKey, testTrace)).InfoContext(ctx, "explicit")
		},
	} {
		t.Run(name, func(t *testing.T) {
			var j jsonLog
			log(j.logger())
			line := j.lines()[0]
			if n := strings.Count(line, `"`+AttrKey+`"`); n != 1 {
				t.Fatalf("%s appears %d times: %s", AttrKey, n, line)
			}
			if n := strings.Count(line, `"`+TraceAttrKey+`"`); n != 1 {
				t.Fatalf("%s appears %d times: %s", TraceAttrKey, n, line)
			}
		})
	}
}

func TestHandlerGroupedExplicitIDIsNotTopLevel(t *testing.T) {
	// A correlation_id inside a group is a different key path, so the
	// top-level one is still added.
	var j jsonLog
	j.logger().WithGroup("g").InfoContext(requestContext("req-12345", ""), "m", AttrKey, "other")
	if !strings.Contains(j.buf.String(), `"correlation_id":"req-12345","g":{"correlation_id":"other"}`) {
		t.Fatalf("got %s", j.buf.String())
	}
}

func TestHandlerDoesNotDisturbSiblings(t *testing.T) {
	var j jsonLog
	base := j.logger().WithGroup("g").With("a", 1)
	left, right := base.With("l", 1), base.With("r", 2)
	ctx := requestContext("req-12345", "")
	left.InfoContext(ctx, "left")
	right.InfoContext(ctx, "right")
	lines := j.lines()
	if !strings.Contains(lines[0], `"g":{"a":1,"l":1}`) || !strings.Contains(lines[1], `"g":{"a":1,"r":2}`) {
		t.Fatalf("sibling loggers share attributes:\n%s", j.buf.String())
	}
}

func TestHandlerRespectsLevel(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))).WithGroup("g")
	log.InfoContext(requestContext("req-12345", ""), "dropped")
	if buf.Len() != 0 {
		t.Fatalf("got %s", buf.String())
	}
}

// ctxHandler makes every record go through the wrapped handler with a
// request context, so the slog conformance suite exercises the annotating
// path, including its rebuilt groups.
type ctxHandler struct{ slog.Handler }

func (h ctxHandler) Handle(_ context.Context, r slog.Record) error {
	return h.Handler.Handle(requestContext("req-12345", testTrace), r)
}
func (h ctxHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return ctxHandler{h.Handler.WithAttrs(as)}
}
func (h ctxHandler) WithGroup(name string) slog.Handler {
	return ctxHandler{h.Handler.WithGroup(name)}
}

func TestHandlerConformance(t *testing.T) {
	for name, wrap := range map[string]func(slog.Handler) slog.Handler{
		"without request": func(h slog.Handler) slog.Handler { return h },
		"with request":    func(h slog.Handler) slog.Handler { return ctxHandler{h} },
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			slogtest.Run(t,
				func(*testing.T) slog.Handler {
					buf.Reset()
					return wrap(NewHandler(slog.NewJSONHandler(&buf, nil)))
				},
				func(t *testing.T) map[string]any {
					m := decode(t, buf.String())
					if name == "with request" && (m[AttrKey] != "req-12345" || m[TraceAttrKey] != testTrace) {
						t.Errorf("IDs missing at the top level: %s", buf.String())
					}
					delete(m, AttrKey)
					delete(m, TraceAttrKey)
					return m
				})
		})
	}
}
