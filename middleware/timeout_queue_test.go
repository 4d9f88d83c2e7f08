package middleware

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/correlation"
)

// TestTimeoutQueueKeepsNoFinishedRequest serves requests that finish in
// time and checks the layer's deadline queues afterwards: nothing of them
// is left on any (a finished request must not be kept alive until its
// deadline), and the timers set for the first deadlines are still running,
// not stopped and re-armed per request.
func TestTimeoutQueueKeepsNoFinishedRequest(t *testing.T) {
	for _, n := range []int{1, 7, 300} {
		k := newKit()
		h := Stack(WithWriter(k.writer), WithRequestTimeout(time.Hour))(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("ok"))
		}))
		qs := h.(*layer).deadlines
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/r/"+strconv.Itoa(i), nil))
				if rec.Code != 200 || rec.Body.String() != "ok" || rec.Header().Get("Content-Type") != "text/plain" || rec.Header().Get("X-Request-Id") == "" {
					t.Errorf("request %d: %d %q %v", i, rec.Code, rec.Body, rec.Header())
				}
			})
		}
		wg.Wait()
		armed := 0
		for i := range qs {
			q := &qs[i]
			q.mu.Lock()
			if q.head != nil || q.tail != nil {
				t.Errorf("%d requests: finished requests are still on queue %d", n, i)
			}
			if q.armed {
				armed++
			}
			// The header maps of finished requests wait for the next ones,
			// no more of them than the bound.
			if len(q.spare) > spareMax {
				t.Errorf("%d requests: queue %d keeps %d spare maps", n, i, len(q.spare))
			}
			for _, m := range q.spare {
				if len(m) != 0 {
					t.Errorf("%d requests: a spare map still holds %v", n, m)
				}
			}
			q.mu.Unlock()
		}
		// Every queue that timed a request keeps the timer it set for its
		// first deadline, an hour away.
		if armed == 0 || armed > min(n, len(qs)) {
			t.Errorf("%d requests: %d queues with a timer set", n, armed)
		}
	}
}

// TestTimeoutEachRequestItsOwnDeadline runs slow requests that start at
// different moments among fast ones that come and go: each slow one gets
// its problem at its own deadline, neither at the deadline of one queued
// before it nor held back by the fast ones unlinked around it.
func TestTimeoutEachRequestItsOwnDeadline(t *testing.T) {
	const d = 150 * time.Millisecond
	k := newKit()
	h := Stack(WithWriter(k.writer), WithRequestTimeout(d))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-r.Context().Done()
			return
		}
		_, _ = w.Write([]byte("fast"))
	}))
	srv := k.serve(t, h)

	stop := make(chan struct{})
	var fast sync.WaitGroup
	for range 3 {
		fast.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if r := get(t, srv.URL+"/fast"); r.StatusCode != 200 {
					t.Errorf("fast request: status %d", r.StatusCode)
					return
				}
			}
		})
	}
	offsets := []time.Duration{0, 40 * time.Millisecond, 90 * time.Millisecond}
	took := make([]time.Duration, len(offsets))
	var slow sync.WaitGroup
	for i, off := range offsets {
		slow.Go(func() {
			time.Sleep(off)
			start := time.Now()
			r := get(t, srv.URL+"/slow")
			took[i] = time.Since(start)
			if r.StatusCode != 503 {
				t.Errorf("slow request %d: status %d", i, r.StatusCode)
			}
		})
	}
	slow.Wait()
	close(stop)
	fast.Wait()
	for i, tk := range took {
		// Never early; late only by a loaded machine's scheduling.
		if tk < d || tk > d+500*time.Millisecond {
			t.Errorf("slow request %d (started at +%v) answered after %v, want its own deadline %v", i, offsets[i], tk, d)
		}
	}
}

// TestTimeoutHandlerEditsHeadersSetBeforeIt: the handler works on its own
// copy of the headers set before the timeout ran; what it removes,
// replaces and adds is what goes out, on every router.
func TestTimeoutHandlerEditsHeadersSetBeforeIt(t *testing.T) {
	for _, drop := range []string{"X-Outer", "X-Request-Id", ""} {
		forEachRouter(t, func(t *testing.T, rt router) {
			k := newKit()
			h := rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(time.Minute)), map[string]http.HandlerFunc{
				"GET /edit": func(w http.ResponseWriter, _ *http.Request) {
					if drop != "" {
						w.Header().Del(drop)
					}
					w.Header().Set("Vary", "Accept")
					w.Header().Set("X-New", "2")
					w.WriteHeader(http.StatusAccepted)
				},
			})
			outer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Outer", "1")
				w.Header().Set("Vary", "Origin")
				h.ServeHTTP(w, r)
			})
			r := get(t, k.serve(t, outer).URL+"/edit")
			if r.StatusCode != http.StatusAccepted || r.Header.Get("X-New") != "2" || r.Header.Values("Vary")[0] != "Accept" || len(r.Header.Values("Vary")) != 1 {
				t.Errorf("drop %q: status %d headers %v", drop, r.StatusCode, r.Header)
			}
			for _, name := range []string{"X-Outer", "X-Request-Id"} {
				if got := r.Header.Get(name) != ""; got != (name != drop) {
					t.Errorf("drop %q: %s present %v, headers %v", drop, name, got, r.Header)
				}
			}
		})
	}
}

