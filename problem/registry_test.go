package problem

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRegistryRejectsMalformedCodes(t *testing.T) {
	good := Kind{Name: "order_locked", Status: 423, Title: "Order locked", Action: ActionUnlock, Cause: CausePolicy}
	cases := map[string]Kind{
		"upper case":        {Name: "Order_locked", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"double underscore": {Name: "order__locked", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"trailing _":        {Name: "order_", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"leading digit":     {Name: "1order", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"hyphen":            {Name: "order-locked", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"empty":             {Name: "", Status: 423, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"success status":    {Name: "ok_code", Status: 200, Title: "t", Action: ActionUnlock, Cause: CausePolicy},
		"no title":          {Name: "no_title", Status: 400, Action: ActionUnlock, Cause: CausePolicy},
		"unknown action":    {Name: "bad_action", Status: 400, Title: "t", Action: "pray", Cause: CausePolicy},
		"unknown cause":     {Name: "bad_cause", Status: 400, Title: "t", Action: ActionNone, Cause: "fate"},
	}
	reg := NewEmptyRegistry()
	for name, c := range cases {
		if err := reg.Register(c); !errors.Is(err, ErrInvalidCode) {
			t.Errorf("%s: Register(%+v) = %v, want ErrInvalidCode", name, c, err)
		}
	}
	if err := reg.Register(good); err != nil {
		t.Fatalf("Register(good) = %v", err)
	}
	if err := reg.Register(good); !errors.Is(err, ErrDuplicateCode) {
		t.Fatalf("second Register = %v, want ErrDuplicateCode", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MustRegister of a duplicate did not panic")
		}
	}()
	reg.MustRegister(good)
}

func TestExplicitRegistriesAreIndependent(t *testing.T) {
	a, b := NewRegistry(), NewRegistry()
	custom := Kind{Name: "quota_exhausted", Status: 402, Title: "Quota exhausted", Action: ActionConfigure, Cause: CausePolicy}
	a.MustRegister(custom)
	if _, ok := a.Lookup("quota_exhausted"); !ok {
		t.Fatal("code missing from the registry it was added to")
	}
	if _, ok := b.Lookup("quota_exhausted"); ok {
		t.Fatal("code leaked into another registry")
	}
	if _, ok := DefaultRegistry().Lookup("quota_exhausted"); ok {
		t.Fatal("code leaked into the default registry")
	}
	if got := a.ForStatus(402).Code; got != "quota_exhausted" {
		t.Fatalf("ForStatus(402) = %q", got)
	}
}

func TestBuiltinCatalog(t *testing.T) {
	required := []string{"bad_request", "invalid_json", "validation_failed", "unsupported_media_type",
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
		if got.Code != c.code || got.Status != c.status {
			t.Errorf("ForStatus(%d) = %s/%d, want %s/%d", c.status, got.Code, got.Status, c.code, c.status)
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
		416: {"Requested Range Not Satisfiable", "bad_request", "fix_request"},
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
