package ratelimit_test

import (
	"bufio"
	"context"
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-chi/httprate"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
)

// ipServer limits to one request per client IP as resolved by resolve.
func ipServer(t *testing.T, resolve func(http.Handler) http.Handler) string {
	t.Helper()
	r := chi.NewRouter()
	r.Use(resolve)
	r.Use(withWriter(testlog.Writer(io.Discard), ratelimit.LimitBy(1, time.Hour, ratelimit.ByIP)))
	r.Get("/", okHandler)
	srv, _ := serve(t, r)
	return srv.URL
}

func status(t *testing.T, url string, hdr map[string]string) int {
	t.Helper()
	resp, _ := get(t, url, hdr)
	return resp.StatusCode
}

func TestSpoofedHeadersFromAnUntrustedPeerDoNotChangeTheKey(t *testing.T) {
	for name, resolve := range map[string]func(http.Handler) http.Handler{
		"XFF":            middleware.ClientIPFromXFF("10.0.0.0/8"),
		"True-Client-IP": middleware.ClientIPFromHeader("True-Client-IP", "10.0.0.0/8"),
		"RemoteAddr":     middleware.ClientIPFromRemoteAddr,
	} {
		t.Run(name, func(t *testing.T) {
			// The test client connects from 127.0.0.1, outside 10.0.0.0/8.
			url := ipServer(t, resolve)
			if s := status(t, url, map[string]string{"X-Forwarded-For": "198.51.100.1", "True-Client-IP": "198.51.100.1"}); s != 200 {
				t.Fatalf("first request: %d", s)
			}
			if s := status(t, url, map[string]string{"X-Forwarded-For": "198.51.100.2", "True-Client-IP": "198.51.100.2"}); s != 429 {
				t.Errorf("a forged client IP won a fresh bucket: status %d, want 429", s)
			}
		})
	}
}

func TestForwardedIPFromATrustedProxyIsTheKey(t *testing.T) {
	for name, resolve := range map[string]func(http.Handler) http.Handler{
		"XFF":            middleware.ClientIPFromXFF("127.0.0.1/32"),
		"True-Client-IP": middleware.ClientIPFromHeader("True-Client-IP", "127.0.0.1/32"),
	} {
		t.Run(name, func(t *testing.T) {
			url := ipServer(t, resolve)
			h := func(ip string) map[string]string {
				return map[string]string{"X-Forwarded-For": ip, "True-Client-IP": ip}
			}
			if s := status(t, url, h("198.51.100.1")); s != 200 {
				t.Fatalf("client 1: %d", s)
			}
			if s := status(t, url, h("198.51.100.2")); s != 200 {
				t.Errorf("client 2 behind the same proxy shares client 1's bucket: %d", s)
			}
			if s := status(t, url, h("198.51.100.1")); s != 429 {
				t.Errorf("client 1 again: %d, want 429", s)
			}
		})
	}
}

func TestIPv6IsKeyedByItsSlash64(t *testing.T) {
	url := ipServer(t, middleware.ClientIPFromXFF("127.0.0.1/32"))
	xff := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }
	if s := status(t, url, xff("2001:db8:1:2::1")); s != 200 {
		t.Fatalf("first address: %d", s)
	}
	if s := status(t, url, xff("2001:db8:1:2:ffff:ffff:ffff:fffe")); s != 429 {
		t.Errorf("another address of the same /64 got a fresh bucket: %d", s)
	}
	if s := status(t, url, xff("2001:db8:1:3::1")); s != 200 {
		t.Errorf("a different /64 shares the bucket: %d", s)
	}
	// IPv4 clients stay keyed by the full address, mapped or not.
	if s := status(t, url, xff("192.0.2.7")); s != 200 {
		t.Fatalf("IPv4: %d", s)
	}
	if s := status(t, url, xff("::ffff:192.0.2.7")); s != 429 {
		t.Errorf("v4-mapped form of the same IPv4 address got a fresh bucket: %d", s)
	}
	if s := status(t, url, xff("192.0.2.8")); s != 200 {
		t.Errorf("neighbouring IPv4 address shares the bucket: %d", s)
	}
}

func TestByIPKeys(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.1:1234":             "192.0.2.1",
		"[2001:db8::1]:1234":         "2001:db8::/64",
		"[2001:db8::1%eth0]:1234":    "2001:db8::/64",
		"[::ffff:192.0.2.1]:1234":    "192.0.2.1",
		"[2001:db8:0:0:1::2]:1":      "2001:db8::/64",
		"[2001:db8:0:1:ffff::2]:123": "2001:db8:0:1::/64",
	} {
		var got string
		h := middleware.ClientIPFromRemoteAddr(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			got, _ = ratelimit.ByIP(r)
		}))
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = remote
		h.ServeHTTP(httptest.NewRecorder(), req)
		if got != want {
			t.Errorf("%s: key %q, want %q", remote, got, want)
		}
	}
}

