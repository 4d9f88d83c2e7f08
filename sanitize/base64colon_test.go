package sanitize

import (
	"encoding/base64"
	"strings"
	"testing"
)

// checkBase64Colon holds base64Colon to encoding/base64 on v, padded and
// raw: the same error, and the same first colon in what v decodes to.
func checkBase64Colon(t *testing.T, v string) {
	t.Helper()
	if strings.ContainsAny(v, "\r\n") {
		return
	}
	for _, enc := range []struct {
		e      *base64.Encoding
		padded bool
	}{{base64.StdEncoding, true}, {base64.RawStdEncoding, false}} {
		want, err := enc.e.DecodeString(v)
		colon, ok := base64Colon(v, enc.padded)
		if ok != (err == nil) {
			t.Fatalf("base64Colon(%q, padded %v): ok %v, encoding/base64: %v", v, enc.padded, ok, err)
		}
		if c := strings.IndexByte(string(want), ':'); ok && colon != c {
			t.Fatalf("base64Colon(%q, padded %v): colon at %d, want %d (%q)", v, enc.padded, colon, c, want)
		}
	}
}

func TestBase64ColonMatchesEncodingBase64(t *testing.T) {
	pick := xorshiftPicker(0x5eed64)
	for _, v := range []string{"", "=", "==", "x", "xx", "xxx", "xxxx", "xx==", "xxx=", "x===", "xx=", "xx=x", "====",
		"dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy==", "YWxhZGRpbjpvcGVuc2VzYW1l", "YWI6Yw", "YWI6Yw==", "YWI6Yw=", "YQ", "YR", "YR==", "-_", "a b"} {
		checkBase64Colon(t, v)
	}
	const alphabet = "ABCxyz019+/=-_:. "
	for range 20000 {
		b := make([]byte, pick(14))
		for i := range b {
			b[i] = alphabet[pick(len(alphabet))]
		}
		checkBase64Colon(t, string(b))
		// And the encoding of random text, which holds a colon at times.
		raw := make([]byte, pick(12))
		for i := range raw {
			raw[i] = byte(pick(256))
			if pick(4) == 0 {
				raw[i] = ':'
			}
		}
		checkBase64Colon(t, base64.StdEncoding.EncodeToString(raw))
		checkBase64Colon(t, base64.RawStdEncoding.EncodeToString(raw))
	}
}

// A Basic credential is decoded to find its colon, and an encoded pair
// after a colon to read it, without allocating: 64 KiB of "Basic" words
// cost the log tier one allocation each, and of long encoded pairs one
// copy each.
func TestBasicCredentialsDoNotAllocate(t *testing.T) {
	for _, u := range []string{"Basic abcdef12 ", "Authorization: Basic dXNlcjpodW50ZXIy\n", "basic 0123456789= x ", "Basic " + strings.Repeat("QUJD", 100) + " ", "data: ZGVwbG95LXVzZXI6aHVudGVyMmh1bnRlcjJodW50ZXIyaHVudGVyMg==\n", "key: QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVowMTIzNDU2Nzg5YWJjZGVm "} {
		s := fill(u)
		if n := testing.AllocsPerRun(2, func() { sink = Log(s) }); n > 10 {
			t.Errorf("Log(%.30q x %d): %.0f allocations", u, len(s)/len(u), n)
		}
	}
}

func FuzzBase64Colon(f *testing.F) {
	for _, v := range []string{"dXNlcjpodW50ZXIy", "YWI6Yw==", "xxx=", "x===", "YR"} {
		f.Add(v)
	}
	f.Fuzz(checkBase64Colon)
}
