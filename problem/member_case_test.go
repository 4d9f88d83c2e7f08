package problem_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// contractView is how a Go client that decodes with encoding/json reads a
// problem: it matches member names without regard to case, so a member
// "Retryable" after "retryable" decides the field.
type contractView struct {
	Type          string `json:"type"`
	Title         string `json:"title"`
	Status        int    `json:"status"`
	Code          string `json:"code"`
	Action        string `json:"action"`
	Cause         string `json:"cause"`
	Retryable     bool   `json:"retryable"`
	RetryAfterMS  int64  `json:"retry_after_ms"`
	Outcome       string `json:"outcome"`
	CorrelationID string `json:"correlation_id"`
}

// A member whose name differs from a standard or faultline member only in
// case is that member to encoding/json and to every decoder that folds
// case: it must not reach the client beside the real one, whether a
// handler set it (a build error, like the exact name) or a peer's document
// read with Parse carried it (relayed under another name).
func TestMembersDifferingOnlyInCaseNeverShadowTheContract(t *testing.T) {
	hostile := map[string]any{
		"Status": 200, "TYPE": "https://evil.test/ok", "Title": "OK", "Code": "ok",
		"ACTION": "retry", "Cause": "upstream", "Retryable": true, "Retry_After_Ms": 1,
		"OutCome": "committed", "Correlation_ID": "abcdefgh",
	}
	own := problem.New(problem.Conflict)
	for name, v := range hostile {
		own = own.WithExtension(name, v)
	}
	if err := problem.NewWriter().Check(own); err == nil || strings.Count(err.Error(), "reserved") != len(hostile) {
		t.Errorf("Check of case variants of reserved names: %v", err)
	}
	peerMembers := map[string]any{"type": "about:blank", "status": 409, "code": "conflict", "title": "Conflict", "retryable": false}
	for name, v := range hostile {
		peerMembers[name] = v
	}
	for name, p := range map[string]*problem.Problem{"own": own, "peer": peerDoc(peerMembers)} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = problem.Write(w, r, p)
		}))
		res, err := http.Get(srv.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		srv.Close()
		var got contractView
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("%s: %v in %s", name, err, body)
		}
		want := contractView{Status: 409, Code: "conflict", Action: "fix_request", Cause: "request", Title: "Conflict"}
		if got.Status != want.Status || got.Code != want.Code || got.Action != want.Action || got.Cause != want.Cause ||
			got.Retryable || got.RetryAfterMS != 0 || got.Outcome != "" || got.CorrelationID == "abcdefgh" ||
			got.Title != want.Title || strings.Contains(got.Type, "evil") {
			t.Errorf("%s: encoding/json reads %+v from %s", name, got, body)
		}
		var members map[string]json.RawMessage
		_ = json.Unmarshal(body, &members)
		folded := map[string]string{}
		for m := range members {
			if prev, ok := folded[strings.ToLower(m)]; ok {
				t.Errorf("%s: members %q and %q differ only in case: %s", name, prev, m, body)
			}
			folded[strings.ToLower(m)] = m
		}
	}
}