func TestRoutePatternKeys(t *testing.T) {
	r := chi.NewRouter()
	// In r.Use chi has not routed yet; the pattern is looked up.
	r.Use(withWriter(testlog.Writer(io.Discard), ratelimit.LimitBy(1, time.Hour, ratelimit.ByRoutePattern)))
	r.Get("/orders/{id}", okHandler)
	r.Get("/users/{id}", okHandler)
	r.Route("/v1", func(r chi.Router) {
		r.Get("/items/{id}", okHandler)
	})
	srv, _ := serve(t, r)

	for _, c := range []struct {
		path string
		want int
	}{
		{"/orders/1", 200},
		{"/orders/2", 429}, // same /orders/{id} bucket
		{"/users/1", 200},
		{"/v1/items/a", 200},
		{"/v1/items/b", 429},
		{"/nowhere/1", 404}, // unmatched requests share one bucket...
		{"/nowhere/2", 429}, // ...instead of one per path
	} {
		if s := status(t, srv.URL+c.path, nil); s != c.want {
			t.Errorf("%s: status %d, want %d", c.path, s, c.want)
		}
	}
}

func TestRoutePatternKeysOnARoute(t *testing.T) {
	var keys []string
	capture := func(r *http.Request) (string, error) {
		k, err := ratelimit.ByRoutePattern(r)
		keys = append(keys, k)
		return k, err
	}
	r := chi.NewRouter()
	r.With(ratelimit.LimitBy(10, time.Hour, capture)).Get("/orders/{id}", okHandler)
	r.Route("/v2", func(r chi.Router) {
		r.Use(ratelimit.LimitBy(10, time.Hour, capture))
		r.Get("/carts/{id}/lines/{line}", okHandler)
	})
	for _, path := range []string{"/orders/7", "/v2/carts/1/lines/2"} {
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}
	want := []string{"/orders/{id}", "/v2/carts/{id}/lines/{line}"}
	if len(keys) != 2 || keys[0] != want[0] || keys[1] != want[1] {
		t.Errorf("keys %q, want %q", keys, want)
	}
}

func TestRoutePatternNeedsChi(t *testing.T) {
	_, err := ratelimit.ByRoutePattern(httptest.NewRequest(http.MethodGet, "/", nil))
	if err == nil {
		t.Error("no error without a chi routing context")
	}
}

func TestByIPWorksOnAPlainServeMux(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /", okHandler)
	limited := withWriter(testlog.Writer(io.Discard), ratelimit.LimitBy(2, time.Hour, ratelimit.ByIP))
	srv, _ := serve(t, limited(mux))
	for i, want := range []int{200, 200, 429} {
		if s := status(t, srv.URL, map[string]string{"X-Forwarded-For": "198.51.100." + strconv.Itoa(i)}); s != want {
			t.Errorf("request %d: status %d, want %d", i, s, want)
		}
	}
}

// TestByIPWithoutAnAddressIsAConfigurationError serves over a Unix socket,
// where RemoteAddr holds no IP: the client must not be told to retry what
// only the operator can fix.
func TestByIPWithoutAnAddressIsAConfigurationError(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no Unix sockets here: %v", err)
	}
	var logs testlog.Buffer
	srv := httptest.NewUnstartedServer(withWriter(testlog.Writer(&logs), ratelimit.LimitBy(5, time.Hour, ratelimit.ByIP))(okHandler))
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := client.Get("http://unix/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	p, err := problem.Parse(body)
	if resp.StatusCode != 500 || err != nil || p.Code() != "internal" || p.Retryable() || p.Action() != problem.ActionNone || p.Cause() != problem.CauseConfig {
		t.Fatalf("status %d body %s", resp.StatusCode, body)
	}
	if !strings.Contains(logs.String(), "RemoteAddr holds no IP address") {
		t.Errorf("the log does not say what to fix:\n%s", logs.String())
	}
}

