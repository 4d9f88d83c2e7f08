package problem

// AppendText is the text/plain rendering, for the external tests that
// compare it with the other representations.
func AppendText(p *Problem, dst []byte, brand string) []byte { return p.appendText(dst, brand) }

// AppendXML is the problem+xml rendering, for the same tests.
func AppendXML(p *Problem, dst []byte) []byte { return p.appendXML(dst, false) }

// def is the catalog's definition of a built-in kind, for tests that
// compare a rendering with it.
func def(k Kind) Definition { return *builtinDefinition(k) }

// mustRegister registers d in r for a test, failing it loudly.
func mustRegister(r *Registry, d Definition) Kind {
	if err := r.Register(d); err != nil {
		panic(err)
	}
	return d.Code
}
