package sanitize

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/logmark"
)

const markedSecret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"

// markedRecord is a record whose first attribute the builder vouches for
// (wrongly here, so that a test sees whether the vouch was taken) and whose
// second one it does not.
func markedRecord() slog.Record { return markedRecordAt(time.Unix(1700000000, 0)) }

func markedRecordAt(at time.Time) slog.Record {
	r := slog.NewRecord(at, slog.LevelError, "problem", 1)
	r.AddAttrs(slog.String("vouched", markedSecret), slog.String("extra", "token="+markedSecret))
	return r
}

func handleThrough(t *testing.T, ctx context.Context, r slog.Record) string {
	t.Helper()
	var buf bytes.Buffer
	if err := NewLogHandler(slog.NewJSONHandler(&buf, nil)).Handle(ctx, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The handler skips exactly the attributes the mark vouches for and scans
// everything after them.
func TestMarkVouchesForTheLeadingAttributesOnly(t *testing.T) {
	r := markedRecord()
	out := handleThrough(t, logmark.With(context.Background(), &r, 1), r)
	if !strings.Contains(out, `"vouched":"`+markedSecret+`"`) {
		t.Errorf("vouched attribute scanned again: %s", out)
	}
	if strings.Count(out, markedSecret) != 1 {
		t.Errorf("attribute after the vouched ones not scanned: %s", out)
	}
}

// A mark is bound to the record it was made for and to the context it was
// made as: a record changed on the way (an attribute added, another
// message, another time), and a context derived from the marked one, get
// the whole scan.
func TestMarkDoesNotOutliveItsRecord(t *testing.T) {
	for name, tc := range map[string]func() (context.Context, slog.Record){
		"attribute added": func() (context.Context, slog.Record) {
			r := markedRecord()
			ctx := logmark.With(context.Background(), &r, 2)
			r.AddAttrs(slog.Int("n", 1))
			return ctx, r
		},
		"another message": func() (context.Context, slog.Record) {
			r := markedRecord()
			ctx := logmark.With(context.Background(), &r, 2)
			r.Message = "other"
			return ctx, r
		},
		"another record": func() (context.Context, slog.Record) {
			m := markedRecord()
			ctx := logmark.With(context.Background(), &m, 2)
			return ctx, markedRecordAt(time.Unix(1700000001, 0))
		},
		"derived context": func() (context.Context, slog.Record) {
			r := markedRecord()
			type key struct{}
			return context.WithValue(logmark.With(context.Background(), &r, 2), key{}, 1), r
		},
		"no mark": func() (context.Context, slog.Record) {
			return context.Background(), markedRecord()
		},
	} {
		ctx, r := tc()
		if out := handleThrough(t, ctx, r); strings.Contains(out, markedSecret) {
			t.Errorf("%s: the mark was taken: %s", name, out)
		}
	}
}
