package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline-go/faultline/internal/textclass"
)

// config is everything a probe run was told on its command line.
type config struct {
	base        *url.URL
	checks      []string
	skip        []string
	openapi     string
	routes      []route
	allowWrites bool
	maxBody     int64
	slow        time.Duration
	burst       int
	burstRoute  string
	rate        float64
	concurrency int
	timeout     time.Duration
	reqTimeout  time.Duration
	maxRead     int64
	contract    string
	// idHeader is the header the probe's request IDs go in, and the one
	// judged for their echo.
	idHeader string
	format   string
	color    string
}

// route is a path the API serves, with the methods it allows when they are
// known (from -openapi or a -route flag); nil methods are learnt from the
// Allow header of the first 405.
type route struct {
	path    string
	methods []string
}

// usageError is a command line the probe refuses: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

type routeFlag []route

func (r *routeFlag) String() string { return fmt.Sprint(len(*r)) }

// Set reads "/path" or "GET,POST /path".
func (r *routeFlag) Set(s string) error {
	s = strings.TrimSpace(s)
	rt := route{path: s}
	if methods, path, ok := strings.Cut(s, " "); ok {
		rt.path = strings.TrimSpace(path)
		for m := range strings.SplitSeq(methods, ",") {
			if m = strings.ToUpper(strings.TrimSpace(m)); m != "" {
				rt.methods = append(rt.methods, m)
			}
		}
	}
	if !strings.HasPrefix(rt.path, "/") {
		return fmt.Errorf("route %q: the path must start with /", s)
	}
	*r = append(*r, rt)
	return nil
}

func parseConfig(args []string, stderr io.Writer) (config, error) {
	var cfg config
	var checks, skip listFlag
	var routes routeFlag
	fs := flag.NewFlagSet("faultline probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: faultline probe [flags] BASE_URL\n\nchecks: %s\n\nflags:\n", strings.Join(checkNames(), ", "))
		fs.PrintDefaults()
	}
	fs.Var(&checks, "checks", "comma-separated checks to run (default: all)")
	fs.Var(&skip, "skip", "comma-separated checks not to run")
	fs.StringVar(&cfg.openapi, "openapi", "", "OpenAPI 3 document (JSON), a file or a URL on the target's origin, naming the routes and their methods")
	fs.Var(&routes, "route", "a route of the API, \"/path\" or \"GET,POST /path\" (repeatable); {params} are filled in")
	fs.BoolVar(&cfg.allowWrites, "allow-writes", false, "send POST/PUT/PATCH/DELETE requests (only with bodies that must fail validation)")
	fs.Int64Var(&cfg.maxBody, "max-body", 0, "the API's request body limit in bytes; body-too-large sends one byte more (0: check skipped)")
	fs.DurationVar(&cfg.slow, "slow", 0, "trickle a request body over this long (0: slow-body skipped)")
	fs.IntVar(&cfg.burst, "burst", 0, "send this many requests at once to observe a 429 (0: burst skipped)")
	fs.StringVar(&cfg.burstRoute, "burst-route", "", "the path -burst sends its GETs to (default: the first GET route)")
	fs.Float64Var(&cfg.rate, "rate", 10, "requests per second at most")
	fs.IntVar(&cfg.concurrency, "concurrency", 4, "requests in flight at most")
	fs.DurationVar(&cfg.timeout, "timeout", 2*time.Minute, "bound on the whole run")
	fs.DurationVar(&cfg.reqTimeout, "request-timeout", 10*time.Second, "bound on each request, from dial to the last byte read")
	fs.Int64Var(&cfg.maxRead, "max-read", 1<<20, "bytes of each answer's body read at most")
	fs.StringVar(&cfg.contract, "contract", "rfc9457", "what the API claims: rfc9457 (the RFC's core members) or faultline (also code, action, cause, outcome and correlation)")
	fs.StringVar(&cfg.idHeader, "correlation-header", "X-Request-Id", "the header the API takes and echoes a correlation ID in (faultline's WithCorrelationHeader)")
	fs.StringVar(&cfg.format, "format", "table", "report format: table, json or junit")
	fs.StringVar(&cfg.color, "color", "auto", "colour the table: auto (only on a terminal), always or never")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return cfg, usageError{"exactly one BASE_URL is needed"}
	}
	u, err := url.Parse(fs.Arg(0))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return cfg, usageError{fmt.Sprintf("BASE_URL %q must be an http:// or https:// URL without credentials", fs.Arg(0))}
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	cfg.base = u
	known := checkNames()
	for _, name := range append(slices.Clone(checks), skip...) {
		if !slices.Contains(known, name) {
			return cfg, usageError{fmt.Sprintf("unknown check %q (checks: %s)", name, strings.Join(known, ", "))}
		}
	}
	cfg.checks, cfg.skip, cfg.routes = checks, skip, routes
	switch {
	case cfg.contract != "rfc9457" && cfg.contract != "faultline":
		return cfg, usageError{"-contract must be rfc9457 or faultline"}
	case cfg.format != "table" && cfg.format != "json" && cfg.format != "junit":
		return cfg, usageError{"-format must be table, json or junit"}
	case cfg.color != "auto" && cfg.color != "always" && cfg.color != "never":
		return cfg, usageError{"-color must be auto, always or never"}
	case !(cfg.rate > 0) || cfg.concurrency <= 0 || cfg.timeout <= 0 || cfg.reqTimeout <= 0 || cfg.maxRead <= 0:
		return cfg, usageError{"-rate, -concurrency, -timeout, -request-timeout and -max-read must be positive"}
	case cfg.maxBody < 0 || cfg.slow < 0 || cfg.burst < 0:
		return cfg, usageError{"-max-body, -slow and -burst must not be negative"}
	case !headerName(cfg.idHeader):
		return cfg, usageError{fmt.Sprintf("-correlation-header %q is not a header name the probe may send its IDs in", cfg.idHeader)}
	}
	cfg.idHeader = http.CanonicalHeaderKey(cfg.idHeader)
	return cfg, nil
}

