package problem

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline-go/faultline/sanitize"
)

// valueGen builds a Go value from fuzz bytes, deterministically, together
// with the value the package doc's rules say the kit renders for it
// (decoded as encoding/json decodes into any).
type valueGen struct {
	data []byte
	// clean stays true while the value holds no text the public tier,
	// the secret rule or the U+FFFD rule changes: the oracle does not
	// predict sanitize, it only knows the structural rules.
	clean bool
	// ruled records that a structural rule (nil container, NaN, invalid
	// number, refused value, invalid RawMessage) made the rendering differ
	// from encoding/json's; without one both must agree exactly.
	ruled bool
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
	if !utf8.ValidString(s) || sanitize.Public(s) != s || strings.IndexFunc(s, isReplaced) >= 0 ||
		strings.ContainsAny(s, "\u2028\u2029") || secretName(s) {
		g.clean = false
	}
	return s
}

func (g *valueGen) float() float64 {
	var b [8]byte
	for i := range b {
		b[i] = g.byte()
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

// floatWant is what a float renders as: null for NaN and infinities.
func (g *valueGen) floatWant(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		g.ruled = true
		return nil
	}
	return f
}

// numberWant is what a json.Number renders as: null outside JSON's grammar
// or a double's range.
func (g *valueGen) numberWant(n json.Number) any {
	if !validNumber(string(n)) {
		g.ruled = true
		return nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		g.ruled = true
		return nil
	}
	return f
}

// rawWant is what valid JSON text renders as: its own value, with the
// number rule applied to each number.
func (g *valueGen) rawWant(raw []byte) any {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			return g.numberWant(v)
		case []any:
			for i := range v {
				v[i] = walk(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = walk(v[k])
			}
		}
		return v
	}
	return walk(v)
}

// record is a struct rendered through encoding/json.
type record struct {
	Name  string      `json:"name"`
	Score float64     `json:"score"`
	N     json.Number `json:"n,omitempty"`
}

func (g *valueGen) value(depth int) (v, want any) {
	switch k := g.byte() % 14; {
	case k == 0:
		return nil, nil
	case k == 1:
		b := g.byte()%2 == 0
		return b, b
	case k == 2:
		i := int64(binary.LittleEndian.Uint64([]byte{g.byte(), g.byte(), g.byte(), g.byte(), g.byte(), g.byte(), g.byte(), g.byte()}))
		return i, float64(i)
	case k == 3:
		f := g.float()
		return f, g.floatWant(f)
	case k == 4:
		n := json.Number(g.str())
		return n, g.numberWant(n)
	case k == 5 || depth > 3:
		s := g.str()
		return s, s
	case k == 6:
		n := int(g.byte() % 5)
		if n == 0 {
			g.ruled = true // nil slice: [] here, null in encoding/json
			return []any(nil), []any{}
		}
		out, w := make([]any, n), make([]any, n)
		for i := range out {
			out[i], w[i] = g.value(depth + 1)
		}
		return out, w
	case k == 7:
		// Typed nil containers: {} and [] whatever the element type.
		g.ruled = true
		switch g.byte() % 6 {
		case 0:
			return map[string]string(nil), map[string]any{}
		case 1:
			return map[int]string(nil), map[string]any{}
		case 2:
			return []int(nil), []any{}
		case 3:
			return []float64(nil), []any{}
		case 4:
			return []byte(nil), ""
		}
		return []string(nil), []any{}
	case k == 8:
		// A struct goes through encoding/json; one it refuses is null as
		// a whole.
		r := record{Name: g.str(), Score: g.float()}
		if g.byte()%2 == 0 {
			r.N = json.Number(g.str())
		}
		if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) || r.N != "" && !validNumber(string(r.N)) {
			g.ruled = true
			return r, nil
		}
		w := map[string]any{"name": r.Name, "score": r.Score}
		if r.N != "" {
			w["n"] = g.numberWant(r.N)
		}
		return r, w
	case k == 9:
		// A json.RawMessage: its value when valid, null (never its bytes)
		// when not.
		inner, _ := g.value(depth + 1)
		raw, err := json.Marshal(inner)
		if err != nil || g.byte()%3 == 0 {
			g.ruled = true
			raw = []byte(`{"x":` + g.str())
		}
		if !json.Valid(raw) {
			g.ruled = true
			return json.RawMessage(raw), nil
		}
		return json.RawMessage(raw), g.rawWant(raw)
	case k == 10:
		// A map with non-string keys encoding/json refuses: walked by the
		// kit, keys formatted with fmt.
		n := int(g.byte() % 3)
		out, w := make(map[any]any, n), make(map[string]any, n)
		for range n {
			key := int(g.byte())
			val, vw := g.value(depth + 1)
			out[key], w[strconv.Itoa(key)] = val, vw
		}
		g.ruled = true
		return out, w
	default:
		n := int(g.byte() % 5)
		out, w := make(map[string]any, n), make(map[string]any, n)
		for range n {
			key := g.str()
			out[key], w[key] = g.value(depth + 1)
		}
		return out, w
	}
}

