package problem_test

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/problem"
)

// Every representation carries the same text: a control XML cannot carry
// or discourages (C0 but tab, LF and CR; DEL; C1; U+FFFE, U+FFFF) is
// U+FFFD in problem+json as in problem+xml, whether the handler wrote it
// or a client chose it (a member name echoed in a field error's pointer).
// JSON used to keep them, so a client printing detail or pointer ran ESC
// and U+009B sequences in its terminal.
func TestControlsAreReplacedInEveryRepresentation(t *testing.T) {
	texts := []string{
		"clear \x1b[2J screen", "link \x1b]8;;http://x.test/\x07here\x1b]8;;\x07", "csi \u009b31m red",
		"nul \x00 del \x7f nel \u0085", "nonchar \ufffe \uffff", "kept\ttab\nline\rcr",
	}
	var cur string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = problem.Write(w, r, problem.New(problem.ValidationFailed).WithDetail(cur).
			WithExtension("note", cur).
			WithErrors(problem.FieldError{Pointer: "/" + cur, Detail: cur, Code: "required"}))
	}))
	defer srv.Close()
	type doc struct {
		Detail string `json:"detail" xml:"detail"`
		Note   string `json:"note" xml:"note"`
		Errors []struct {
			Detail  string `json:"detail" xml:"detail"`
			Pointer string `json:"pointer" xml:"pointer"`
		} `json:"errors" xml:"errors>i"`
	}
	for _, text := range texts {
		cur = text
		var docs [2]doc
		for i, accept := range []string{"application/problem+json", "application/problem+xml"} {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
			req.Header.Set("Accept", accept)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if i == 0 {
				err = json.Unmarshal(body, &docs[i])
			} else {
				err = xml.Unmarshal(body, &docs[i])
			}
			if err != nil || len(docs[i].Errors) != 1 {
				t.Fatalf("%q, %s: %v in %s", text, accept, err, body)
			}
			d := docs[i]
			for _, s := range []string{d.Detail, d.Note, d.Errors[0].Detail, d.Errors[0].Pointer} {
				if i := strings.IndexFunc(s, func(r rune) bool {
					return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || 0x7f <= r && r <= 0x9f || r == 0xfffe || r == 0xffff
				}); i >= 0 {
					t.Errorf("%q, %s: control %q in %q", text, accept, s[i:i+1], s)
				}
			}
		}
		if docs[0].Detail != docs[1].Detail || docs[0].Note != docs[1].Note || docs[0].Errors[0] != docs[1].Errors[0] {
			t.Errorf("%q: JSON %+v, XML %+v", text, docs[0], docs[1])
		}
	}
}