func TestByIPBehindProxies(t *testing.T) {
	serveKeyed := func(t *testing.T, key httprate.KeyFunc) string {
		mux := http.NewServeMux()
		mux.Handle("GET /", okHandler)
		srv, _ := serve(t, withWriter(testlog.Writer(io.Discard), ratelimit.LimitBy(1, time.Hour, key))(mux))
		return srv.URL
	}
	t.Run("trusted peer names the client", func(t *testing.T) {
		url := serveKeyed(t, ratelimit.ByIPBehindProxies(netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")))
		for i, c := range []struct {
			hdr  map[string]string
			want int
		}{
			{map[string]string{"X-Forwarded-For": "198.51.100.1"}, 200},
			// A client-written entry left of the real client changes nothing.
			{map[string]string{"X-Forwarded-For": "203.0.113.9, 198.51.100.1"}, 429},
			// Trusted hops are walked past, whatever their number.
			{map[string]string{"X-Forwarded-For": "198.51.100.1, 10.1.1.1, 127.0.0.9"}, 429},
			{map[string]string{"X-Forwarded-For": "198.51.100.2 , 10.1.1.1"}, 200},
			{map[string]string{"X-Forwarded-For": "198.51.100.3:4711"}, 200},
			{map[string]string{"X-Forwarded-For": "[2001:db8::1]:443"}, 200},
			{map[string]string{"X-Forwarded-For": "2001:db8::2"}, 429},
			{map[string]string{"X-Real-IP": "198.51.100.4"}, 200},
			{map[string]string{"X-Real-IP": "198.51.100.4"}, 429},
			// No header: the proxy itself.
			{nil, 200},
			// Garbage ends the walk at the last trusted hop: the proxy again.
			{map[string]string{"X-Forwarded-For": "198.51.100.5, not-an-ip"}, 429},
		} {
			if s := status(t, url, c.hdr); s != c.want {
				t.Errorf("request %d %v: status %d, want %d", i, c.hdr, s, c.want)
			}
		}
	})
	t.Run("untrusted peer is keyed by its own address", func(t *testing.T) {
		url := serveKeyed(t, ratelimit.ByIPBehindProxies(netip.MustParsePrefix("10.0.0.0/8")))
		if s := status(t, url, map[string]string{"X-Forwarded-For": "198.51.100.1"}); s != 200 {
			t.Fatalf("first: %d", s)
		}
		if s := status(t, url, map[string]string{"X-Forwarded-For": "198.51.100.2", "X-Real-IP": "198.51.100.3"}); s != 429 {
			t.Errorf("a forged header won a fresh bucket: %d", s)
		}
	})
	t.Run("hostile headers", func(t *testing.T) {
		url := serveKeyed(t, ratelimit.ByIPBehindProxies(netip.MustParsePrefix("127.0.0.0/8")))
		long := strings.Repeat("127.0.0.1, ", 10<<10/11) + "198.51.100.7"
		for i, hdr := range []string{
			"X-Forwarded-For: " + long,
			"X-Forwarded-For: 198.51.100.8\x00",
			"X-Forwarded-For: ,,,, \t",
			"X-Forwarded-For: 198.51.100.9\r\nX-Forwarded-For: 127.0.0.2",
		} {
			if s := rawStatus(t, url, hdr); s != 200 && s != 400 && s != 429 {
				t.Errorf("header %d: status %d", i, s)
			}
		}
	})
}

// rawStatus sends a request with headers the Go client refuses to write.
func rawStatus(t *testing.T, url, headers string) int {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"+headers+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestByIPBehindProxiesRejectsAMisconfigurationAtStartup(t *testing.T) {
	for name, prefixes := range map[string][]netip.Prefix{
		"none":      nil,
		"catch-all": {netip.MustParsePrefix("0.0.0.0/0")},
		"invalid":   {{}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			ratelimit.ByIPBehindProxies(prefixes...)
		}()
	}
}

func TestRoutePatternOnServeMux(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("GET /orders/{id}", withWriter(testlog.Writer(io.Discard), ratelimit.LimitBy(1, time.Hour, ratelimit.ByRoutePattern))(okHandler))
	srv, _ := serve(t, mux)
	if s := status(t, srv.URL+"/orders/1", nil); s != 200 {
		t.Fatalf("first: %d", s)
	}
	if s := status(t, srv.URL+"/orders/2", nil); s != 429 {
		t.Errorf("another id of the same route got a fresh bucket: %d", s)
	}
}

// A key function that can never yield a key is the developer's mistake: it
// must stop the service at startup, not answer every client with a 400 that
// blames the client or a 500 at the first request.
func TestKeyMisconfigurationsPanicAtStartup(t *testing.T) {
	for name, build := range map[string]func() httprate.KeyFunc{
		`ByHeader("")`:          func() httprate.KeyFunc { return ratelimit.ByHeader("") },
		`ByHeader(" ")`:         func() httprate.KeyFunc { return ratelimit.ByHeader(" ") },
		`ByHeader("X Api Key")`: func() httprate.KeyFunc { return ratelimit.ByHeader("X Api Key") },
		`ByHeader("X-Key:")`:    func() httprate.KeyFunc { return ratelimit.ByHeader("X-Key:") },
		`ByHeader("X-Kéy")`:     func() httprate.KeyFunc { return ratelimit.ByHeader("X-Kéy") },
		`ByHeader("X-Key\r\n")`: func() httprate.KeyFunc { return ratelimit.ByHeader("X-Key\r\n") },
		`Join()`:                func() httprate.KeyFunc { return ratelimit.Join() },
		`Join(ByIP, nil)`:       func() httprate.KeyFunc { return ratelimit.Join(ratelimit.ByIP, nil) },
		`Join(nil)`:             func() httprate.KeyFunc { return ratelimit.Join(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			build()
		}()
	}
	for _, name := range []string{"X-Api-Key", "x-api-key", "Authorization", "X_Tenant.Id~1", "!#$%&'*+-.^_`|~"} {
		if ratelimit.ByHeader(name) == nil {
			t.Errorf("ByHeader(%q) is nil", name)
		}
	}
	if ratelimit.Join(ratelimit.ByIP) == nil {
		t.Error("Join(ByIP) is nil")
	}
}