// members checks the rules of the standard members on a literal problem
// made of the rest of the input: title, detail and correlation_id are the
// public tier's text (with U+FFFD for what JSON strings do not carry), type
// and instance are URI references.
func members(t *testing.T, g *valueGen) {
	p := &Problem{typ: g.str(), title: g.str(), detail: g.str(), instance: g.str(), correlationID: g.str(), code: "conflict"}
	var m map[string]any
	if err := json.Unmarshal(p.AppendJSON(nil), &m); err != nil {
		t.Fatalf("%+v: %v", p, err)
	}
	for name, in := range map[string]string{"title": p.title, "detail": p.detail, "correlation_id": p.correlationID} {
		if want := renderedName(sanitize.Public(in)); in != "" && m[name] != want {
			t.Fatalf("%s %q rendered %q, the public tier says %q", name, in, m[name], want)
		}
	}
	for _, name := range []string{"type", "instance"} {
		ref, _ := m[name].(string)
		for i := range len(ref) {
			if !uriAllowed(ref, i) {
				t.Fatalf("%s %q is not a URI reference at byte %d", name, ref, i)
			}
		}
	}
}

// FuzzRenderDifferential renders random extension values with the kit and
// with encoding/json. The kit's output must always be valid JSON with
// unique names at every level, and its XML well-formed. Where the input
// holds no text the public tier changes, the kit's output must be what the
// package doc's rules predict for it, and where no rule applied, exactly
// what encoding/json writes: an undocumented difference fails.
func FuzzRenderDifferential(f *testing.F) {
	f.Add([]byte{13, 2, 1, 'a', 5, 3, 'b', 'c', 'd'})
	f.Add([]byte{13, 2, 8, '1', '0', '.', '0', '.', '0', '.', '1', 1, 1, 8, '1', '0', '.', '0', '.', '0', '.', '2', 1, 0})
	f.Add([]byte{4, 3, 'N', 'a', 'N'})
	f.Add([]byte{6, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8, 3, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 5, 2, 0xe2, 0x80})
	f.Add([]byte{13, 1, 8, 'p', 'a', 's', 's', 'w', 'o', 'r', 'd', 5, 3, 'x', 'y', 'z'})
	f.Add([]byte{7, 1})
	f.Add([]byte{7, 4})
	f.Add([]byte{8, 2, 'a', 'b', 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 1})
	f.Add([]byte{8, 2, 'a', 'b', 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 2, '0', '1'})
	f.Add([]byte{9, 1, 1, 0, 1, '1'})
	f.Add([]byte{9, 5, 2, 'o', 'k', 1})
	f.Add([]byte{10, 2, 7, 1, 1, 9, 5, 1, 'x'})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &valueGen{data: data, clean: true}
		v, want := g.value(0)
		ours := appendValue(nil, v)
		if err := uniqueJSON(ours); err != nil {
			t.Fatalf("%v for %#v: %q", err, v, ours)
		}
		wellFormed(t, New(Conflict).WithExtension("value", v).appendXML(nil, false))
		members(t, g)
		if !g.clean {
			return
		}
		var got any
		if err := json.Unmarshal(ours, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("no documented rule predicts the kit's rendering of %#v:\n%s\nrules predict %#v", v, ours, want)
		}
		if g.ruled {
			return
		}
		theirs, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("encoding/json refuses %#v (%v), which no rule covers", v, err)
		}
		var b any
		if json.Unmarshal(theirs, &b) != nil || !reflect.DeepEqual(got, b) {
			t.Fatalf("kit and encoding/json disagree on %#v:\n%s\n%s", v, ours, theirs)
		}
	})
}
