package problem

import "testing"

func TestNegotiate(t *testing.T) {
	cases := []struct {
		accept string
		want   media
	}{
		{"", mediaJSON},
		{"*/*", mediaJSON},
		{"application/problem+json", mediaJSON},
		{"application/json", mediaJSON},
		{"application/*", mediaJSON},
		{"application/problem+xml", mediaXML},
		{"application/xml", mediaXML},
		{"text/xml", mediaXML},
		{"text/plain", mediaText},
		{"text/*", mediaText},
		{"TEXT/PLAIN", mediaText},
		{"text/html", mediaJSON},
		{"image/png", mediaJSON},
		{"garbage", mediaJSON},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", mediaXML},
		{"application/json;q=0.5, application/problem+xml", mediaXML},
		{"application/problem+xml;q=0.1, application/problem+json;q=0.2", mediaJSON},
		{"text/plain, application/json;q=0.9", mediaText},
		{"application/json;q=0, text/plain;q=0.1", mediaText},
		{"application/json;q=0", mediaJSON},
		{"*/*;q=0.1, text/plain;q=0", mediaJSON},
		{"application/xml;q=bogus", mediaXML},
		{"application/xml ; q = 0.7 , application/json ; q = 0.6", mediaXML},
		{",,,;;;", mediaJSON},
		// application/* covers problem+xml as well as problem+json.
		{"application/*, application/problem+json;q=0", mediaXML},
		{"application/*;q=0.5, application/json;q=0.1", mediaXML},
		{"application/*;q=0.5, text/plain;q=0.4", mediaJSON},
		// The type sent outranks a relative named before it.
		{"application/json;q=0.5, application/problem+xml;q=0.8, application/problem+json", mediaJSON},
		{"application/json;q=0, application/problem+json, application/xml;q=0.5", mediaJSON},
		{"application/xml;q=0.1, text/plain;q=0.5, application/problem+xml", mediaXML},
		{"application/problem+json;q=0.2, application/json, text/plain;q=0.3", mediaText},
		{"text/xml;q=0, application/problem+xml;q=0.9, application/json;q=0.8", mediaXML},
	}
	for _, c := range cases {
		if got := negotiate(c.accept); got != c.want {
			t.Errorf("negotiate(%q) = %v, want %v", c.accept, got, c.want)
		}
	}
}
