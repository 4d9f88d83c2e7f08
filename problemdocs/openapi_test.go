package problemdocs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/problemdocs"
	"github.com/getkin/kin-openapi/openapi3"
)

// specOf is a service's OpenAPI document holding the components and no
// paths, as a service that has no spec of its own publishes them.
func specOf(t *testing.T, wr *problem.Writer) []byte {
	t.Helper()
	raw, err := json.MarshalIndent(map[string]any{
		"openapi":    "3.1.0",
		"info":       map[string]any{"title": "orders", "version": "1"},
		"paths":      map[string]any{},
		"components": problemdocs.Components(problemdocs.WithWriter(wr)),
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func loadSpec(t *testing.T, wr *problem.Writer) *openapi3.T {
	t.Helper()
	raw := specOf(t, wr)
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the generated OpenAPI document is invalid: %v", err)
	}
	return doc
}

func visit(t *testing.T, schema *openapi3.Schema, body []byte) error {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return schema.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

func TestOpenAPIIsValidAndItsExamplesFitItsSchema(t *testing.T) {
	doc := loadSpec(t, problem.NewWriter())
	schema := doc.Components.Schemas["Problem"].Value
	seen := 0
	for name, resp := range doc.Components.Responses {
		media := resp.Value.Content.Get("application/problem+json")
		if media == nil {
			t.Fatalf("%s: no problem+json content", name)
		}
		for code, ex := range media.Examples {
			body, _ := json.Marshal(ex.Value.Value)
			if err := visit(t, schema, body); err != nil {
				t.Errorf("%s example %s does not fit the schema: %v", name, code, err)
			}
			seen++
		}
	}
	if seen != len(problem.DefaultRegistry().Definitions()) {
		t.Fatalf("%d examples for %d codes", seen, len(problem.DefaultRegistry().Definitions()))
	}
	if doc.Components.Responses["Problem429"].Value.Headers["Retry-After"] == nil {
		t.Errorf("Problem429 does not document Retry-After")
	}
}

// Bodies the writer actually sends fit the schema; one that breaks the
// contract does not, so the check can fail.
func TestWrittenProblemsFitTheSchema(t *testing.T) {
	wr := problem.NewWriter()
	schema := loadSpec(t, wr).Components.Schemas["Problem"].Value
	for _, c := range problem.DefaultRegistry().Definitions() {
		p := problem.New(c.Code).WithRetryAfter(1500 * time.Millisecond).WithOutcome(problem.OutcomeNotStarted)
		rec := httptest.NewRecorder()
		wr.Write(rec, httptest.NewRequest(http.MethodPost, "/v1/orders/%2F..%2Fx?q=1", nil), p)
		if err := visit(t, schema, rec.Body.Bytes()); err != nil {
			t.Errorf("%s: %v\n%s", string(c.Code), err, rec.Body.Bytes())
		}
	}
	bad := []string{
		`{"type":"about:blank","title":"x","status":400,"code":"bad_request","action":"retry_later","cause":"request","retryable":false}`,
		`{"type":"about:blank","title":"x","status":200,"code":"bad_request","action":"retry","cause":"request","retryable":true}`,
		`{"type":"about:blank","title":"x","status":400,"code":"made_up","action":"none","cause":"request","retryable":false}`,
		`{"title":"x","status":400,"code":"bad_request","action":"none","cause":"request"}`,
	}
	for _, b := range bad {
		if visit(t, schema, []byte(b)) == nil {
			t.Errorf("schema accepts %s", b)
		}
	}
}

func TestJSONSchemaStandsAlone(t *testing.T) {
	raw, err := problemdocs.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Schema string         `json:"$schema"`
		ID     string         `json:"$id"`
		Defs   map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.Defs["FieldError"] == nil {
		t.Fatalf("%v %+v", err, s)
	}
	schema := &openapi3.Schema{}
	if err := json.Unmarshal(raw, schema); err != nil {
		t.Fatal(err)
	}
	ok := []byte(`{"type":"about:blank","title":"x","status":422,"code":"validation_failed","action":"fix_request","cause":"request","retryable":false,"errors":[{"detail":"d","pointer":"/a"}]}`)
	if err := visit(t, schema, ok); err != nil {
		t.Fatalf("valid document refused: %v", err)
	}
}

// TestResponseDescriptionsNameTheirStatus: a status net/http has no text
// for (499, a team's 460) is described by its code's title, not by an
// empty phrase; OpenAPI makes description the response's one required
// field, and portals show it as the response's name.
func TestResponseDescriptionsNameTheirStatus(t *testing.T) {
	reg := problem.NewRegistry()
	if err := reg.Register(problem.Definition{Code: "quota_frozen", Status: 460, Title: "Quota frozen", Action: problem.ActionNone,
		Cause: problem.CausePolicy}); err != nil {
		t.Fatal(err)
	}
	responses := problemdocs.Components(problemdocs.WithWriter(problem.NewWriter(problem.WithRegistry(reg))))["responses"].(map[string]any)
	for name, want := range map[string]string{"Problem460": "Quota frozen: `quota_frozen`", "Problem499": "Client closed request: `client_closed_request`",
		"Problem404": "Not Found: `not_found`"} {
		if got := responses[name].(map[string]any)["description"]; got != want {
			t.Errorf("%s: description %q, want %q", name, got, want)
		}
	}
	for name, r := range responses {
		if d := r.(map[string]any)["description"].(string); strings.HasPrefix(d, ":") {
			t.Errorf("%s: description %q", name, d)
		}
	}
}
