package sanitize

import "testing"

// A value that may name a variable ("$PGPASS", "${DB_PASSWORD}") is told
// from a secret without copying it: strings.ToUpper copied every "$Name"
// with a small letter, and "${NAME}" was read by concatenating its brace,
// an allocation for each such value in the text.
func TestPlaceholderValuesDoNotAllocate(t *testing.T) {
	for _, u := range []string{"password=$Secret1x ", "token: ${DB_PASSWORD} ", "api_key=${Api_Key}\n", "password = $PGPASS, "} {
		s := fill(u)
		if n := testing.AllocsPerRun(2, func() { sink = Log(s) }); n > 10 {
			t.Errorf("Log(%q x %d): %.0f allocations", u, len(s)/len(u), n)
		}
	}
}
