package client_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// TestExitCodeEveryRegisteredCode pins the exit code of each code of the
// default registry, read and write, so a change of the table is a change
// of this test.
func TestExitCodeEveryRegisteredCode(t *testing.T) {
	want := map[string]int{
		"bad_request": 2, "invalid_json": 2, "validation_failed": 2, "unsupported_media_type": 2,
		"not_acceptable": 2, "unauthorized": 3, "forbidden": 3, "policy_denied": 4, "not_found": 2,
		"method_not_allowed": 2, "gone": 4, "conflict": 2, "precondition_failed": 2, "locked": 4,
		"request_too_large": 2, "rate_limited": 5, "approval_required": 4, "egress_blocked": 4,
		"client_closed_request": 5, "internal": 1, "not_implemented": 4, "upstream_error": 6,
		"unavailable": 5, "timeout": 5, "upstream_timeout": 6, "response_too_large": 2,
		"upstream_request_failed": 6, "cache_consistency_unavailable": 5, "audit_unavailable": 5,
	}
	for _, c := range problem.DefaultRegistry().Definitions() {
		got := client.ExitCode("GET", problem.New(c.Code))
		if w, ok := want[string(c.Code)]; !ok {
			// A code added since: its class follows from its members.
			t.Logf("%s: exit code %d (not pinned here)", string(c.Code), got)
		} else if got != w {
			t.Errorf("%s: exit code %d, want %d", string(c.Code), got, w)
		}
		unknown := problem.New(c.Code).WithOutcome(problem.OutcomeUnknown)
		if got := client.ExitCode("POST", unknown); got != client.ExitUnknownOutcome {
			t.Errorf("%s with outcome unknown on POST: exit code %d", string(c.Code), got)
		}
	}
}

func TestExitCodeErrors(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		method string
		err    error
		want   int
	}{
		{"GET", nil, client.ExitOK},
		{"POST", dial, client.ExitTemporary},
		{"POST", io.ErrUnexpectedEOF, client.ExitUnknownOutcome},
		{"GET", io.ErrUnexpectedEOF, client.ExitTemporary},
		{"GET", errors.New("context canceled"), client.ExitTemporary},
		{"GET", fmt.Errorf("call: %w", problem.New(problem.Forbidden)), client.ExitAuth},
		{"GET", &client.ResponseError{Problem: peer(map[string]any{"status": 502})}, client.ExitTemporary},
		{"GET", &client.ResponseError{Problem: peer(map[string]any{"status": 404})}, client.ExitUsage},
	} {
		if got := client.ExitCode(tc.method, tc.err); got != tc.want {
			t.Errorf("%s %v: %d, want %d", tc.method, tc.err, got, tc.want)
		}
	}
}

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{problem.New(problem.NotFound), "not_found: No resource exists at this address."},
		{&client.ResponseError{Problem: peer(map[string]any{"status": 502, "title": "Bad Gateway"})}, "http_502: Bad Gateway"},
		{errors.New("dial tcp: refused\nsecond line\u2028third"), "error: dial tcp: refused second line third"},
		// What a server can put in front of a terminal: ESC and 8-bit CSI
		// sequences, a bidi override, in a transport error's text or in
		// the problem's own members.
		{errors.New("malformed status \x1b[2J\u009b31mred\u202etxt.exe"), "error: malformed status  [2J 31mred txt.exe"},
		{&client.ResponseError{Problem: mustParse(t, "{\"status\":400,\"code\":\"bad\\u009b31m\",\"title\":\"x\",\"detail\":\"a\\u009b31mred\\u001b[0m\\u202e\"}")},
			"bad 31m: a 31mred [0m "},
	} {
		if got := client.Line(tc.err); got != tc.want {
			t.Errorf("Line(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// peer is the problem a client reads from a document of these members.
func peer(members map[string]any) *problem.Problem {
	b, err := json.Marshal(members)
	if err != nil {
		panic(err)
	}
	p, err := problem.Parse(b)
	if err != nil {
		panic(err)
	}
	return p
}

func mustParse(t *testing.T, body string) *problem.Problem {
	t.Helper()
	p, err := problem.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
