package problemdocs_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/problemdocs"
)

// Mount the catalog where the Writer's base URI points, so every type URI
// the service sends resolves on the service itself.
func ExampleHandler() {
	wr := problem.NewWriter(problem.WithBaseURI("http://127.0.0.1:8080/problems/"))
	mux := http.NewServeMux()
	mux.Handle("/problems/", problemdocs.Handler(problemdocs.WithWriter(wr)))

	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/problems/rate_limited", nil)
	req.Header.Set("Accept", "application/json")
	mux.ServeHTTP(rec, req)
	var page struct {
		Type, Action string
		Reaction     string `json:"client_reaction"`
	}
	json.Unmarshal(rec.Body.Bytes(), &page)
	fmt.Println(rec.Code, page.Type, page.Action)
	// Output: 200 http://127.0.0.1:8080/problems/rate_limited retry
}

// Merge the components into a spec the service already has, then refer to
// a response from an operation.
func ExampleComponents() {
	spec := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": "orders", "version": "1"},
		"paths": map[string]any{"/v1/orders": map[string]any{"post": map[string]any{
			"responses": map[string]any{
				"201": map[string]any{"description": "created"},
				"422": map[string]any{"$ref": "#/components/responses/" + "Problem422"},
				"429": map[string]any{"$ref": "#/components/responses/" + "Problem429"},
			},
		}}},
		"components": map[string]any{"schemas": map[string]any{"Order": map[string]any{"type": "object"}}},
	}
	components := spec["components"].(map[string]any)
	for section, entries := range problemdocs.Components() {
		if components[section] == nil {
			components[section] = map[string]any{}
		}
		for name, v := range entries.(map[string]any) {
			components[section].(map[string]any)[name] = v
		}
	}
	fmt.Println(len(components["schemas"].(map[string]any)), components["responses"].(map[string]any)["Problem429"] != nil)
	// Output: 3 true
}

// The problem document as a standalone JSON Schema, for validating bodies
// with any JSON Schema 2020-12 validator.
func ExampleJSONSchema() {
	raw, err := problemdocs.JSONSchema()
	if err != nil {
		panic(err)
	}
	var schema struct {
		ID       string   `json:"$id"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		panic(err)
	}
	fmt.Println(schema.ID == problemdocs.JSONSchemaID, schema.Required)
	// Output: true [type title status code action cause retryable]
}
