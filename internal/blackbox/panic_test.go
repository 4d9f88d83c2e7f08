package blackbox

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/internal/testlog"
)

type panickyError struct{}

func (panickyError) Error() string { panic("the Error method panics too: " + leakyText) }

type panickyStringer struct{}

func (panickyStringer) String() string { panic("the String method panics too") }

// Whatever a handler panics with (nil, an error whose Error panics, a
// Stringer whose String panics, a wrapped secret), the client gets the
// contract's internal problem and the log one redacted record.
func TestHostilePanicValues(t *testing.T) {
	values := map[string]any{
		"nil":                    nil,
		"panicking Error":        panickyError{},
		"panicking String":       panickyStringer{},
		"wrapped secret":         fmt.Errorf("query: %w", errors.New(leakyText)),
		"non-string":             map[string]string{"dsn": "postgres://app:hunter2@10.12.0.7/db"},
		"error that is a secret": errors.New("password=s3cr3tPassw0rd"),
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := &app{t: t, logs: &testlog.Buffer{}}
			h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(v) })
			a.srv = httptest.NewServer(stack(newWriter(testlog.Logger(a.logs), false))(h))
			t.Cleanup(a.srv.Close)
			a.checkContract("panic("+name+")", a.request("GET", "/", ""), 500, "internal")
			a.checkLogRedacted("panic(" + name + ")")
		})
	}
}
