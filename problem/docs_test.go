package problem

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const (
	tableBegin = "<!-- codes:begin (generated from problem.DefaultRegistry; go test ./problem -update) -->\n"
	tableEnd   = "<!-- codes:end -->"
)

// TestREADMECodeTable fails when README.md's code table drifts from the
// default registry; -update rewrites it.
func TestREADMECodeTable(t *testing.T) {
	const path = "../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := bytes.Cut(readme, []byte(tableBegin))
	if !ok {
		t.Fatalf("README.md lacks the marker %q", tableBegin)
	}
	current, after, ok := bytes.Cut(rest, []byte(tableEnd))
	if !ok {
		t.Fatalf("README.md lacks the marker %q", tableEnd)
	}
	want := DefaultRegistry().Markdown()
	if string(current) == want {
		return
	}
	if !*update {
		t.Fatalf("README.md's code table drifted from the registry; run go test ./problem -update\nwant:\n%s", want)
	}
	out := append(append(append(append(before, tableBegin...), want...), tableEnd...), after...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRegistryJSON(t *testing.T) {
	data, err := NewRegistry().JSON()
	if err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	if err := json.Unmarshal(data, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(builtin) || docs[0]["code"] != "bad_request" || docs[0]["status"] != 400.0 {
		t.Fatalf("docs = %s", data)
	}
	md := NewRegistry().Markdown()
	if strings.Count(md, "\n") != len(builtin)+2 || !strings.Contains(md, "| `rate_limited` | 429 | `retry` | `request` | true |") {
		t.Fatalf("markdown = %s", md)
	}
}

// TestREADMEExampleIsRendered keeps the README's example response equal to
// what the renderer produces.
func TestREADMEExampleIsRendered(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/golden/rate_limited_legacy.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, append(append([]byte("```json\n"), golden...), "\n```"...)) {
		t.Fatalf("README.md's example response differs from testdata/golden/rate_limited_legacy.json:\n%s", golden)
	}
}
