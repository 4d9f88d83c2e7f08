package problemdocs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// kin-openapi decodes JSON and text bodies but has no XML decoder; this one
// reads an XML body by the xml names its schema declares (OpenAPI's xml
// object), so the validator checks the problem+xml document against the
// same Problem schema, member by member and type by type.
func init() {
	openapi3filter.RegisterBodyDecoder("application/problem+xml", decodeSchemaXML)
}

func decodeSchemaXML(body io.Reader, _ http.Header, ref *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	s := ref.Value
	dec := xml.NewDecoder(body)
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if start, ok := tok.(xml.StartElement); ok {
			if s.XML == nil || start.Name.Local != s.XML.Name || start.Name.Space != s.XML.Namespace {
				return nil, fmt.Errorf("root element {%s}%s is not the schema's", start.Name.Space, start.Name.Local)
			}
			return decodeObject(dec, s)
		}
	}
}

func decodeObject(dec *xml.Decoder, s *openapi3.Schema) (map[string]any, error) {
	out := map[string]any{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return out, nil
		case xml.StartElement:
			name := t.Name.Local
			var prop *openapi3.Schema
			if ref := s.Properties[name]; ref != nil {
				prop = ref.Value
			}
			if _, dup := out[name]; dup {
				return nil, fmt.Errorf("element %s twice", name)
			}
			if out[name], err = decodeValue(dec, prop); err != nil {
				return nil, err
			}
		}
	}
}

func decodeValue(dec *xml.Decoder, s *openapi3.Schema) (any, error) {
	switch {
	case s != nil && s.Type.Is("array"):
		var items []any
		for {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			switch t := tok.(type) {
			case xml.EndElement:
				return items, nil
			case xml.StartElement:
				item := s.Items.Value
				if item.XML != nil && item.XML.Name != "" && t.Name.Local != item.XML.Name {
					return nil, fmt.Errorf("array entry <%s>, schema says <%s>", t.Name.Local, item.XML.Name)
				}
				v, err := decodeValue(dec, item)
				if err != nil {
					return nil, err
				}
				items = append(items, v)
			}
		}
	case s != nil && s.Type.Is("object"):
		return decodeObject(dec, s)
	}
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.CharData:
			text.Write(t)
		case xml.StartElement:
			return nil, fmt.Errorf("element <%s> inside a scalar", t.Name.Local)
		case xml.EndElement:
			v := text.String()
			switch {
			case s != nil && s.Type.Is("integer"):
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					return n, nil
				}
			case s != nil && s.Type.Is("boolean"):
				if b, err := strconv.ParseBool(v); err == nil {
					return b, nil
				}
			}
			// A string, or text the schema's type does not admit: the
			// validator says so.
			return v, nil
		}
	}
}

// liveSpec is the components in a document with one operation whose responses refer
// to every status's reusable response, as a service's spec would.
func liveSpec(t *testing.T, wr *problem.Writer) (*openapi3.T, *routers.Route) {
	t.Helper()
	raw := specOf(t, wr)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	responses := map[string]any{"200": map[string]any{"description": "ok"}}
	for _, k := range wr.Registry().Definitions() {
		responses[strconv.Itoa(k.Status)] = map[string]any{"$ref": "#/components/responses/" + "Problem" + strconv.Itoa(k.Status)}
	}
	doc["paths"] = map[string]any{"/fail/{code}": map[string]any{"get": map[string]any{
		"operationId": "fail",
		"parameters":  []any{map[string]any{"name": "code", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}},
		"responses":   responses,
	}}}
	raw, _ = json.Marshal(doc)
	spec, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.Validate(context.Background()); err != nil {
		t.Fatalf("invalid spec: %v", err)
	}
	item := spec.Paths.Find("/fail/{code}")
	return spec, &routers.Route{Spec: spec, Path: "/fail/{code}", PathItem: item, Method: http.MethodGet, Operation: item.Get}
}