// Under a deadline Stack sets its correlation header on the handler's own
// header map; the timeout problem, written on the real one at the deadline,
// carries it all the same: under the name correlation was told to echo it
// in, once, with the request's ID, also when the handler removed it from
// its map before the deadline, and without the headers the handler set.
func TestTimeoutProblemCarriesTheCorrelationHeader(t *testing.T) {
	for _, c := range []struct {
		name, inbound string
		drop          bool
	}{
		{"X-Request-Id", "", false},
		{"X-Trace-Ref", "ord-7781-abcdef", false},
		{"Correlation-Key", "", true},
		{"X-Request-Id", "0f3c9a7e-client", true},
	} {
		k := newKit()
		release := make(chan struct{})
		h := Stack(WithWriter(k.writer), WithRequestTimeout(testTimeout), WithCorrelation(correlation.WithResponseHeader(c.name)))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c.drop {
				w.Header().Del(c.name)
			}
			w.Header().Set("X-Handler", "1")
			<-release
		}))
		req, _ := http.NewRequest(http.MethodGet, k.serve(t, h).URL+"/slow", nil)
		if c.inbound != "" {
			req.Header.Set("X-Correlation-Id", c.inbound)
		}
		r := do(t, req)
		close(release)
		m := wantProblem(t, r, http.StatusServiceUnavailable, "timeout", nil)
		if got := r.Header.Values(c.name); len(got) != 1 || got[0] != m["correlation_id"] {
			t.Errorf("%+v: %s %q, correlation_id %v", c, c.name, got, m["correlation_id"])
		}
		if c.inbound != "" && m["correlation_id"] != c.inbound {
			t.Errorf("%+v: correlation_id %v, sent %q", c, m["correlation_id"], c.inbound)
		}
		if r.Header.Get("X-Handler") != "" {
			t.Errorf("%+v: the handler's header reached the timeout problem: %v", c, r.Header)
		}
	}
}

// The handlers' header maps are recycled from one request to the next: no
// request's response carries a header another one set, whatever way it
// ended (a status and a body, a trailer after the body, no write at all, a
// bare error the guard replaced, a panic, the correlation header removed),
// one request after another and many at once.
func TestTimeoutHeaderMapsCarryNothingOver(t *testing.T) {
	k := newKit()
	ends := []func(w http.ResponseWriter, i string){
		func(w http.ResponseWriter, _ string) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("ok"))
		},
		func(w http.ResponseWriter, i string) {
			h := w.Header()
			h.Set("Trailer", "X-Sum")
			w.WriteHeader(http.StatusAccepted)
			h.Set("X-Sum", i)
		},
		func(http.ResponseWriter, string) {},
		func(w http.ResponseWriter, _ string) { w.WriteHeader(http.StatusConflict) },
		func(http.ResponseWriter, string) { panic("boom") },
		func(w http.ResponseWriter, _ string) {
			w.Header().Del("X-Request-Id")
			w.WriteHeader(http.StatusNoContent)
		},
	}
	h := Stack(WithWriter(k.writer), WithRequestTimeout(time.Minute))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := r.URL.Query().Get("i")
		w.Header().Set("X-Only-"+i, i)
		n, _ := strconv.Atoi(i)
		ends[n%len(ends)](w, i)
	}))
	serve := func(n int) {
		i := strconv.Itoa(n)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x?i="+i, nil))
		for name := range rec.Header() {
			if strings.HasPrefix(name, "X-Only-") && name != "X-Only-"+i {
				t.Errorf("request %s: %s of another request in %v", i, name, rec.Header())
			}
		}
		if got := rec.Header().Get("X-Sum"); got != "" && got != i {
			t.Errorf("request %s: trailer X-Sum %q", i, got)
		}
		if len(rec.Header().Values("X-Request-Id")) > 1 {
			t.Errorf("request %s: %v", i, rec.Header())
		}
	}
	for n := range 60 {
		serve(n)
	}
	var wg sync.WaitGroup
	for n := range 240 {
		wg.Go(func() { serve(n) })
	}
	wg.Wait()
}

// A Timeout mounted inside a Stack without a deadline of its own finds
// Stack's correlation header on the real map, and its handler sees it on
// its own map, to read, keep or remove like any header set before it.
func TestTimeoutInsideStackHandsTheCorrelationHeaderOn(t *testing.T) {
	for _, drop := range []bool{false, true} {
		k := newKit()
		h := Stack(WithWriter(k.writer))(Timeout(time.Minute)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			id := w.Header().Get("X-Request-Id")
			if drop {
				w.Header().Del("X-Request-Id")
			}
			w.Header().Set("X-Seen", id)
			w.WriteHeader(http.StatusAccepted)
		})))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		seen := rec.Header().Get("X-Seen")
		if rec.Code != http.StatusAccepted || seen == "" || (rec.Header().Get("X-Request-Id") == seen) == drop {
			t.Errorf("drop %v: %d %v", drop, rec.Code, rec.Header())
		}
	}
}
