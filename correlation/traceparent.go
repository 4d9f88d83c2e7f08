package correlation

// traceContext is a parsed W3C Trace Context traceparent header
// (https://www.w3.org/TR/trace-context/#traceparent-header).
type traceContext struct {
	Version  byte
	TraceID  string // 32 lowercase hex digits, not all zero
	ParentID string // 16 lowercase hex digits, not all zero
	Flags    byte
}

// Sampled reports the sampled flag: whether the caller may have recorded
// this trace.
func (tc traceContext) Sampled() bool { return tc.Flags&0x01 != 0 }

// String formats tc as a traceparent value of its version, without any
// suffix a later version may have carried.
func (tc traceContext) String() string {
	b := make([]byte, 0, traceparentLen)
	b = appendHexByte(b, tc.Version)
	b = append(b, '-')
	b = append(b, tc.TraceID...)
	b = append(b, '-')
	b = append(b, tc.ParentID...)
	b = append(b, '-')
	b = appendHexByte(b, tc.Flags)
	return string(b)
}

func appendHexByte(b []byte, v byte) []byte {
	const hexdigits = "0123456789abcdef"
	return append(b, hexdigits[v>>4], hexdigits[v&0x0f])
}

// traceparentLen is the length of version-traceid-parentid-flags.
const traceparentLen = 2 + 1 + 32 + 1 + 16 + 1 + 2

// parseTraceparent parses a traceparent header value by the W3C rules:
// lowercase hex only, version ff is invalid, an all-zero trace-id or
// parent-id is invalid, version 00 has exactly 55 characters, and a higher
// version may carry a suffix that starts with "-" after the flags (which is
// ignored). The returned IDs are substrings of s; parsing does not allocate.
func parseTraceparent(s string) (traceContext, bool) {
	if len(s) < traceparentLen || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return traceContext{}, false
	}
	version, ok := parseHexByte(s[0:2])
	if !ok || version == 0xff {
		return traceContext{}, false
	}
	if len(s) > traceparentLen && (version == 0 || s[traceparentLen] != '-') {
		return traceContext{}, false
	}
	traceID, parentID := s[3:35], s[36:52]
	if !isLowerHexNonZero(traceID) || !isLowerHexNonZero(parentID) {
		return traceContext{}, false
	}
	flags, ok := parseHexByte(s[53:55])
	if !ok {
		return traceContext{}, false
	}
	return traceContext{Version: version, TraceID: traceID, ParentID: parentID, Flags: flags}, true
}

func lowerHexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func parseHexByte(s string) (byte, bool) {
	hi, ok1 := lowerHexVal(s[0])
	lo, ok2 := lowerHexVal(s[1])
	return hi<<4 | lo, ok1 && ok2
}

// isLowerHexNonZero reads the random digits of a trace or span ID through
// a table folded into one value, as Valid does, with no branch per digit
// for the branch predictor to miss.
func isLowerHexNonZero(s string) bool {
	all, nonZero := uint8(1), byte(0)
	for i := 0; i < len(s); i++ {
		all &= lowerHexDigit[s[i]]
		nonZero |= s[i] ^ '0'
	}
	return all != 0 && nonZero != 0
}

// lowerHexDigit is 1 for the bytes lowerHexVal accepts.
var lowerHexDigit = func() (t [256]uint8) {
	for c := range t {
		if _, ok := lowerHexVal(byte(c)); ok {
			t[c] = 1
		}
	}
	return t
}()
