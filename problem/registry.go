package problem

import (
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// Registry is the single source of truth for codes: it holds the
// Definition of every Kind a Writer may send. The zero value is not
// usable; create one with NewRegistry or use DefaultRegistry.
type Registry struct {
	mu       sync.RWMutex
	byCode   map[Kind]Definition
	byStatus map[int]Kind
	order    []Kind
	retired  map[Kind]bool
}

// NewRegistry returns a registry holding the built-in catalog. Explicit
// registries work exactly like the default one; nothing here needs global
// state.
func NewRegistry() *Registry {
	r := newEmptyRegistry()
	for _, d := range builtin {
		if err := r.Register(d); err != nil {
			panic(err)
		}
	}
	return r
}

// newEmptyRegistry returns a registry without the built-in catalog, for
// services that define every code themselves.
func newEmptyRegistry() *Registry {
	return &Registry{byCode: map[Kind]Definition{}, byStatus: map[int]Kind{}, retired: map[Kind]bool{}}
}

var defaultRegistry = NewRegistry()

// DefaultRegistry returns the registry that holds the built-in catalog and
// the codes registered through MustRegister.
func DefaultRegistry() *Registry { return defaultRegistry }

// MustRegister adds d to the default registry and returns its Kind, so a
// service declares its codes as package variables:
//
//	var NoBook = problem.MustRegister(problem.Definition{Code: "no_book", ...})
//
// It panics where Register returns an error: a code is part of the
// service's source, and a mistake in it must stop the program at start.
func MustRegister(d Definition) Kind {
	if err := defaultRegistry.Register(d); err != nil {
		panic(err)
	}
	return d.Code
}

// Register adds d. A malformed definition, a code already taken, a retired
// code or a retired successor is an error wrapping ErrInvalidCode: codes
// are never redefined nor reused. New finds the definition of a code from
// then on, whichever registry holds it.
func (r *Registry) Register(d Definition) error {
	if err := d.validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.retired[d.Code] {
		return fmt.Errorf("%w: %s was retired", ErrInvalidCode, d.Code)
	}
	// A deprecated code must not send its clients to one that is gone.
	if s := d.Successor; r.retired[s] {
		return fmt.Errorf("%w: %s, named as the successor of %s, was retired", ErrInvalidCode, s, d.Code)
	}
	if _, taken := r.byCode[d.Code]; taken {
		return fmt.Errorf("%w: %s is registered already", ErrInvalidCode, d.Code)
	}
	r.byCode[d.Code] = d
	r.order = append(r.order, d.Code)
	if _, ok := r.byStatus[d.Status]; !ok {
		r.byStatus[d.Status] = d.Code
	}
	remember(&d)
	return nil
}

// Retire removes codes from the registry for good: they are no longer
// looked up, and Register refuses them, because clients and logs may still
// hold their old meaning. Retiring a code twice, or one never registered
// (a code of an earlier release), is allowed.
func (r *Registry) Retire(codes ...Kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, code := range codes {
		r.retired[code] = true
		if d, ok := r.byCode[code]; ok {
			delete(r.byCode, code)
			r.order = slices.DeleteFunc(r.order, func(c Kind) bool { return c == code })
			if r.byStatus[d.Status] == code {
				delete(r.byStatus, d.Status)
				for _, c := range r.order {
					if r.byCode[c].Status == d.Status {
						r.byStatus[d.Status] = c
						break
					}
				}
			}
		}
	}
}

func init() {
	problemhook.Retired = func(reg any, code string) bool {
		r := reg.(*Registry)
		r.mu.RLock()
		defer r.mu.RUnlock()
		return r.retired[Kind(code)]
	}
	problemhook.RetiredCodes = func(reg any) []string { return reg.(*Registry).retiredCodes() }
}

// retiredCodes lists the retired codes, sorted.
func (r *Registry) retiredCodes() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for code := range r.retired {
		out = append(out, string(code))
	}
	slices.Sort(out)
	return out
}

// Lookup returns the definition registered for code.
func (r *Registry) Lookup(code Kind) (Definition, bool) {
	r.mu.RLock()
	d, ok := r.byCode[code]
	r.mu.RUnlock()
	return d, ok
}

// ForStatus returns a problem for a bare HTTP error status (one a handler
// wrote without a body): an occurrence of the first code registered with
// that status. A status no code claims keeps its own identity, as RFC 9457
// §4.2.1 says: type about:blank, the status phrase as title, the status
// itself; its code names only its family (bad_request for 4xx, internal
// for 5xx) so a client can still branch on action, cause and retryable.
// Another code's type is never reused, because a type documents one title
// and one status. A status outside 400-599 is treated as 500.
func (r *Registry) ForStatus(status int) *Problem {
	if status < 400 || status > 599 {
		status = http.StatusInternalServerError
	}
	r.mu.RLock()
	code, ok := r.byStatus[status]
	d := r.byCode[code]
	r.mu.RUnlock()
	if ok {
		p := occurrenceOf(&d)
		return &p
	}
	family := Internal
	if status < 500 {
		family = BadRequest
	}
	p := New(family)
	p.typ = "about:blank"
	p.status = status
	p.title = http.StatusText(status)
	if status == http.StatusRequestedRangeNotSatisfiable {
		// RFC 9110's phrase; net/http keeps RFC 2616's.
		p.title = "Range Not Satisfiable"
	}
	if p.title == "" {
		p.title = builtinDefinition(family).Title
	}
	p.kindType, p.kindTitle = p.typ, p.title
	p.detail = ""
	p.defaultDetail = ""
	p.unclaimed = true
	return p
}

// Definitions returns the definition of every registered code in
// registration order.
func (r *Registry) Definitions() []Definition {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Definition, 0, len(r.order))
	for _, code := range r.order {
		out = append(out, r.byCode[code])
	}
	return out
}
