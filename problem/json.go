package problem

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// AppendJSON appends the problem+json document to dst in one pass, members
// in a fixed order, without the legacy members (those belong to a Writer's
// transition window). Whatever the problem holds, the output is valid JSON
// with unique member names at every level. Every public string passes
// sanitize.Public; the package documentation lists every rule by which
// the output differs from encoding/json's (nil maps and slices are {} and
// [], NaN and invalid numbers null, a value encoding/json refuses null as
// a whole, type and instance URI references, secrets redacted).
func (p *Problem) AppendJSON(dst []byte) []byte { return p.appendJSON(dst, false) }

func (p *Problem) appendJSON(dst []byte, legacy bool) []byte {
	return p.appendJSONWith(dst, legacy, p.seg)
}

// appendJSONWith is appendJSON taking the members before instance and those
// between instance and correlation_id from seg when p renders them as seg
// holds them (see jsonSegments); seg may be nil.
func (p *Problem) appendJSONWith(dst []byte, legacy bool, seg *jsonSegments) []byte {
	title := p.renderedTitle()
	// The legacy message usually repeats the detail: sanitize it once.
	detail := p.renderedDetail()
	// The legacy members repeat code and detail as rendered: their bytes
	// are copied from where they were written (detailAt and codeAt..codeEnd
	// in dst) rather than escaped again.
	var detailAt int
	if seg != nil && p.fromKind && p.typ == seg.typ && p.status == seg.status && title == seg.title && detail == seg.detail {
		detailAt = len(dst) + seg.detailAt
		dst = append(dst, seg.head...)
	} else {
		dst, detailAt = p.appendHead(dst, title, detail)
	}
	detailEnd := len(dst)
	if p.instance != "" {
		dst = append(dst, `,"instance":`...)
		dst = appendPublicURI(dst, p.instance)
	}
	code := p.peerText(p.code)
	g := p.renderedGuidance()
	codeAt := len(dst) + len(`,"code":`)
	var codeEnd int
	if guide := seg.guideFor(code, g, p.retryable); guide != nil {
		codeEnd = len(dst) + seg.codeEnd
		dst = append(dst, guide...)
	} else {
		dst, codeEnd = appendGuidance(dst, code, g, p.retryable)
	}
	if p.correlationID != "" {
		dst = append(dst, `,"correlation_id":`...)
		switch {
		case p.correlationPlain:
			dst = append(dst, '"')
			dst = append(dst, p.correlationID...)
			dst = append(dst, '"')
		case p.correlationPublic:
			dst = appendString(dst, p.correlationID)
		default:
			// A peer's or a literal ID: the tier's verdict is remembered
			// like any short text's, and the same as renderedCorrelationID's.
			dst = appendPublic(dst, p.correlationID)
		}
	}
	if len(p.fieldErrors) > 0 {
		dst = append(dst, `,"errors":[`...)
		for i, fe := range p.fieldErrors {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"detail":`...)
			dst = appendPublic(dst, fe.Detail)
			// Always sent: "" is the pointer to the whole document
			// (RFC 6901), as for a body of the wrong type. Pointers and
			// codes name what the client sent (its member names), so they
			// pass the public tier like any other text, whoever built them.
			dst = append(dst, `,"pointer":`...)
			dst = appendPointer(dst, fe.Pointer)
			if fe.Code != "" {
				dst = append(dst, `,"code":`...)
				dst = appendPublic(dst, fe.Code)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	for _, e := range p.extensionMembers(legacy) {
		dst = append(dst, ',')
		dst = appendString(dst, e.Name)
		dst = append(dst, ':')
		dst = appendValue(dst, e.Value)
	}
	if legacy {
		dst = append(dst, `,"error":`...)
		dst = append(dst, dst[codeAt:codeEnd]...)
		dst = append(dst, `,"message":`...)
		if detail != "" {
			dst = append(dst, dst[detailAt:detailEnd]...)
		} else {
			dst = appendString(dst, title)
		}
	}
	return append(dst, '}')
}

// appendHead appends the members before instance: type, title, status
// and detail, the last; detailAt is where the detail's string begins.
func (p *Problem) appendHead(dst []byte, title, detail string) (_ []byte, detailAt int) {
	// Only type is optional ahead of title, so every member after title
	// opens with its comma: member names are constants, not built per call.
	dst = append(dst, '{')
	if p.typ != "" {
		dst = append(dst, `"type":`...)
		if p.fromKind && p.typ == p.kindType {
			// As renderedType: the registry's type needs no tier.
			dst = appendString(dst, p.typ)
		} else {
			dst = appendPublicURI(dst, p.typ)
		}
		dst = append(dst, ',')
	}
	dst = append(dst, `"title":`...)
	dst = appendString(dst, title)
	if p.hasStatus() {
		dst = append(dst, `,"status":`...)
		dst = strconv.AppendInt(dst, int64(p.status), 10)
	}
	if detail != "" {
		dst = append(dst, `,"detail":`...)
		detailAt = len(dst)
		dst = appendString(dst, detail)
	}
	return dst, detailAt
}

// appendGuidance appends the members between instance and correlation_id:
// code, the first, and the retry guidance; codeEnd is where the code's
// string ends.
func appendGuidance(dst []byte, code string, g guidance, retryable bool) (_ []byte, codeEnd int) {
	dst = append(dst, `,"code":`...)
	dst = appendString(dst, code)
	codeEnd = len(dst)
	// A peer's document may lack action or cause; an empty one is not a
	// member of the closed set, so it is left out rather than sent as "".
	if g.action != "" {
		dst = append(dst, `,"action":`...)
		dst = appendToken(dst, string(g.action))
	}
	if g.cause != "" {
		dst = append(dst, `,"cause":`...)
		dst = appendToken(dst, string(g.cause))
	}
	dst = append(dst, `,"retryable":`...)
	dst = strconv.AppendBool(dst, retryable)
	if ms := g.retryAfterMS; ms > 0 {
		dst = append(dst, `,"retry_after_ms":`...)
		dst = strconv.AppendInt(dst, ms, 10)
	}
	if g.outcome != "" {
		dst = append(dst, `,"outcome":`...)
		dst = appendToken(dst, string(g.outcome))
	}
	return dst, codeEnd
}

// appendToken writes a member of a closed set (an action, cause or
// outcome that renderedGuidance let through): snake_case ASCII, which
// needs no escaping.
func appendToken(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// jsonSegments are the two runs of a problem+json body that every
// occurrence of a code shares while it keeps what its kind gave it (type,
// title, status, default detail; code and retry guidance, under any
// outcome), rendered once by appendHead and appendGuidance themselves,
// with the values they were rendered from: appendJSONWith copies a run
// only when the occurrence renders exactly those values, so the body is
// the same byte for byte.
type jsonSegments struct {
	head []byte
	// guides holds the guidance run under each outcome, in the order of
	// outcomes.
	guides [5][]byte
	// detailAt and codeEnd are appendHead's and appendGuidance's offsets
	// within head and within each guide (the code comes first in all).
	detailAt, codeEnd int

	typ, title, detail string
	status             int
	code               string
	guidance           guidance // outcome left empty
	retryable          bool
}

// outcomes are the outcomes a rendered problem can state, "" included.
var outcomes = [...]Outcome{"", OutcomeNotStarted, OutcomeNotCommitted, OutcomeCommitted, OutcomeUnknown}

func newJSONSegments(d *Definition, typ string) *jsonSegments {
	t := occurrenceOf(d)
	t.typ, t.kindType = typ, typ
	t.outcome = ""
	s := &jsonSegments{
		typ: t.typ, title: t.renderedTitle(), detail: t.renderedDetail(), status: t.status,
		code: t.peerText(t.code), guidance: t.renderedGuidance(), retryable: t.retryable,
	}
	s.head, s.detailAt = t.appendHead(nil, s.title, s.detail)
	for i, o := range outcomes {
		g := s.guidance
		g.outcome = o
		s.guides[i], s.codeEnd = appendGuidance(nil, s.code, g, s.retryable)
	}
	return s
}

// guideFor returns the guidance run for code, g and retryable as
// appendGuidance would render them, or nil when s holds none (s may be
// nil).
func (s *jsonSegments) guideFor(code string, g guidance, retryable bool) []byte {
	if s == nil || code != s.code || retryable != s.retryable || g.action != s.guidance.action ||
		g.cause != s.guidance.cause || g.retryAfterMS != s.guidance.retryAfterMS {
		return nil
	}
	for i, o := range outcomes {
		if g.outcome == o {
			return s.guides[i]
		}
	}
	return nil
}

// MarshalJSON renders the problem as AppendJSON does, so a Problem can be
// embedded in other JSON documents.
func (p *Problem) MarshalJSON() ([]byte, error) {
	return p.AppendJSON(nil), nil
}

// logText is text that already passed the log tier (development mode):
// rendered escaped but not through the public tier, which would undo what
// development mode is for.
type logText string

// appendValue renders an extension value. Common scalar types are written
// directly; anything else goes through encoding/json and back so its strings
// are sanitized too.
func appendValue(dst []byte, v any) []byte {
	return appendNested(dst, v, nil)
}

// maxValueDepth matches the nesting encoding/json's decoder accepts, so
// every document Parse reads renders whole.
const maxValueDepth = 10000

// container identifies a map or slice on the path from the extension to
// the value being rendered. A slice is its array and length: a cycle
// through slices always comes back to the same pair.
type container struct {
	ptr unsafe.Pointer
	n   int
}

// appendNested renders v below the containers on path. A map or slice that
// contains itself (m["self"] = m) is rendered as null where it recurs, as
// is anything nested deeper than maxValueDepth: recursing would overflow
// the stack, a fatal error no recover catches, so one careless extension
// could take down the whole server. A nil path is created at the first
// container, so scalar values cost nothing.
func appendNested(dst []byte, v any, path *valuePath) []byte {
	switch v.(type) {
	case []any, map[string]any:
		if path == nil {
			path = new(valuePath)
		}
	}
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return appendPublic(dst, v)
	case logText:
		return appendString(dst, string(v))
	case bool:
		return strconv.AppendBool(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int32:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case uint:
		return strconv.AppendUint(dst, uint64(v), 10)
	case uint32:
		return strconv.AppendUint(dst, uint64(v), 10)
	case uint64:
		return strconv.AppendUint(dst, v, 10)
	case float32:
		return appendFloat(dst, float64(v), 32)
	case float64:
		return appendFloat(dst, v, 64)
	case json.Number:
		if !portableNumber(string(v)) {
			return append(dst, "null"...)
		}
		return append(dst, v...)
	case []string:
		dst = append(dst, '[')
		for i, s := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendPublic(dst, s)
		}
		return append(dst, ']')
	case []any:
		if !path.enter(container{unsafe.Pointer(unsafe.SliceData(v)), len(v)}) {
			return append(dst, "null"...)
		}
		defer path.leave()
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNested(dst, e, path)
		}
		return append(dst, ']')
	case map[string]any:
		if !path.enter(container{reflect.ValueOf(v).UnsafePointer(), 0}) {
			return append(dst, "null"...)
		}
		defer path.leave()
		return appendMembers(dst, v, path)
	}
	if empty, ok := nilContainer(v); ok {
		return append(dst, empty...)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return appendUnmarshalable(dst, v, path)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return append(dst, "null"...)
	}
	return appendNested(dst, generic, path)
}

// appendMembers renders a map's members: sorted, names public and unique,
// secrets redacted (see publicMembers).
func appendMembers(dst []byte, m map[string]any, path *valuePath) []byte {
	dst = append(dst, '{')
	for i, e := range publicMembers(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, e.Name)
		dst = append(dst, ':')
		dst = appendNested(dst, e.Value, path)
	}
	return append(dst, '}')
}

// nilContainer returns what a nil map or slice of any type renders as: {}
// or [] where encoding/json writes null, so a member that holds no entries
// is not read as one that holds nothing at all; a nil []byte is "", as an
// empty one is in encoding/json. A type with its own MarshalJSON or
// MarshalText keeps its own rendering.
func nilContainer(v any) (string, bool) {
	rv := reflect.ValueOf(v)
	kind := rv.Kind()
	if kind != reflect.Map && kind != reflect.Slice || !rv.IsNil() || marshalsItself(v) {
		return "", false
	}
	switch {
	case kind == reflect.Map:
		return "{}", true
	case rv.Type().Elem().Kind() == reflect.Uint8:
		return `""`, true
	}
	return "[]", true
}

// marshalsItself reports a value whose type chose its own JSON form.
func marshalsItself(v any) bool {
	switch v.(type) {
	case json.Marshaler, encoding.TextMarshaler:
		return true
	}
	return false
}

// appendUnmarshalable renders a map or slice encoding/json refuses, most
// often for a map with interface keys (what YAML decoders return): keys are
// formatted with fmt, so the member is kept and its secret-named keys are
// redacted like any other, and an element encoding/json refuses is null on
// its own. Anything else encoding/json refuses (a struct holding a NaN,
// channels, functions) is null as a whole, and so is a type whose own
// MarshalJSON or MarshalText failed (an invalid json.RawMessage): its bytes
// are not its value. Cycles are cut on the original container, since each
// conversion makes a new one.
func appendUnmarshalable(dst []byte, v any, path *valuePath) []byte {
	if marshalsItself(v) {
		return append(dst, "null"...)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		if path == nil {
			path = new(valuePath)
		}
		if rv.IsNil() || !path.enter(container{rv.UnsafePointer(), 0}) {
			return append(dst, "null"...)
		}
		defer path.leave()
		m := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			m[fmt.Sprint(it.Key().Interface())] = it.Value().Interface()
		}
		return appendMembers(dst, m, path)
	case reflect.Slice:
		if path == nil {
			path = new(valuePath)
		}
		if rv.IsNil() || !path.enter(container{rv.UnsafePointer(), rv.Len()}) {
			return append(dst, "null"...)
		}
		defer path.leave()
		dst = append(dst, '[')
		for i := range rv.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNested(dst, rv.Index(i).Interface(), path)
		}
		return append(dst, ']')
	}
	return append(dst, "null"...)
}

// valuePath is the stack of containers being rendered. The first few are
// searched in a slice; deeper ones (a peer's deeply nested document) also
// sit in a set, so checking for a cycle stays O(1) at any depth.
type valuePath struct {
	stack []container
	deep  map[container]struct{}
}

const shallowPath = 16

// enter pushes c and reports true, or reports false when c is already on
// the path (a cycle) or the path is as deep as a value may be. A nil path
// (the top-level value) starts a new one.
func (p *valuePath) enter(c container) bool {
	if len(p.stack) >= maxValueDepth {
		return false
	}
	if c.ptr != nil {
		if slices.Contains(p.stack[:min(len(p.stack), shallowPath)], c) {
			return false
		}
		if _, ok := p.deep[c]; ok {
			return false
		}
	}
	if len(p.stack) >= shallowPath {
		if p.deep == nil {
			p.deep = make(map[container]struct{})
		}
		p.deep[c] = struct{}{}
	}
	p.stack = append(p.stack, c)
	return true
}

func (p *valuePath) leave() {
	last := len(p.stack) - 1
	if last >= shallowPath {
		delete(p.deep, p.stack[last])
	}
	p.stack = p.stack[:last]
}

func appendFloat(dst []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

// portableNumber reports a number every client can read: in JSON's grammar
// and within a double's range. RFC 8259 §6 leaves larger magnitudes to the
// implementation, and encoding/json, like most, refuses 1E700, which would
// make the whole problem unreadable.
func portableNumber(s string) bool {
	if !validNumber(s) {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// validNumber reports whether s is a number in JSON's grammar (RFC 8259 §6):
// strconv accepts more (NaN, Inf, +1, .5, 0x1p4, 1_0, 01 is fine for it).
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

const hexDigits = "0123456789abcdef"

// plainJSON marks the bytes a JSON string may carry as they are. Everything
// else (controls, quote, backslash, <, >, &, and every non-ASCII byte) takes
// the slow path, which stays rare in problem text.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range []byte{'"', '\\', '<', '>', '&', 0x7f} {
		t[c] = false
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainWord reports whether none of 8 bytes needs escaping: no control byte,
// no non-ASCII byte, none of " \\ < > &. Checking a word at a time keeps
// long details cheap; the byte table handles the rest.
func plainWord(x uint64) bool {
	q, b, lt, gt, amp, del := x^(lsb*'"'), x^(lsb*'\\'), x^(lsb*'<'), x^(lsb*'>'), x^(lsb*'&'), x^(lsb*0x7f)
	special := x | (x-lsb*0x20)&^x |
		(q-lsb)&^q | (b-lsb)&^b | (lt-lsb)&^lt | (gt-lsb)&^gt | (amp-lsb)&^amp | (del-lsb)&^del
	return special&msb == 0
}

// appendString writes s as a JSON string. Invalid UTF-8 and the runes of
// isReplaced (controls, invisible format characters) become U+FFFD; <, > and & are escaped so a body sniffed as HTML cannot
// carry markup, and U+2028/U+2029 so the body is also valid JavaScript.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && plainWord(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
		}
		for i < len(s) && plainJSON[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				if c < 0x20 || c == 0x7f {
					dst = append(dst, "\uFFFD"...)
				} else {
					dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
				}
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		if isReplaced(r) {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
