package problem

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
)

// Registry is the single source of truth for codes. The zero value is not
// usable; create one with NewRegistry or use DefaultRegistry.
type Registry struct {
	mu       sync.RWMutex
	byName   map[string]Kind
	byStatus map[int]string
	order    []string
	retired  map[string]bool
}

// NewRegistry returns a registry holding the built-in catalog. Explicit
// registries work exactly like the default one; nothing here needs global
// state.
func NewRegistry() *Registry {
	r := newEmptyRegistry()
	for _, k := range builtin {
		r.MustRegister(k)
	}
	return r
}

// newEmptyRegistry returns a registry without the built-in catalog, for
// services that define every code themselves.
func newEmptyRegistry() *Registry {
	return &Registry{byName: map[string]Kind{}, byStatus: map[int]string{}, retired: map[string]bool{}}
}

var defaultRegistry = NewRegistry()

// DefaultRegistry returns the registry that holds the built-in catalog and
// the codes registered through the package-level MustRegister.
func DefaultRegistry() *Registry { return defaultRegistry }

// MustRegister adds k to the default registry and returns it, so a service
// can declare its codes as package variables.
func MustRegister(k Kind) Kind { return defaultRegistry.MustRegister(k) }

// Register adds k. A malformed kind, a name already taken, a retired name
// or a retired successor is an error: codes are never redefined nor reused.
func (r *Registry) Register(k Kind) error {
	if err := k.validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.retired[k.Name] {
		return fmt.Errorf("%w: %s", ErrRetiredCode, k.Name)
	}
	// A deprecated code must not send its clients to one that is gone.
	if s := k.Deprecated.Successor; r.retired[s] {
		return fmt.Errorf("%w: %s, named as the successor of %s", ErrRetiredCode, s, k.Name)
	}
	if _, taken := r.byName[k.Name]; taken {
		return fmt.Errorf("%w: %s", ErrDuplicateCode, k.Name)
	}
	r.byName[k.Name] = k
	r.order = append(r.order, k.Name)
	if _, ok := r.byStatus[k.Status]; !ok {
		r.byStatus[k.Status] = k.Name
	}
	return nil
}

// MustRegister is Register that panics on error, for package initialisation.
func (r *Registry) MustRegister(k Kind) Kind {
	if err := r.Register(k); err != nil {
		panic(err)
	}
	return k
}

// Retire removes names from the registry for good: they are no longer
// looked up, and Register refuses them, because clients and logs may still
// hold their old meaning. Retiring a name twice, or one never registered
// (a code of an earlier release), is allowed.
func (r *Registry) Retire(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, name := range names {
		r.retired[name] = true
		if k, ok := r.byName[name]; ok {
			delete(r.byName, name)
			r.order = slices.DeleteFunc(r.order, func(n string) bool { return n == name })
			if r.byStatus[k.Status] == name {
				delete(r.byStatus, k.Status)
				for _, n := range r.order {
					if r.byName[n].Status == k.Status {
						r.byStatus[k.Status] = n
						break
					}
				}
			}
		}
	}
}

// Retired returns the retired names, sorted.
func (r *Registry) Retired() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.retired))
	for name := range r.retired {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Lookup returns the kind registered under name.
func (r *Registry) Lookup(name string) (Kind, bool) {
	r.mu.RLock()
	k, ok := r.byName[name]
	r.mu.RUnlock()
	return k, ok
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
	name, ok := r.byStatus[status]
	k := r.byName[name]
	r.mu.RUnlock()
	if ok {
		return New(k)
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
		p.title = family.Title
	}
	p.kindType, p.kindTitle = p.typ, p.title
	p.detail = ""
	p.defaultDetail = ""
	p.unclaimed = true
	return p
}

// Kinds returns every registered kind in registration order.
func (r *Registry) Kinds() []Kind {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Kind, 0, len(r.order))
	for _, name := range r.order {
		out = append(out, r.byName[name])
	}
	return out
}
