package sanitize

// inPath reports whether the key whose keyword starts at s[start] is a
// segment of a file path or URL path ("/etc/passwd:",
// "/run/secrets/db_password:"): a name there is not an assignment. Only the
// bytes within the prefilter's reach of the separator at s[q] are read.
func inPath(s string, start, q int) bool {
	w := start
	// s[w-1] and s[w-2] are read after the loop: both within scanBehind.
	for w > 0 && q-w < scanBehind-2 && isKeyNameByte(s[w-1]) {
		w--
	}
	// A backslash that starts an escape the log tier writes, glued to
	// the name ("\\tpassword:", "\\u000cCookie:"), stands for the tab or
	// the control before it, not a path's separator: the log tier's second
	// call reads the name as its first read it.
	if past := pastLogEscape(s, w); past > w && past <= start {
		return false
	}
	return w > 0 && (s[w-1] == '/' || s[w-1] == '\\' && (w < 2 || s[w-2] != '"' && s[w-2] != '{' && s[w-2] != ','))
}

// assignsInPath reports whether the separator after a key in a path
// segment assigns a value all the same: '=' always does (matrix and
// key=value segments, "/reset/token=..."), ':' when a value follows it
// directly ("/api_key:abc..."). A file path ends at a colon followed by a
// space or the end of the text ("open /run/secrets/db_password: denied").
func assignsInPath(s string, q int) bool {
	switch s[q] {
	case '=':
		return true
	case ':':
		return q+1 < len(s) && !isSpace(s[q+1]) && s[q+1] != ':'
	}
	return false
}