// headerName reports whether s is an HTTP field name (RFC 9110's token)
// other than one the probe writes itself.
func headerName(s string) bool {
	if !textclass.IsFieldName(s) {
		return false
	}
	switch http.CanonicalHeaderKey(s) {
	case "Host", "User-Agent", "Connection", "Content-Length", "Content-Type", "Transfer-Encoding":
		return false
	}
	return true
}

// selected reports whether the run includes the named check.
func (cfg config) selected(name string) bool {
	if len(cfg.checks) > 0 && !slices.Contains(cfg.checks, name) {
		return false
	}
	return !slices.Contains(cfg.skip, name)
}

// openAPIDoc is the part of an OpenAPI 3 document the probe reads.
type openAPIDoc struct {
	Paths map[string]map[string]json.RawMessage `json:"paths"`
}

var openAPIMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// loadOpenAPI reads the routes of an OpenAPI document. A URL must be on the
// target's origin: the probe contacts no other host.
func loadOpenAPI(c *client, ref string) ([]route, error) {
	var data []byte
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		u, err := url.Parse(ref)
		if err != nil {
			return nil, err
		}
		if !sameOrigin(u, c.base) {
			return nil, usageError{fmt.Sprintf("-openapi %s is not on the target's origin %s", ref, origin(c.base))}
		}
		ex := c.fetch(u.RequestURI())
		if ex.err != nil {
			return nil, fmt.Errorf("-openapi %s: %w", ref, ex.err)
		}
		// The target answered: a missing or oversized document is the
		// command line's to fix (exit 2), not an unreachable target (3).
		switch {
		case ex.status != http.StatusOK:
			return nil, usageError{fmt.Sprintf("-openapi %s answered %d, not the document", ref, ex.status)}
		case ex.truncated:
			return nil, usageError{fmt.Sprintf("-openapi %s is longer than -max-read (%d bytes)", ref, c.maxRead)}
		}
		data = ex.body
	} else {
		var err error
		if data, err = os.ReadFile(ref); err != nil {
			return nil, usageError{err.Error()}
		}
	}
	var doc openAPIDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, usageError{fmt.Sprintf("-openapi %s is not an OpenAPI document in JSON: %v", ref, err)}
	}
	var routes []route
	for path, ops := range doc.Paths {
		rt := route{path: path}
		for _, m := range openAPIMethods {
			if _, ok := ops[m]; ok {
				rt.methods = append(rt.methods, strings.ToUpper(m))
			}
		}
		if len(rt.methods) > 0 {
			routes = append(routes, rt)
		}
	}
	sort.Slice(routes, func(i, j int) bool { return routes[i].path < routes[j].path })
	return routes, nil
}
