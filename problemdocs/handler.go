package problemdocs

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// Option configures [Handler] and the OpenAPI renderers.
type Option func(*config)

type config struct {
	writer *problem.Writer
}

// WithWriter documents the codes of wr's registry, with type URIs under
// wr's base URI. Without it, problem.Default().
func WithWriter(wr *problem.Writer) Option { return func(c *config) { c.writer = wr } }

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.writer == nil {
		c.writer = problem.Default()
	}
	return c
}

// Handler serves the catalog: the last segment of the path names a code
// (GET /problems/rate_limited), a path ending in a slash is the index
// (a code's name, or a retired code's, followed by a slash redirects to
// the code's page). Each
// is HTML, or JSON when the Accept header prefers application/json; an
// Accept header that refuses both is a not_acceptable problem. A
// retired code is a gone problem, an unknown code a not_found problem,
// another method a method_not_allowed problem.
func Handler(opts ...Option) http.Handler {
	c := newConfig(opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			c.writer.Write(w, r, problem.New(problem.MethodNotAllowed))
			return
		}
		name := r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
		w.Header().Set("Vary", "Accept")
		asJSON, acceptable := negotiate(strings.Join(r.Header.Values("Accept"), ","))
		if !acceptable {
			c.writer.Write(w, r, problem.New(problem.NotAcceptable).
				WithDetail("This documentation is served as text/html or application/json."))
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=300")
		if name == "" {
			// A code's page asked for with a trailing slash would otherwise
			// be the index, under a base against which every relative link
			// on it resolves one level too deep; a retired code's type URI
			// is answered where it is gone.
			dir := strings.TrimSuffix(r.URL.Path, "/")
			if code := dir[strings.LastIndexByte(dir, '/')+1:]; code != "" {
				if _, ok := c.writer.Registry().Lookup(problem.Kind(code)); ok || problemhook.Retired(c.writer.Registry(), code) {
					w.Header().Set("Location", "../"+code)
					w.WriteHeader(http.StatusPermanentRedirect)
					return
				}
			}
			serveIndex(w, c.writer, asJSON)
			return
		}
		code, ok := c.writer.Registry().Lookup(problem.Kind(name))
		if !ok && problemhook.Retired(c.writer.Registry(), name) {
			// Logs and clients may still hold this type URI; it names a code
			// that existed, so it is gone rather than unknown.
			c.writer.Write(w, r, problem.New(problem.Gone).WithDetail("This problem type was retired; its code is never reused."))
			return
		}
		if !ok {
			c.writer.Write(w, r, problem.New(problem.NotFound).WithDetail("No problem type of this name is documented here."))
			return
		}
		e := newEntry(c.writer, code)
		if asJSON {
			writeJSON(w, e)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = pageTemplate.Execute(w, e)
	})
}

// index is the catalog as the index serves it.
type index struct {
	Legacy *legacyNotice `json:"legacy,omitempty"`
	Codes  []entry       `json:"codes"`
	// Retired lists the codes that are gone for good, as the registry's
	// code table does, so a reader tells them from codes never defined.
	Retired []string `json:"retired,omitempty"`
}

func serveIndex(w http.ResponseWriter, wr *problem.Writer, asJSON bool) {
	all := index{Legacy: legacyOf(wr), Codes: entries(wr), Retired: problemhook.RetiredCodes(wr.Registry())}
	if asJSON {
		writeJSON(w, all)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = indexTemplate.Execute(w, all)
}

func writeJSON(w http.ResponseWriter, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "catalog cannot be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(body, '\n'))
}
