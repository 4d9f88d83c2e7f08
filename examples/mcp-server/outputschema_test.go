package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestPendingResultMatchesTheOutputSchema: MCP clients validate the
// structuredContent of a result that is not an error against the tool's
// advertised outputSchema (the TypeScript SDK's client rejects a mismatch).
// An approval that is pending is not an error, so the refund tool's schema
// must admit the pending document, or conforming agents never see its
// approval_id.
func TestPendingResultMatchesTheOutputSchema(t *testing.T) {
	f := start(t)
	cs := f.session(t, "corr-schema-1")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]json.RawMessage{}
	for _, tl := range tools.Tools {
		raw, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		schemas[tl.Name] = raw
	}
	for name, args := range map[string]map[string]any{
		"refund":       {"order_id": "o1"},
		"get_order":    {"id": "o1"},
		"create_order": {"sku": "BOOK-2", "quantity": 1},
	} {
		res, err := callTool(t, cs, name, args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v isError=%v", name, err, res != nil && res.IsError)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(schemas[name], &s); err != nil {
			t.Fatalf("%s schema %s: %v", name, schemas[name], err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		var instance any
		if err := json.Unmarshal(structured(t, res), &instance); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(instance); err != nil {
			t.Errorf("%s: structuredContent %s does not match the advertised outputSchema %s: %v",
				name, structured(t, res), schemas[name], err)
		}
	}
}
