package problem_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// The built-in kinds are constants: no package can assign
// problem.NotFound, or a field of it, and change what every response of
// the process says. This block compiles only while each is a constant.
const (
	_ = problem.BadRequest
	_ = problem.InvalidJSON
	_ = problem.ValidationFailed
	_ = problem.UnsupportedMediaType
	_ = problem.NotAcceptable
	_ = problem.Unauthorized
	_ = problem.Forbidden
	_ = problem.PolicyDenied
	_ = problem.NotFound
	_ = problem.MethodNotAllowed
	_ = problem.Gone
	_ = problem.Conflict
	_ = problem.PreconditionFailed
	_ = problem.Locked
	_ = problem.RequestTooLarge
	_ = problem.ResponseTooLarge
	_ = problem.RateLimited
	_ = problem.ApprovalRequired
	_ = problem.EgressBlocked
	_ = problem.ClientClosedRequest
	_ = problem.Internal
	_ = problem.NotImplemented
	_ = problem.UpstreamError
	_ = problem.UpstreamRequestFailed
	_ = problem.Unavailable
	_ = problem.CacheConsistencyUnavailable
	_ = problem.AuditUnavailable
	_ = problem.Timeout
	_ = problem.UpstreamTimeout
)

// definition is the default registry's definition of k.
func definition(k problem.Kind) problem.Definition {
	d, ok := problem.DefaultRegistry().Lookup(k)
	if !ok {
		panic("no definition of " + string(k))
	}
	return d
}

// register registers d in reg or fails the test.
func register(t *testing.T, reg *problem.Registry, d problem.Definition) {
	t.Helper()
	if err := reg.Register(d); err != nil {
		t.Fatal(err)
	}
}

// writeJSON writes p with wr and returns the status, the body's members
// and the log.
func writeJSON(t *testing.T, wr func(*bytes.Buffer) *problem.Writer, p *problem.Problem) (int, map[string]any, string) {
	t.Helper()
	var logs bytes.Buffer
	rec := httptest.NewRecorder()
	if err := wr(&logs).Write(rec, httptest.NewRequest("GET", "/books/7", nil), p); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	return rec.Code, m, logs.String()
}

func writerWith(opts ...problem.Option) func(*bytes.Buffer) *problem.Writer {
	return func(logs *bytes.Buffer) *problem.Writer {
		return problem.NewWriter(append(opts, problem.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))...)
	}
}

// TestNewOfEveryBuiltinIsItsDefinition: an occurrence of each built-in
// kind starts as its definition says, and goes out so.
func TestNewOfEveryBuiltinIsItsDefinition(t *testing.T) {
	defs := problem.DefaultRegistry().Definitions()
	if len(defs) != 29 {
		t.Fatalf("%d built-in definitions", len(defs))
	}
	for _, d := range defs {
		p := problem.New(d.Code)
		if string(p.Code()) != string(d.Code) || p.Status() != d.Status || p.Title() != d.Title || p.Action() != d.Action ||
			p.Cause() != d.Cause || p.Retryable() != d.Retryable || p.Outcome() != d.Outcome || p.Detail() != d.DefaultDetail {
			t.Errorf("New(%s) = %+v, definition %+v", d.Code, p, d)
		}
		if want := d.RPCCode; want != 0 && p.RPCCode() != want {
			t.Errorf("New(%s).RPCCode() = %d, want %d", d.Code, p.RPCCode(), want)
		}
		if !errors.Is(p, d.Code) || !errors.Is(d.Code, d.Code) || d.Code.Error() != string(d.Code) {
			t.Errorf("%s: errors.Is does not match the kind", d.Code)
		}
		status, m, _ := writeJSON(t, writerWith(), p)
		if status != d.Status || m["code"] != string(d.Code) || m["title"] != d.Title || m["action"] != string(d.Action) {
			t.Errorf("%s went out as %d %v", d.Code, status, m)
		}
	}
}

// TestDefinitionsAreCopies: what Lookup and Definitions return is the
// caller's own; changing it changes no response.
func TestDefinitionsAreCopies(t *testing.T) {
	d, _ := problem.DefaultRegistry().Lookup(problem.NotFound)
	d.Status, d.Title = 410, "Withdrawn"
	all := problem.DefaultRegistry().Definitions()
	all[0].Status = 299
	if p := problem.New(problem.NotFound); p.Status() != 404 || p.Title() != "Not found" {
		t.Fatalf("New(NotFound) = %d %q after editing a looked-up definition", p.Status(), p.Title())
	}
	if d, _ := problem.DefaultRegistry().Lookup(problem.BadRequest); d.Status != 400 {
		t.Fatalf("bad_request is %d after editing Definitions()", d.Status)
	}
}

