package problem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

const (
	tableBegin = "<!-- codes:begin (generated from problem.DefaultRegistry; go test ./problem -update) -->\n"
	tableEnd   = "<!-- codes:end -->"
)

// TestREADMECodeTable fails when README.md's code table drifts from the
// default registry; -update rewrites it, and only it.
func TestREADMECodeTable(t *testing.T) {
	const path = "../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultRegistry().markdown()
	out, err := spliceTable(readme, want)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(out, readme) {
		return
	}
	if !*update {
		t.Fatalf("README.md's code table drifted from the registry; run go test ./problem -update\nwant:\n%s", want)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// spliceTable returns readme with the text between the markers replaced by
// table, in a new slice: appending to a prefix of readme would overwrite
// the rest of it while it is still being read (how README.md once lost its
// closing paragraph). Each marker must appear exactly once, in order.
func spliceTable(readme []byte, table string) ([]byte, error) {
	for _, m := range []string{tableBegin, tableEnd} {
		if n := bytes.Count(readme, []byte(m)); n != 1 {
			return nil, fmt.Errorf("README.md holds the marker %q %d times, want once", m, n)
		}
	}
	begin := bytes.Index(readme, []byte(tableBegin)) + len(tableBegin)
	end := bytes.Index(readme, []byte(tableEnd))
	if end < begin {
		return nil, fmt.Errorf("README.md's marker %q precedes %q", tableEnd, tableBegin)
	}
	out := make([]byte, 0, len(readme)-(end-begin)+len(table))
	out = append(out, readme[:begin]...)
	out = append(out, table...)
	return append(out, readme[end:]...), nil
}

// TestSpliceTableTouchesOnlyTheTable proves issue 10 item 19: rewriting the
// table leaves every byte outside the markers as it was (the aliasing bug
// corrupted the text after the table), and repeated or swapped markers are
// refused rather than half-rewritten.
func TestSpliceTableTouchesOnlyTheTable(t *testing.T) {
	before := "# Title\n\nintro\n\n" + tableBegin
	after := tableEnd + "\n\nCodes are stable: a closing paragraph that must survive.\n"
	readme := []byte(before + "| old | short |\n" + after)
	table := strings.Repeat("| a much longer generated row |\n", 5)
	out, err := spliceTable(readme, table)
	if err != nil {
		t.Fatal(err)
	}
	if want := before + table + after; string(out) != want {
		t.Fatalf("splice changed text outside the markers:\n%s", out)
	}
	if string(readme) != before+"| old | short |\n"+after {
		t.Fatalf("splice modified its input:\n%s", readme)
	}
	// A shorter table must not leave the tail of the old one behind.
	if out, _ := spliceTable(out, "| x |\n"); string(out) != before+"| x |\n"+after {
		t.Fatalf("shrinking splice:\n%s", out)
	}
	for _, bad := range []string{
		before + after + tableEnd,
		before + tableBegin + after,
		tableEnd + before + "x",
		"no markers at all",
	} {
		if _, err := spliceTable([]byte(bad), table); err == nil {
			t.Errorf("spliceTable accepted %q", bad)
		}
	}
}

func TestRegistryJSON(t *testing.T) {
	data, err := NewRegistry().catalogJSON("https://errors.example.com/")
	if err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	if err := json.Unmarshal(data, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(builtin) || docs[0]["code"] != "bad_request" || docs[0]["status"] != 400.0 ||
		docs[0]["type"] != "https://errors.example.com/bad_request" || docs[0]["jsonrpc_code"] != float64(RPCInvalidParams) {
		t.Fatalf("docs = %s", data)
	}
	md := NewRegistry().markdown()
	if strings.Count(md, "\n") != len(builtin)+2 || !strings.Contains(md, "| `rate_limited` | 429 | -32603 | `retry` | `request` | true |") {
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
