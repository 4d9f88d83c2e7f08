package benchmarks

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

type probeItemInput struct {
	Body struct {
		Name  string `json:"name" minLength:"1" maxLength:"32"`
		Count int    `json:"count" minimum:"1"`
	}
}

type probeItemOutput struct {
	Body struct {
		Name string `json:"name"`
	}
}

type probeIDInput struct {
	ID string `path:"id"`
}

type probeHealth struct {
	Body struct {
		Status string `json:"status"`
	}
}

// humaApp is the three routes the probe's own tests use, on huma v2 with
// its defaults: its OpenAPI at /openapi.json, its problem+json errors.
func humaApp() http.Handler {
	mux := http.NewServeMux()
	api := humago.New(mux, huma.DefaultConfig("items", "1.0.0"))
	huma.Register(api, huma.Operation{OperationID: "healthz", Method: http.MethodGet, Path: "/healthz"},
		func(context.Context, *struct{}) (*probeHealth, error) {
			out := &probeHealth{}
			out.Body.Status = "ok"
			return out, nil
		})
	huma.Register(api, huma.Operation{OperationID: "create-item", Method: http.MethodPost, Path: "/v1/items"},
		func(_ context.Context, in *probeItemInput) (*probeItemOutput, error) {
			out := &probeItemOutput{}
			out.Body.Name = in.Body.Name
			return out, nil
		})
	huma.Register(api, huma.Operation{OperationID: "get-item", Method: http.MethodGet, Path: "/v1/items/{id}"},
		func(context.Context, *probeIDInput) (*probeItemOutput, error) {
			return nil, huma.Error404NotFound("no item exists with this id")
		})
	return mux
}

type probeReport struct {
	Checks []struct {
		Check    string `json:"check"`
		Verdict  string `json:"verdict"`
		Requests []struct {
			Method   string `json:"method"`
			Target   string `json:"target"`
			Status   int    `json:"status"`
			Failures []struct {
				Judgement string `json:"judgement"`
				Why       string `json:"why"`
			} `json:"failures"`
		} `json:"requests"`
	} `json:"checks"`
}

// The probe pointed at a huma v2 app, its routes read from huma's OpenAPI:
// the exact verdicts. The probe is the built command, as a CI job runs it.
func TestProbeHumaApp(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "faultline")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/faultline-go/faultline/cmd/faultline").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	srv := httptest.NewServer(humaApp())
	defer srv.Close()
	cmd := exec.Command(bin, "probe", "-format", "json", "-openapi", srv.URL+"/openapi.json", "-allow-writes",
		"-max-body", "1048576", "-rate", "500", "-request-timeout", "3s", "-timeout", "30s", srv.URL)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, out)
	}
	var rep probeReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	var lines []string
	for _, c := range rep.Checks {
		var names []string
		for _, r := range c.Requests {
			for _, f := range r.Failures {
				if !slices.Contains(names, f.Judgement) {
					names = append(names, f.Judgement)
				}
				lines = append(lines, c.Check+" "+r.Method+" "+r.Target+": "+f.Judgement+": "+f.Why)
			}
		}
		sort.Strings(names)
		got[c.Check] = strings.TrimSpace(c.Verdict + " " + strings.Join(names, " "))
	}
	// huma's own errors are problem+json (without Cache-Control: no-store);
	// unknown routes and 405s are ServeMux's text/plain; a body that fails
	// to decode comes back whole in errors[0].value, the planted secrets
	// with it.
	want := map[string]string{
		"unknown-route":      "fail cache-control media-type",
		"method-not-allowed": "fail cache-control media-type",
		"head":               "pass",
		"malformed-json":     "fail cache-control",
		"wrong-content-type": "fail cache-control",
		"body-too-large":     "fail cache-control",
		"duplicate-members":  "fail cache-control",
		"case-members":       "fail cache-control",
		"request-id":         "fail cache-control media-type",
		"accept":             "fail cache-control media-type",
		"canary":             "fail cache-control canary leak media-type",
		"slow-body":          "skip",
		"burst":              "skip",
	}
	echoed := false
	for _, l := range lines {
		echoed = echoed || strings.HasPrefix(l, "canary POST /v1/items: leak: /errors/0/value ")
	}
	if !echoed {
		t.Error("the echoed body in errors[0].value was not reported")
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: got %q, want %q", name, got[name], v)
		}
	}
	if len(got) != len(want) || t.Failed() {
		t.Errorf("verdicts %q\n%s", got, strings.Join(lines, "\n"))
	}
}
