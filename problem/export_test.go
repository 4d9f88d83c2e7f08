package problem

// AppendText is the text/plain rendering, for the external tests that
// compare it with the other representations.
func AppendText(p *Problem, dst []byte, brand string) []byte { return p.appendText(dst, brand) }

// AppendXML is the problem+xml rendering, for the same tests.
func AppendXML(p *Problem, dst []byte) []byte { return p.appendXML(dst, false) }
