package problem

import (
	"bytes"
	"testing"
	"time"
)

// A body rendered with a code's shared runs (jsonSegments) is the body
// rendered member by member, byte for byte, whatever the occurrence
// changed: detail, status, title, type, guidance, retry time, outcome, a
// peer's document that only looks like the kind's.
func FuzzJSONSegments(f *testing.F) {
	f.Add(uint8(0), "", "", uint8(0), uint8(0), false, int64(0), uint8(0), uint8(0), "/v1/orders/7", false)
	f.Add(uint8(3), "No order 42.", "Other title", uint8(1), uint8(2), true, int64(1500), uint8(1), uint8(1), "", true)
	f.Add(uint8(9), "password=hunter2", "", uint8(4), uint8(0), true, int64(0), uint8(2), uint8(2), "/a b", true)
	// One member of the shared runs changed at a time, the rest as the kind
	// made them.
	for variant := range uint8(6) {
		f.Add(uint8(5), "", "Other title", uint8(0), uint8(0), false, int64(0), uint8(0), variant, "/x", false)
	}
	for kind := range uint8(len(NewRegistry().Definitions())) {
		f.Add(kind, "A detail of this occurrence.", "", uint8(0), uint8(0), false, int64(0), uint8(0), uint8(0), "/x", false)
		f.Add(kind, "", "", uint8(0), uint8(0), false, int64(2500), uint8(0), uint8(0), "/x", false)
		for outcome := range uint8(5) {
			f.Add(kind, "", "", uint8(0), uint8(0), false, int64(0), outcome, uint8(0), "/x", false)
		}
	}
	f.Add(uint8(5), "", "", uint8(2), uint8(0), false, int64(0), uint8(0), uint8(0), "/x", false)
	f.Add(uint8(5), "", "", uint8(0), uint8(1), false, int64(0), uint8(0), uint8(0), "/x", false)
	f.Add(uint8(5), "", "", uint8(0), uint8(0), true, int64(0), uint8(0), uint8(0), "/x", false)
	f.Add(uint8(5), "", "", uint8(0), uint8(0), false, int64(2500), uint8(0), uint8(0), "/x", false)
	f.Add(uint8(5), "", "", uint8(0), uint8(0), false, int64(0), uint8(3), uint8(0), "/x", false)
	kinds := NewRegistry().Definitions()
	actions := []Action{"", ActionRetry, ActionVerify, ActionNone, "bogus"}
	causes := []Cause{"", CauseInternal, CauseRequest, "bogus"}
	anyOutcome := []Outcome{"", OutcomeUnknown, OutcomeCommitted, OutcomeNotStarted, OutcomeNotCommitted}
	f.Fuzz(func(t *testing.T, kind uint8, detail, title string, action, cause uint8, retryable bool,
		retryMS int64, outcome, variant uint8, instance string, legacy bool) {
		k := kinds[int(kind)%len(kinds)]
		typ := "https://errors.example.com/" + string(k.Code)
		seg := newJSONSegments(&k, typ)
		p := New(k.Code)
		p.typ = typ
		if detail != "" {
			p = p.WithDetail(detail)
		}
		switch variant % 6 {
		case 1:
			p.title = title
		case 2:
			p.status = int(retryMS % 1000)
		case 3:
			// A peer's document: the same members, but not made by New.
			parsed, err := Parse(p.appendJSON(nil, false))
			if err != nil {
				t.Fatal(err)
			}
			p = parsed
		case 4:
			p.typ = "https://errors.example.com/other"
		case 5:
			p.code = "other_code"
		}
		if action != 0 {
			p.action = actions[int(action)%len(actions)]
		}
		if cause != 0 {
			p.cause = causes[int(cause)%len(causes)]
		}
		p.retryable = p.retryable != retryable
		if retryMS != 0 {
			p.retryAfter = time.Duration(retryMS) * time.Millisecond
		}
		if outcome != 0 {
			p.outcome = anyOutcome[int(outcome)%len(anyOutcome)]
		}
		p.instance = instance
		want := p.appendJSON(nil, legacy)
		if got := p.appendJSONWith(nil, legacy, seg); !bytes.Equal(got, want) {
			t.Fatalf("with the code's runs:\n%s\nmember by member:\n%s", got, want)
		}
	})
}
