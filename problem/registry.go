package problem

import (
	"fmt"
	"net/http"
	"sync"
)

// Registry is the single source of truth for codes. The zero value is not
// usable; create one with NewRegistry or use DefaultRegistry.
type Registry struct {
	mu       sync.RWMutex
	byName   map[string]Code
	byStatus map[int]string
	order    []string
}

// NewRegistry returns a registry holding the built-in catalog. Explicit
// registries work exactly like the default one; nothing here needs global
// state.
func NewRegistry() *Registry {
	r := NewEmptyRegistry()
	for _, c := range builtin {
		r.MustRegister(c)
	}
	return r
}

// NewEmptyRegistry returns a registry without the built-in catalog, for
// services that define every code themselves.
func NewEmptyRegistry() *Registry {
	return &Registry{byName: map[string]Code{}, byStatus: map[int]string{}}
}

var defaultRegistry = NewRegistry()

// DefaultRegistry returns the registry that holds the built-in catalog and
// the codes registered through the package-level Register.
func DefaultRegistry() *Registry { return defaultRegistry }

// Register adds c to the default registry.
func Register(c Code) error { return defaultRegistry.Register(c) }

// MustRegister adds c to the default registry and returns it, so a service
// can declare its codes as package variables.
func MustRegister(c Code) Code { return defaultRegistry.MustRegister(c) }

// Register adds c. A malformed code or a name already taken is an error:
// codes are never redefined.
func (r *Registry) Register(c Code) error {
	if err := c.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, taken := r.byName[c.Name]; taken {
		return fmt.Errorf("%w: %s", ErrDuplicateCode, c.Name)
	}
	r.byName[c.Name] = c
	r.order = append(r.order, c.Name)
	if _, ok := r.byStatus[c.Status]; !ok {
		r.byStatus[c.Status] = c.Name
	}
	return nil
}

// MustRegister is Register that panics on error, for package initialisation.
func (r *Registry) MustRegister(c Code) Code {
	if err := r.Register(c); err != nil {
		panic(err)
	}
	return c
}

// Lookup returns the code registered under name.
func (r *Registry) Lookup(name string) (Code, bool) {
	r.mu.RLock()
	c, ok := r.byName[name]
	r.mu.RUnlock()
	return c, ok
}

// ForStatus returns the code that stands for a bare HTTP error status, the
// first registered with that status. A status no code claims falls back to
// bad_request (4xx) or internal (5xx) carrying the status itself, so the
// status sent always equals the status in the body.
func (r *Registry) ForStatus(status int) Code {
	r.mu.RLock()
	name, ok := r.byStatus[status]
	c := r.byName[name]
	r.mu.RUnlock()
	if ok {
		return c
	}
	fallback := Internal
	if status >= 400 && status < 500 {
		fallback = BadRequest
	}
	if status >= 400 && status <= 599 {
		fallback.Status = status
		if text := http.StatusText(status); text != "" {
			fallback.Title = text
		}
	}
	return fallback
}

// Codes returns every registered code in registration order.
func (r *Registry) Codes() []Code {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Code, 0, len(r.order))
	for _, name := range r.order {
		out = append(out, r.byName[name])
	}
	return out
}