// TestLiveProblemsValidateInEveryMediaType serves every registered code
// from a real server built with the kit (Stack, the Writer negotiating
// from Accept) and validates each response, as problem+json, problem+xml
// and text/plain, with kin-openapi's response validator against
// problemdocs.Components. With a legacy window too, whose members travel in
// JSON and XML alike.
func TestLiveProblemsValidateInEveryMediaType(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		opts := []problem.Option{problem.WithBrand("Acme Orders")}
		if legacy {
			opts = append(opts, problem.WithLegacy(problem.Legacy{Until: time.Now().Add(90 * 24 * time.Hour)}))
		}
		wr := problem.NewWriter(opts...)
		_, route := liveSpec(t, wr)
		mux := http.NewServeMux()
		mux.HandleFunc("GET /fail/{code}", func(w http.ResponseWriter, r *http.Request) {
			k, _ := wr.Registry().Lookup(problem.Kind(r.PathValue("code")))
			p := problem.New(k.Code).WithDetail("Occurrence <" + string(k.Code) + "> & more.")
			if k.Retryable {
				p = p.WithRetryAfter(1500 * time.Millisecond)
			}
			if k.Code == problem.ValidationFailed {
				p = p.WithErrors(problem.FieldError{Pointer: "/items/0/qty", Detail: "must be > 0", Code: "min"},
					problem.FieldError{Pointer: "", Detail: "body is empty", Code: "required"})
			}
			if k.Status >= 500 {
				p = p.WithOutcome(problem.OutcomeNotStarted)
			}
			wr.Write(w, r, p)
		})
		srv := httptest.NewServer(middleware.Stack(middleware.WithWriter(wr))(mux))
		seen := map[string]int{}
		for _, k := range wr.Registry().Definitions() {
			for _, accept := range []string{"application/problem+json", "application/problem+xml", "application/xml;q=0.9, */*;q=0.1", "text/plain"} {
				req, _ := http.NewRequest(http.MethodGet, srv.URL+"/fail/"+string(k.Code), nil)
				req.Header.Set("Accept", accept)
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != k.Status {
					t.Fatalf("%s: status %d", string(k.Code), resp.StatusCode)
				}
				ct := resp.Header.Get("Content-Type")
				seen[strings.TrimSpace(strings.Split(ct, ";")[0])]++
				if legacy && !strings.HasPrefix(ct, "text/plain") && !bytes.Contains(body, []byte("error")) {
					t.Errorf("%s %s: no legacy members in %s", string(k.Code), ct, body)
				}
				in := &openapi3filter.RequestValidationInput{Request: req, PathParams: map[string]string{"code": string(k.Code)}, Route: route}
				err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
					RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header,
					Body: io.NopCloser(bytes.NewReader(body)), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
				})
				if err != nil {
					t.Errorf("%s as %s (legacy %v) does not validate: %v\n%s", string(k.Code), ct, legacy, err, body)
				}
			}
		}
		srv.Close()
		for _, m := range []string{"application/problem+json", "application/problem+xml", "text/plain"} {
			if seen[m] == 0 {
				t.Errorf("the server never sent %s: %v", m, seen)
			}
		}
	}
}

// The validator is not a formality: an XML body that breaks the schema
// (a status that is not an integer, an action outside the set) fails.
func TestXMLValidationRejectsWhatTheSchemaForbids(t *testing.T) {
	wr := problem.NewWriter()
	_, route := liveSpec(t, wr)
	for _, body := range []string{
		`<problem xmlns="urn:ietf:rfc:7807"><title>x</title><status>four</status><code>not_found</code><action>none</action><cause>request</cause><retryable>false</retryable><type>about:blank</type></problem>`,
		`<problem xmlns="urn:ietf:rfc:7807"><title>x</title><status>404</status><code>not_found</code><action>retry_later</action><cause>request</cause><retryable>false</retryable><type>about:blank</type></problem>`,
		`<problem><title>x</title><status>404</status><code>not_found</code><action>none</action><cause>request</cause><retryable>false</retryable><type>about:blank</type></problem>`,
	} {
		req := httptest.NewRequest(http.MethodGet, "/fail/not_found", nil)
		h := http.Header{"Content-Type": {"application/problem+xml; charset=utf-8"}}
		err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: map[string]string{"code": "not_found"}, Route: route},
			Status:                 404, Header: h, Body: io.NopCloser(strings.NewReader(body)),
		})
		var re *openapi3filter.ResponseError
		if err == nil || !errors.As(err, &re) {
			t.Errorf("%s validated: %v", body, err)
		}
	}
}
