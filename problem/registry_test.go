package problem

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRegistryRejectsMalformedCodes(t *testing.T) {
	good := Definition{Code: "order_locked", Status: 423, Title: "Order locked", Action: ActionUnlock, Cause: CausePolicy}
	cases := map[string]Definition{
		"upper case":        {Code: "Order_locked", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"double underscore": {Code: "order__locked", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"trailing _":        {Code: "order_", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"leading digit":     {Code: "1order", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"hyphen":            {Code: "order-locked", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"empty":             {Code: "", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"success status":    {Code: "ok_code", Status: 200, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"no title":          {Code: "no_title", Status: 400, Action: ActionUnlock, Cause: CausePolicy},
		"unknown action":    {Code: "bad_action", Status: 400, Title: "t", Action: "pray", Cause: CausePolicy},
		"unknown cause":     {Code: "bad_cause", Status: 400, Title: "t", Action: ActionNone, Cause: "fate"},
	}
	reg := newEmptyRegistry()
	for name, c := range cases {
		if err := reg.Register(c); !errors.Is(err, ErrInvalidCode) {
			t.Errorf("%s: Register(%+v) = %v, want ErrInvalidCode", name, c, err)
		}
	}
	if err := reg.Register(good); err != nil {
		t.Fatalf("Register(good) = %v", err)
	}
	if err := reg.Register(good); !errors.Is(err, ErrInvalidCode) || !strings.Contains(err.Error(), "registered already") {
		t.Fatalf("second Register = %v, want ErrInvalidCode naming the duplicate", err)
	}
	for _, d := range []Definition{def(NotFound), cases["hyphen"]} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MustRegister(%s) did not panic", d.Code)
				}
			}()
			MustRegister(d)
		}()
	}
}

func TestExplicitRegistriesAreIndependent(t *testing.T) {
	a, b := NewRegistry(), NewRegistry()
	custom := Definition{Code: "quota_exhausted", Status: 402, Title: "Quota exhausted", Action: ActionConfigure, Cause: CausePolicy}
	mustRegister(a, custom)
	if _, ok := a.Lookup("quota_exhausted"); !ok {
		t.Fatal("code missing from the registry it was added to")
	}
	if _, ok := b.Lookup("quota_exhausted"); ok {
		t.Fatal("code leaked into another registry")
	}
	if _, ok := DefaultRegistry().Lookup("quota_exhausted"); ok {
		t.Fatal("code leaked into the default registry")
	}
	if got := a.ForStatus(402).code; got != "quota_exhausted" {
		t.Fatalf("ForStatus(402) = %q", got)
	}
}

func TestBuiltinCatalog(t *testing.T) {
	required := []Kind{"bad_request", "invalid_json", "validation_failed", "unsupported_media_type",
		"not_acceptable", "unauthorized", "forbidden", "policy_denied", "not_found", "method_not_allowed",
		"conflict", "precondition_failed", "request_too_large", "rate_limited", "internal",
		"not_implemented", "upstream_error", "upstream_timeout", "unavailable", "timeout",
		"egress_blocked", "approval_required", "client_closed_request"}
	reg := NewRegistry()
	for _, name := range required {
		c, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("built-in code %q missing", name)
			continue
		}
		if c.DefaultDetail == "" || c.Meaning == "" {
			t.Errorf("%s: needs a default detail and a meaning", name)
		}
	}
}

func TestForStatus(t *testing.T) {
	reg := NewRegistry()
	cases := []struct {
		status int
		code   string
	}{
		{400, "bad_request"}, {401, "unauthorized"}, {403, "forbidden"}, {404, "not_found"},
		{405, "method_not_allowed"}, {413, "request_too_large"}, {429, "rate_limited"},
		{500, "internal"}, {502, "upstream_error"}, {503, "unavailable"}, {504, "upstream_timeout"},
		{410, "gone"}, {418, "bad_request"}, {507, "internal"},
	}
	for _, c := range cases {
		got := reg.ForStatus(c.status)
		if got.code != c.code || got.status != c.status {
			t.Errorf("ForStatus(%d) = %s/%d, want %s/%d", c.status, got.code, got.status, c.code, c.status)
		}
	}
}

// TestUnclaimedStatusIsAboutBlank proves issue 10 item 10: a bare status
// no code claims keeps its own title and status under type about:blank
// (RFC 9457 §4.2.1) instead of borrowing bad_request's or internal's type,
// over the writer as the guard uses it.
func TestUnclaimedStatusIsAboutBlank(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	for status, want := range map[int]struct{ title, code, action string }{
		418: {"I'm a teapot", "bad_request", "fix_request"},
		451: {"Unavailable For Legal Reasons", "bad_request", "fix_request"},
		507: {"Insufficient Storage", "internal", "retry"},
		// RFC 9110's phrase, not net/http's RFC 2616 one.
		416: {"Range Not Satisfiable", "bad_request", "fix_request"},
	} {
		rec := httptest.NewRecorder()
		_ = wr.Write(rec, httptest.NewRequest("GET", "/x", nil), wr.Registry().ForStatus(status))
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if rec.Code != status || m["type"] != "about:blank" || m["title"] != want.title || m["status"] != float64(status) ||
			m["code"] != want.code || m["action"] != want.action {
			t.Errorf("%d: %d %s", status, rec.Code, rec.Body)
		}
		if d, ok := m["detail"]; ok {
			t.Errorf("%d: an unclaimed status borrows a detail: %v", status, d)
		}
	}
	// A claimed status keeps its code's type.
	rec := httptest.NewRecorder()
	_ = wr.Write(rec, httptest.NewRequest("GET", "/x", nil), wr.Registry().ForStatus(404))
	if !strings.Contains(rec.Body.String(), `"type":"`+DefaultBaseURI+`not_found"`) {
		t.Errorf("404: %s", rec.Body)
	}
}

// TestRetiredNamesAreNeverReused: a retired code disappears from lookups
// and the table, and can never be registered again, whatever its shape.
func TestRetiredNamesAreNeverReused(t *testing.T) {
	reg := NewRegistry()
	reg.Retire("upstream_timeout", "legacy_quota")
	if _, ok := reg.Lookup("upstream_timeout"); ok {
		t.Fatal("a retired code is still looked up")
	}
	for _, code := range []Kind{"upstream_timeout", "legacy_quota"} {
		err := reg.Register(Definition{Code: code, Status: 504, Title: "Back", Action: ActionNone, Cause: CauseUpstream})
		if !errors.Is(err, ErrInvalidCode) || !strings.Contains(err.Error(), "retired") {
			t.Errorf("re-registering %s: %v", code, err)
		}
	}
	if got := reg.ForStatus(504); got.typ != "about:blank" {
		t.Errorf("504 still claimed after retiring its only code: %+v", got)
	}
	md := reg.markdown()
	if strings.Contains(md, "| `upstream_timeout` |") || !strings.Contains(md, "Retired, never to be reused: `legacy_quota`, `upstream_timeout`.") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestDeprecationIsDocumented: a deprecated code keeps working, and the
// table and the JSON catalog say since when and what replaces it.
func TestDeprecationIsDocumented(t *testing.T) {
	reg := newEmptyRegistry()
	since := time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC)
	mustRegister(reg, Definition{Code: "quota_low", Status: 429, Title: "Quota low", Action: ActionRetry, Cause: CauseRequest,
		Retryable: true, Deprecated: since, Successor: "rate_limited"})
	if !strings.Contains(reg.markdown(), "**Deprecated** since 2027-01-15; use `rate_limited`.") {
		t.Errorf("markdown:\n%s", reg.markdown())
	}
	data, _ := reg.catalogJSON("urn:x:")
	if !strings.Contains(string(data), `"since": "2027-01-15"`) || !strings.Contains(string(data), `"successor": "rate_limited"`) ||
		!strings.Contains(string(data), `"type": "urn:x:quota_low"`) {
		t.Errorf("json: %s", data)
	}
	bad := Definition{Code: "x_y", Status: 400, Title: "X", Action: ActionNone, Cause: CauseRequest, Deprecated: since, Successor: "x_y"}
	if !errors.Is(bad.validate(), ErrInvalidCode) {
		t.Error("a code that succeeds itself was accepted")
	}
	if err := (&Definition{Code: "x_z", Status: 500, Title: "X", Action: ActionRetry, Cause: CauseInternal}).validate(); !errors.Is(err, ErrInvalidCode) {
		t.Error("action retry on a non-retryable code was accepted")
	}
}

// TestContractCodes pins the codes the MCP and governance issues name,
// with their statuses, outcomes and JSON-RPC codes.
func TestContractCodes(t *testing.T) {
	reg := NewRegistry()
	for name, want := range map[Kind]struct {
		status, rpc int
		outcome     Outcome
	}{
		"response_too_large":            {400, RPCInvalidParams, ""},
		"upstream_request_failed":       {502, RPCInternalError, ""},
		"cache_consistency_unavailable": {503, RPCInternalError, OutcomeNotStarted},
		"audit_unavailable":             {503, RPCInternalError, OutcomeNotStarted},
		"invalid_json":                  {400, RPCInvalidRequest, ""},
		"request_too_large":             {413, RPCInvalidRequest, ""},
		"validation_failed":             {422, RPCInvalidParams, ""},
		"not_found":                     {404, RPCInvalidParams, ""},
	} {
		k, ok := reg.Lookup(name)
		if !ok || k.Status != want.status || k.jsonRPCCode() != want.rpc || k.Outcome != want.outcome {
			t.Errorf("%s: %+v", name, k)
		}
		if p := New(k.Code); p.RPCCode() != want.rpc || p.outcome != want.outcome {
			t.Errorf("%s occurrence: rpc %d outcome %q", name, p.RPCCode(), p.outcome)
		}
	}
}

// TestRetiredSuccessorIsRefused: a deprecation cannot point clients at a
// code that was retired.
func TestRetiredSuccessorIsRefused(t *testing.T) {
	reg := NewRegistry()
	reg.Retire("legacy_quota")
	err := reg.Register(Definition{Code: "quota_low", Status: 429, Title: "Quota low", Action: ActionRetry, Cause: CauseRequest,
		Retryable: true, Deprecated: time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC), Successor: "legacy_quota"})
	if !errors.Is(err, ErrInvalidCode) || !strings.Contains(err.Error(), "successor") {
		t.Fatalf("a retired successor was accepted: %v", err)
	}
	if _, ok := reg.Lookup("quota_low"); ok {
		t.Fatal("the refused kind was registered")
	}
}
