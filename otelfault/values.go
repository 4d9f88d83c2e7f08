package otelfault

// token keeps a value of the registry's shape (snake_case: a lowercase
// letter, then lowercase letters, digits and underscores, at most 64 bytes)
// and replaces anything else. code, action, cause and outcome all have that
// shape, and a hand-built Problem holding something else must not put raw
// text into a span or an unbounded value into a metric series. A shape
// check rather than a list of the known values, so that a value the
// contract adds later passes without a change here.
func token(s string) string {
	if len(s) == 0 || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return other
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return other
		}
	}
	return s
}
