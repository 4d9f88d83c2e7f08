package problem

import "sync"

// template is what New knows of a code: its definition and the occurrence
// every New of it starts from.
type template struct {
	def Definition
	// occ is nil when registries define the code differently: which
	// definition applies is then the serving Writer's to say.
	occ *Problem
}

// builtinTemplates holds the built-in catalog for New: a map nobody
// writes, so the error routes of the built-in codes read it without a
// lock or an atomic load.
var builtinTemplates = func() map[Kind]*template {
	m := make(map[Kind]*template, len(builtin))
	for i := range builtin {
		d := &builtin[i]
		occ := occurrenceOf(d)
		m[d.Code] = &template{def: *d, occ: &occ}
	}
	return m
}()

// registered holds a *template for each code outside the built-in catalog
// that a registry holds; rememberMu orders the registrations that write
// it.
var (
	registered sync.Map
	rememberMu sync.Mutex
)

// remember makes d's code known to New once a registry holds it. A
// built-in code means what the catalog says wherever New is called (a
// registry that redefines it still decides what its Writer sends); a code
// two registries define differently is left to the serving Writer.
func remember(d *Definition) {
	if builtinTemplates[d.Code] != nil {
		return
	}
	rememberMu.Lock()
	defer rememberMu.Unlock()
	if v, ok := registered.Load(d.Code); ok {
		if t := v.(*template); t.occ != nil && t.def != *d {
			registered.Store(d.Code, &template{def: t.def})
		}
		return
	}
	occ := occurrenceOf(d)
	registered.Store(d.Code, &template{def: *d, occ: &occ})
}

// templateOf returns the template of k, nil for a code no registry holds.
func templateOf(k Kind) *template {
	if t := builtinTemplates[k]; t != nil {
		return t
	}
	if v, ok := registered.Load(k); ok {
		return v.(*template)
	}
	return nil
}

// builtinDefinition returns the catalog's definition of a built-in kind.
func builtinDefinition(k Kind) *Definition { return &builtinTemplates[k].def }
