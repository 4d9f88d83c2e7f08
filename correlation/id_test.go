package correlation

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// validOracle is the specification Valid is hand-written against.
var validOracle = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{8,128}$`)

func checkUUIDv7(t *testing.T, id string) {
	t.Helper()
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' {
		t.Fatalf("%q is not in canonical UUID form", id)
	}
	if strings.Trim(strings.ReplaceAll(id, "-", ""), "0123456789abcdef") != "" {
		t.Fatalf("%q has characters other than lowercase hex", id)
	}
	if id[14] != '7' {
		t.Fatalf("%q: version nibble %q, want 7", id, id[14])
	}
	if !strings.ContainsRune("89ab", rune(id[19])) {
		t.Fatalf("%q: variant nibble %q, want 8, 9, a or b", id, id[19])
	}
	if !Valid(id) {
		t.Fatalf("%q is not Valid", id)
	}
}

func TestNewIDIsUUIDv7(t *testing.T) {
	before := time.Now().UnixMilli()
	id := newID()
	after := time.Now().UnixMilli()
	checkUUIDv7(t, id)

	var ms int64
	for _, c := range strings.ReplaceAll(id[:13], "-", "") {
		ms = ms<<4 | int64(strings.IndexRune("0123456789abcdef", c))
	}
	if ms < before || ms > after {
		t.Fatalf("timestamp %d outside [%d, %d]", ms, before, after)
	}
}

// TestNewIDAtDigits pins where each byte's digits land: a timestamp with a
// different digit in every place, and the random part decoded back into
// the bytes the version and variant bits were set on.
func TestNewIDAtDigits(t *testing.T) {
	for range 200 {
		id := newIDAt(time.UnixMilli(0x0123456789ab))
		checkUUIDv7(t, id)
		if !strings.HasPrefix(id, "01234567-89ab-7") {
			t.Fatalf("%q does not start with the timestamp's digits", id)
		}
		raw, err := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
		if err != nil || len(raw) != 16 {
			t.Fatalf("%q: %v", id, err)
		}
		if got := fmt.Sprintf("%x-%x-%x-%x-%x", raw[:4], raw[4:6], raw[6:8], raw[8:10], raw[10:]); got != id {
			t.Fatalf("re-encoded %q, want %q", got, id)
		}
	}
}

// TestFormatUUIDMatchesHex holds the eight-digits-at-a-time encoding to
// encoding/hex: every byte value in every position, and random UUIDs.
func TestFormatUUIDMatchesHex(t *testing.T) {
	check := func(u [16]byte) {
		t.Helper()
		var s [idLen]byte
		formatUUID(&s, &u)
		h := hex.EncodeToString(u[:])
		want := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		if string(s[:]) != want {
			t.Fatalf("formatUUID(%x) = %q, want %q", u, s[:], want)
		}
	}
	for b := range 256 {
		for i := range 16 {
			var u [16]byte
			u[i] = byte(b)
			check(u)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		var u [16]byte
		for i := range u {
			u[i] = byte(rng.Uint32())
		}
		check(u)
	}
}

func TestNewIDUniqueConcurrent(t *testing.T) {
	const workers, each = 8, 2000
	ids := make(chan string, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				ids <- newID()
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := make(map[string]bool, workers*each)
	for id := range ids {
		checkUUIDv7(t, id)
		if seen[id] {
			t.Fatalf("duplicate ID %s", id)
		}
		seen[id] = true
	}
}

func TestNewIDAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(1000, func() { _ = newID() }); n > 1 {
		t.Fatalf("NewID allocates %v times, want at most 1 (the string)", n)
	}
}

func TestValid(t *testing.T) {
	cases := []struct {
		id   string
		want bool
	}{
		{"", false},
		{"abcdefg", false},
		{"abcdefgh", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"0193b1c2-7d3e-7a1b-8c2d-3e4f5a6b7c8d", true},
		{"AZaz09._~+/=-", true},
		{"abc def12", false},
		{"abcdefgh\r\nX-Evil: 1", false},
		{"abcdefgh\x00", false},
		{"abcdéfgh", false},
		{"abcd,efgh", false},
		{"abcd\"efgh", false},
		{"abcd%0aefgh", false},
	}
	for _, c := range cases {
		if got := Valid(c.id); got != c.want {
			t.Errorf("Valid(%q) = %v, want %v", c.id, got, c.want)
		}
		if oracle := validOracle.MatchString(c.id); oracle != c.want {
			t.Errorf("test case disagrees with the oracle for %q", c.id)
		}
	}
}

func TestValidNoAlloc(t *testing.T) {
	ids := []string{"", "short", newID(), strings.Repeat("x", 200), "abcdefgh\r\n"}
	if n := testing.AllocsPerRun(100, func() {
		for _, id := range ids {
			_ = Valid(id)
		}
	}); n != 0 {
		t.Fatalf("Valid allocates %v times", n)
	}
}

func FuzzValid(f *testing.F) {
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := Valid(id), validOracle.MatchString(id); got != want {
			t.Fatalf("Valid(%q) = %v, oracle says %v", id, got, want)
		}
	})
}

func BenchmarkNewID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = newID()
	}
}

func BenchmarkNewIDParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_ = newID()
		}
	})
}

// BenchmarkValidFreshIDs checks inbound IDs as a server sees them: a
// different random one on every request.
func BenchmarkValidFreshIDs(b *testing.B) {
	ids := make([]string, 4096)
	for i := range ids {
		ids[i] = newID()
	}
	i := 0
	for b.Loop() {
		if !Valid(ids[i%len(ids)]) {
			b.Fatal("rejected")
		}
		i++
	}
}
