package mcpfault

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzRPCScan holds the streaming scan to encoding/json: on any JSON
// object, fed in pieces of any size, it finds the same jsonrpc and id
// members (where the object names each member once and spells the names
// without escapes).
func FuzzRPCScan(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`), uint8(3))
	f.Add([]byte(`{"method":"m","params":{"id":"inner","a":[1,{"jsonrpc":"1.0"}]},"id":"outer \"q\"","jsonrpc":"2.0"}`), uint8(1))
	f.Add([]byte(" {\n \"id\" : -1.5e3 , \"jsonrpc\" : \"2.0\" } "), uint8(7))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null}`), uint8(0))
	f.Add([]byte(`{"jsonrpc":"2.0","id":{"a":1}}`), uint8(2))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1}]`), uint8(5))
	f.Fuzz(func(t *testing.T, doc []byte, piece uint8) {
		var members map[string]json.RawMessage
		if json.Unmarshal(doc, &members) != nil || members == nil || !plainNames(doc) {
			return
		}
		var s rpcScan
		step := int(piece)%9 + 1
		for i := 0; i < len(doc); i += step {
			s.feed(doc[i:min(i+step, len(doc))])
		}
		wantRPC := string(members["jsonrpc"]) == `"2.0"`
		if s.isRPC() != wantRPC {
			t.Fatalf("%s: isRPC %v, want %v", doc, s.isRPC(), wantRPC)
		}
		want := "null"
		if id, ok := members["id"]; ok && len(id) <= 256 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
			want = string(id)
		}
		if got := string(s.idJSON()); got != want {
			t.Fatalf("%s: id %s, want %s", doc, got, want)
		}
	})
}

// plainNames reports whether the top-level object names each member once
// and spells every name without escapes (the scan compares names as
// written, and keeps the first of two equal names where encoding/json
// keeps the last).
func plainNames(doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if _, err := dec.Token(); err != nil {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		name, _ := tok.(string)
		raw := strings.Trim(string(doc[before:dec.InputOffset()]), " \t\r\n,")
		if seen[name] || raw != `"`+name+`"` {
			return false
		}
		seen[name] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return true
}
