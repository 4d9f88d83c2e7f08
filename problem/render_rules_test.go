package problem

import (
	"encoding/json"
	"math"
	"testing"
)

// Every value renders as AppendJSON's doc says, nil containers of any
// type, values encoding/json refuses as a whole and a type whose own
// MarshalJSON fails included.
func TestRenderedValuesFollowTheDocumentedRules(t *testing.T) {
	type priced struct {
		SKU   string  `json:"sku"`
		Price float64 `json:"price"`
	}
	type counted struct {
		N json.Number `json:"n"`
		M string      `json:"m"`
	}
	type holder struct {
		Tags map[string]string `json:"tags"`
		IDs  []int             `json:"ids"`
	}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"nil map[string]string", map[string]string(nil), `{}`},
		{"nil map[int]string", map[int]string(nil), `{}`},
		{"nil map[string][]int", map[string][]int(nil), `{}`},
		{"nil map[any]any", map[any]any(nil), `{}`},
		{"nil []int", []int(nil), `[]`},
		{"nil []float64", []float64(nil), `[]`},
		{"nil []map[string]any", []map[string]any(nil), `[]`},
		{"nil []string", []string(nil), `[]`},
		{"nil []any", []any(nil), `[]`},
		{"nil map[string]any", map[string]any(nil), `{}`},
		{"nil []byte", []byte(nil), `""`},
		{"nil inside []any", []any{map[string]int(nil), []bool(nil), 1}, `[{},[],1]`},
		// Inside a value encoding/json renders, its own rules hold.
		{"nil fields of a struct", holder{}, `{"ids":null,"tags":null}`},
		{"struct holding NaN", priced{"a-1", math.NaN()}, `null`},
		{"struct holding +Inf", priced{"a-1", math.Inf(1)}, `null`},
		{"struct holding 01", counted{"01", "x"}, `null`},
		{"struct holding NaN number", counted{"NaN", "x"}, `null`},
		{"struct holding 1E700", counted{"1E700", "x"}, `{"m":"x","n":null}`},
		{"struct in []any with NaN", []any{priced{"b", math.NaN()}, "kept"}, `[null,"kept"]`},
		{"invalid RawMessage {", json.RawMessage("{"), `null`},
		{"invalid RawMessage [1,", json.RawMessage("[1,"), `null`},
		{"invalid RawMessage nul", json.RawMessage("nul"), `null`},
		{"valid RawMessage", json.RawMessage(`{"b": [1, 2], "a": "x"}`), `{"a":"x","b":[1,2]}`},
		{"RawMessage in map", map[string]any{"r": json.RawMessage("{"), "s": 1}, `{"r":null,"s":1}`},
		{"NaN alone", math.NaN(), `null`},
		{"[]float64 with NaN", []float64{1, math.NaN()}, `[1,null]`},
	}
	for _, c := range cases {
		got := string(appendValue(nil, c.v))
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
