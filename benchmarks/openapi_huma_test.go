package benchmarks

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/faultline-go/faultline/problemdocs"
	"github.com/getkin/kin-openapi/openapi3"
)

type createOrderInput struct {
	Body struct {
		SKU string `json:"sku"`
	}
}

type createOrderOutput struct {
	Body struct {
		ID string `json:"id"`
	}
}

// A huma v2 service keeps its generated OpenAPI and gains faultline's
// problem components: the spec is merged as JSON (huma's components are
// typed, faultline's are plain JSON Schema), operations refer to the
// reusable responses, and the result is a valid OpenAPI 3.1 document.
func TestMergeProblemComponentsIntoHumaOpenAPI(t *testing.T) {
	api := humago.New(http.NewServeMux(), huma.DefaultConfig("orders", "1.0.0"))
	huma.Register(api, huma.Operation{OperationID: "create-order", Method: http.MethodPost, Path: "/v1/orders"},
		func(context.Context, *createOrderInput) (*createOrderOutput, error) { return &createOrderOutput{}, nil })

	raw, err := json.Marshal(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
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
	post := spec["paths"].(map[string]any)["/v1/orders"].(map[string]any)["post"].(map[string]any)
	responses := post["responses"].(map[string]any)
	responses["422"] = map[string]any{"$ref": "#/components/responses/Problem422"}
	responses["429"] = map[string]any{"$ref": "#/components/responses/Problem429"}

	merged, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(merged)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("merged spec is invalid: %v", err)
	}
	op := doc.Paths.Find("/v1/orders").Post
	r429 := op.Responses.Value("429")
	if r429 == nil || r429.Value.Content.Get("application/problem+json") == nil || doc.Components.Schemas["Problem"] == nil {
		t.Fatalf("the operation does not describe its problems")
	}
	if doc.Components.Schemas["ErrorModel"] == nil {
		t.Fatalf("huma's own schemas were lost in the merge")
	}
}
