package sanitize

import (
	"strings"
	"testing"
)

// A long scan raises the flags the one-pass loop raises over the same
// bytes: only the order of its checks differs. Every trigger the rules
// have, in gitleaks' samples, the hostile units and the round's forms, is
// read both ways inside text long enough for scanLong.
func TestLongScanFlagsAsShort(t *testing.T) {
	var texts []string
	for _, c := range loadGitleaksCases(t) {
		if c.Kind == "tp" || c.Kind == "fp" {
			texts = append(texts, c.Input)
		}
	}
	texts = append(texts, hostileUnits...)
	texts = append(texts,
		"INSERT INTO users (name, password) VALUES ('bob', 'Zq8Kw2Lm9Rt4Vx7Pb3Nc')", "<wsse:Password>Zq8Kw2Lm9Rt4Vx7Pb3Nc</wsse:Password>",
		"echo Zq8Kw2Lm9Rt4Vx7Pb3Nc | docker login --password-stdin", "GET /v1/x?passcode=Zq8Kw2Lm9Rt4Vx7Pb3Nc HTTP/1.1",
		"API key: <code>Zq8Kw2Lm9Rt4Vx7Pb3Nc</code>", "card 4111.1111.1111.1111", "CONFIG SET requirepass Zq8Kw2Lm9Rt4Vx7Pb3Nc")
	filler := strings.Repeat("the quick brown fox jumps over the lazy dog; ", longScan/44+1)
	for _, x := range texts {
		s := filler + x + "\n" + filler
		for _, sc := range []*scanner{publicScanner, logScanner} {
			var a, b valueSkips
			long, _ := sc.scanLong(s, 0, len(s), sc.want, 0, startFlags(s, 0, sc.want), &a)
			short, _ := sc.scanUntil(s, 0, len(s), sc.want, 0, startFlags(s, 0, sc.want), &b)
			if long != short {
				t.Errorf("%q inside %d bytes: scanLong %b, scanUntil %b", x, len(s), long, short)
			}
		}
	}
}
