package problem

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline-go/faultline/sanitize"
)

// valueGen builds a JSON-like Go value from fuzz bytes, deterministically.
type valueGen struct {
	data  []byte
	clean bool // stays true while encoding/json must agree with the kit
}

func (g *valueGen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *valueGen) str() string {
	n := int(g.byte() % 24)
	if n > len(g.data) {
		n = len(g.data)
	}
	s := string(g.data[:n])
	g.data = g.data[n:]
	if !utf8.ValidString(s) || sanitize.Public(s) != s || strings.IndexFunc(s, sanitize.IsInvisible) >= 0 ||
		strings.ContainsAny(s, "\u2028\u2029") || secretName(s) {
		g.clean = false
	}
	return s
}

func (g *valueGen) value(depth int) any {
	switch k := g.byte() % 9; {
	case k == 0:
		return nil
	case k == 1:
		return g.byte()%2 == 0
	case k == 2:
		var b [8]byte
		for i := range b {
			b[i] = g.byte()
		}
		return int64(binary.LittleEndian.Uint64(b[:]))
	case k == 3:
		var b [8]byte
		for i := range b {
			b[i] = g.byte()
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			g.clean = false
		}
		return f
	case k == 4:
		n := json.Number(g.str())
		if !portableNumber(string(n)) {
			g.clean = false
		}
		return n
	case k == 5 || depth > 3:
		return g.str()
	case k == 6:
		n := int(g.byte() % 5)
		if n == 0 {
			g.clean = false // nil slice: [] here, null in encoding/json
			return []any(nil)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = g.value(depth + 1)
		}
		return out
	default:
		n := int(g.byte() % 5)
		out := make(map[string]any, n)
		for range n {
			out[g.str()] = g.value(depth + 1)
		}
		return out
	}
}

// FuzzRenderDifferential renders random extension values with the kit and
// with encoding/json. The kit's output must always be valid JSON with
// unique names at every level, and its XML well-formed; where the input
// holds nothing the kit deliberately treats differently (text the public
// tier changes, invisible characters, secret names, invalid numbers,
// NaN, nil slices; see AppendJSON), both must decode to the same value.
func FuzzRenderDifferential(f *testing.F) {
	f.Add([]byte{7, 2, 1, 'a', 5, 3, 'b', 'c', 'd'})
	f.Add([]byte{7, 2, 8, '1', '0', '.', '0', '.', '0', '.', '1', 1, 1, 8, '1', '0', '.', '0', '.', '0', '.', '2', 1, 0})
	f.Add([]byte{4, 3, 'N', 'a', 'N'})
	f.Add([]byte{6, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8, 3, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 5, 2, 0xe2, 0x80})
	f.Add([]byte{7, 1, 8, 'p', 'a', 's', 's', 'w', 'o', 'r', 'd', 5, 3, 'x', 'y', 'z'})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &valueGen{data: data, clean: true}
		v := g.value(0)
		ours := appendValue(nil, v)
		if err := uniqueJSON(ours); err != nil {
			t.Fatalf("%v for %#v: %q", err, v, ours)
		}
		wellFormed(t, New(Conflict).WithExtension("value", v).AppendXML(nil))
		if !g.clean {
			return
		}
		theirs, err := json.Marshal(v)
		if err != nil {
			return
		}
		var a, b any
		if json.Unmarshal(ours, &a) != nil || json.Unmarshal(theirs, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("kit and encoding/json disagree on %#v:\n%s\n%s", v, ours, theirs)
		}
	})
}
