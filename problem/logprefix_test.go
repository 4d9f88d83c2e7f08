package problem

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// storedRoutes counts the routes whose handler e remembers.
func storedRoutes(e *codeEntry) int {
	n := 0
	for i := range e.routes.slots {
		if e.routes.slots[i].Load() != nil {
			n++
		}
	}
	return n
}

// A route is remembered the second time it fails, a path that never
// repeats never is, and a scan of unknown paths cannot grow the table past
// its slots. A remembered route renders its record as the record would.
func TestRoutePrefixRememberedOnTheSecondFailure(t *testing.T) {
	var buf bytes.Buffer
	wr := NewWriter(WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	fail := func(method, path string) {
		_ = wr.Write(httptest.NewRecorder(), httptest.NewRequest(method, path, nil), New(NotFound))
	}
	fail(http.MethodGet, "/once")
	e := wr.cached(string(NotFound))
	if n := storedRoutes(e); n != 0 {
		t.Fatalf("%d routes remembered after one failure", n)
	}
	fail(http.MethodGet, "/once")
	if n := storedRoutes(e); n != 1 {
		t.Fatalf("%d routes remembered after a route failed twice", n)
	}
	buf.Reset()
	fail(http.MethodGet, "/once")
	fail("PURGE", "/once")
	fail("PURGE", "/once")
	for _, want := range []string{`"method":"GET","path":"/once"`, `"method":"PURGE","path":"/once"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %s in\n%s", want, buf.String())
		}
	}
	if n := storedRoutes(e); n != 1 {
		t.Errorf("%d routes remembered; a method outside the standard ones is not", n)
	}
	for i := range 10 * routeSlots {
		fail(http.MethodGet, fmt.Sprintf("/scan/%d", i))
	}
	if n := storedRoutes(e); n > 1+2 { // two paths of the scan may share a slot's hash
		t.Errorf("a scan of paths that never repeat left %d routes", n)
	}
	for i := range 10 * routeSlots {
		fail(http.MethodGet, fmt.Sprintf("/storm/%d", i%200))
		fail(http.MethodGet, fmt.Sprintf("/storm/%d", i%200))
	}
	if n := storedRoutes(e); n > routeSlots {
		t.Errorf("%d routes remembered, more than the %d slots", n, routeSlots)
	}
	fail(http.MethodGet, "/storm/7")
	fail(http.MethodGet, "/storm/7")
	h := wr.Logger().Handler()
	if n := testing.AllocsPerRun(50, func() { e.routePrefixed(h, h, http.MethodGet, "/storm/7") }); n != 0 {
		t.Errorf("finding a remembered route costs %v allocations", n)
	}
}
