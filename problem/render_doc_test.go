package problem

import (
	"encoding/json"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The package documentation states every rule by which a rendering
// differs from encoding/json; each rule here is pinned by a test or by
// FuzzRenderDifferential.
func TestPackageDocStatesEveryRenderingRule(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range []string{"doc.go"} {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/faultline-go/faultline/problem")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(pkg.Doc), " ")
	for _, rule := range []string{
		"How a rendering differs from encoding/json",
		"passes sanitize.Public",
		"is sanitize.Redacted, at any depth",
		`a second "ip" becomes "ip (2)"`,
		"one the problem names itself (a peer's, read with Parse) passes the public tier",
		`"https://x.test/p?q=a b" is sent as "https://x.test/p?q=a%20b"`,
		`"/v1/SELECT * FROM users/x" is sent as "/v1/%5Bredacted%5D/x"`,
		"a nil map of any type is {} and a nil slice []",
		"A value encoding/json refuses is null as a whole",
		`an invalid json.RawMessage such as "{" is null, never its bytes`,
		`starts with "xml" in any case (XML reserves those), is written as <member name="...">`,
		"beyond a double (1E700), is null",
		"contains itself is null where it recurs",
	} {
		if !strings.Contains(text, rule) {
			t.Errorf("package doc does not state: %s", rule)
		}
	}
}

// type and instance go out as URI references, over HTTP as in AppendJSON;
// an instance the public tier would replace whole keeps its other segments.
func TestTypeAndInstanceAreURIReferences(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	cases := []struct{ typ, instance, wantType, wantInstance string }{
		{"https://x.test/p?q=a b", "/v1/SELECT * FROM users/x", "https://x.test/p?q=a%20b", "/v1/%5Bredacted%5D/x"},
		{"https://x.test/ü", "/orders/DROP TABLE orders;--/7", "https://x.test/%C3%BC", "/orders/%5Bredacted%5D/7"},
		{"urn:x:<y>", "/a/panic: runtime error at main.go:12/b", "urn:x:%3Cy%3E", "/a/%5Bredacted%5D/b"},
		{`https://x.test/a"b{c}`, "/users/UNION SELECT password FROM users", "https://x.test/a%22b%7Bc%7D", "/users/%5Bredacted%5D"},
		{"https://x.test/ok%20already", "/plain/path", "https://x.test/ok%20already", "/plain/path"},
	}
	var current *Problem
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = wr.Write(w, r, current) }))
	defer srv.Close()
	for _, c := range cases {
		current = &Problem{typ: c.typ, instance: c.instance, code: "conflict", status: 409, title: "Conflict"}
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		if m["type"] != c.wantType || m["instance"] != c.wantInstance {
			t.Errorf("%q %q: type %v instance %v", c.typ, c.instance, m["type"], m["instance"])
		}
		var local map[string]any
		_ = json.Unmarshal(current.AppendJSON(nil), &local)
		if local["type"] != c.wantType || local["instance"] != c.wantInstance {
			t.Errorf("AppendJSON %q %q: type %v instance %v", c.typ, c.instance, local["type"], local["instance"])
		}
	}
}

// A name starting with "xml" in any case is reserved by XML and goes out
// as <member name="...">; other names stay elements.
func TestXMLReservedExtensionNames(t *testing.T) {
	for name, member := range map[string]bool{
		"xmlish": true, "XMLdata": true, "Xml_1": true, "xMl_payload": true,
		"xylophone": false, "x_ml": false, "axml": false, "mlx": false,
	} {
		x := string(New(Conflict).WithExtension(name, "v").appendXML(nil, false))
		wrapped := strings.Contains(x, `<member name="`+name+`">v</member>`)
		element := strings.Contains(x, "<"+name+">v</"+name+">")
		if wrapped != member || element == member {
			t.Errorf("%s: wrapped %v element %v in %s", name, wrapped, element, x)
		}
		wellFormed(t, []byte(x))
	}
}