// TestKindOfAnExplicitRegistry: a code registered only in a NewRegistry
// goes out with its definition through that registry's Writer, however
// New was reached (before or after registering, returned as an error);
// every other Writer sends internal and names the mistake.
func TestKindOfAnExplicitRegistry(t *testing.T) {
	const onHold problem.Kind = "loan_on_hold"
	early := problem.New(onHold).WithDetail("Book 7 is held for another reader.")
	reg := problem.NewRegistry()
	register(t, reg, problem.Definition{Code: onHold, Status: 423, Title: "Loan on hold", Action: problem.ActionRetry,
		Cause: problem.CausePolicy, Retryable: true, ShowDetail: true, DefaultDetail: "The loan is on hold."})
	own := writerWith(problem.WithRegistry(reg), problem.WithBaseURI("https://api.example.com/problems/"))
	for name, p := range map[string]*problem.Problem{
		"made before registering": early,
		"made after":              problem.New(onHold).WithDetail("Book 7 is held for another reader."),
		"returned as an error":    problem.NewWriter(problem.WithRegistry(reg)).FromError(onHold).WithDetail("Book 7 is held for another reader."),
	} {
		status, m, logs := writeJSON(t, own, p)
		if status != 423 || m["type"] != "https://api.example.com/problems/loan_on_hold" || m["title"] != "Loan on hold" ||
			m["code"] != "loan_on_hold" || m["action"] != "retry" || m["cause"] != "policy" || m["retryable"] != true ||
			m["detail"] != "Book 7 is held for another reader." {
			t.Errorf("%s: %d %v", name, status, m)
		}
		if strings.Contains(logs, "build_error") {
			t.Errorf("%s: a registered code was reported: %s", name, logs)
		}
		if err := problem.NewWriter(problem.WithRegistry(reg)).Check(p); err != nil {
			t.Errorf("%s: Check = %v", name, err)
		}
	}
	// Defaults the definition gives do not overrule what the occurrence
	// set before the Writer saw it.
	_, m, _ := writeJSON(t, own, problem.New(onHold).WithRetryable(false).WithAction(problem.ActionNone))
	if m["retryable"] != false || m["action"] != "none" || m["detail"] != "The loan is on hold." {
		t.Errorf("set members were overruled: %v", m)
	}
	// The default writer's registry does not hold the code.
	status, m, logs := writeJSON(t, writerWith(), problem.New(onHold).WithExtension("isbn", "978-3"))
	if status != 500 || m["code"] != "internal" || m["isbn"] != nil {
		t.Errorf("unregistered in the default registry: %d %v", status, m)
	}
	if !strings.Contains(logs, `code \"loan_on_hold\" is not registered`) || !strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("the mistake is not in the record: %s", logs)
	}
}

// TestKindNobodyRegistered: a Kind no registry holds is loud for the
// developer (Check, an error record) and internal for the client.
func TestKindNobodyRegistered(t *testing.T) {
	for _, code := range []problem.Kind{"shelf_missing", "Not-A-Code", "x"} {
		p := problem.New(code).WithDetail("Shelf 9 is gone.").WithErrors(problem.FieldError{Detail: "x", Pointer: "/shelf"})
		status, m, logs := writeJSON(t, writerWith(), p)
		if status != 500 || m["code"] != "internal" || m["errors"] != nil || m["detail"] == "Shelf 9 is gone." {
			t.Errorf("%q: %d %v", code, status, m)
		}
		if !strings.Contains(logs, "build_error") || !strings.Contains(logs, string(code)) {
			t.Errorf("%q: the record does not name it: %s", code, logs)
		}
		if err := problem.NewWriter().Check(p); err == nil || !strings.Contains(err.Error(), "not registered") {
			t.Errorf("%q: Check = %v", code, err)
		}
	}
}

// TestOneCodeTwoDefinitions: registries that define one code differently
// each send their own definition.
func TestOneCodeTwoDefinitions(t *testing.T) {
	const code problem.Kind = "quota_spent"
	a, b := problem.NewRegistry(), problem.NewRegistry()
	register(t, a, problem.Definition{Code: code, Status: 402, Title: "Quota spent", Action: problem.ActionConfigure, Cause: problem.CausePolicy})
	register(t, b, problem.Definition{Code: code, Status: 429, Title: "Quota used up", Action: problem.ActionRetry, Cause: problem.CauseRequest, Retryable: true})
	for reg, want := range map[*problem.Registry]struct {
		status    int
		title     string
		retryable bool
	}{a: {402, "Quota spent", false}, b: {429, "Quota used up", true}} {
		status, m, logs := writeJSON(t, writerWith(problem.WithRegistry(reg)), problem.New(code))
		if status != want.status || m["title"] != want.title || m["retryable"] != want.retryable || strings.Contains(logs, "build_error") {
			t.Errorf("%d %v %s, want %+v", status, m, logs, want)
		}
	}
}

// TestRegisterStaysStrict: every mistake in a definition is an error
// wrapping ErrInvalidCode, and MustRegister panics on it.
func TestRegisterStaysStrict(t *testing.T) {
	reg := problem.NewRegistry()
	ok := problem.Definition{Code: "seat_taken", Status: 409, Title: "Seat taken", Action: problem.ActionFixRequest, Cause: problem.CauseRequest}
	register(t, reg, ok)
	reg.Retire("seat_lost")
	for name, d := range map[string]problem.Definition{
		"duplicate":         ok,
		"duplicate builtin": definition(problem.Conflict),
		"retired":           {Code: "seat_lost", Status: 409, Title: "Seat lost", Action: problem.ActionNone, Cause: problem.CauseRequest},
		"not snake_case":    {Code: "seatTaken", Status: 409, Title: "Seat", Action: problem.ActionNone, Cause: problem.CauseRequest},
		"success status":    {Code: "seat_ok", Status: 204, Title: "Seat", Action: problem.ActionNone, Cause: problem.CauseRequest},
		"retired successor": {Code: "seat_old", Status: 409, Title: "Seat", Action: problem.ActionNone, Cause: problem.CauseRequest, Successor: "seat_lost"},
	} {
		if err := reg.Register(d); !errors.Is(err, problem.ErrInvalidCode) {
			t.Errorf("%s: Register = %v", name, err)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: MustRegister did not panic", name)
				}
			}()
			if name != "duplicate" && name != "retired" && name != "retired successor" {
				problem.MustRegister(d)
			} else {
				// Those are mistakes only in reg; in the default registry
				// they are a duplicate of a built-in.
				problem.MustRegister(definition(problem.Gone))
			}
		}()
	}
}
