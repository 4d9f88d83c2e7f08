package sanitize

import "strings"

// The marks of a stack trace the public tier looks for beyond its words:
// a frame's source location and an exception's qualified class name.

// sourceExtensions are the source files whose "name.ext:line" marks a
// stack frame (Go, Java, Kotlin, Scala, JavaScript, TypeScript, Rust, Ruby,
// PHP, Python, C#, Elixir, Erlang, Swift, Dart, C, C++, Lua, Groovy), by the
// byte after the dot.
var sourceExtensions = func() (t [256][]string) {
	for _, ext := range []string{".go:", ".java:", ".kt:", ".scala:", ".js:", ".mjs:", ".cjs:", ".jsx:", ".ts:", ".tsx:", ".rs:", ".rb:", ".php:", `.py", line `, ".cs:line ",
		".ex:", ".exs:", ".erl:", ".swift:", ".dart:", ".c:", ".cc:", ".cpp:", ".lua:", ".groovy:"} {
		t[ext[1]] = append(t[ext[1]], ext)
	}
	return t
}()

// sourceLocationAt reports whether the '.' at s[i] starts the extension of
// a source location in a stack frame: "main.go:12", "Order.java:42",
// "server.js:10:5", "main.rs:3:9", `app.py", line 142`, "Program.cs:line 7".
func sourceLocationAt(s string, i int) bool {
	t := s[i:]
	for _, ext := range sourceExtensions[s[i+1]] {
		if strings.HasPrefix(t, ext) && len(t) > len(ext) && isDigit(t[len(ext)]) {
			return true
		}
	}
	return false
}

// pythonLineBefore reports whether the ", in " at s[i] follows "line N",
// as in a Python traceback's frame line.
func pythonLineBefore(s string, i int) bool {
	d := i
	for d > 0 && isDigit(s[d-1]) {
		d--
	}
	return d < i && d >= 5 && s[d-5:d] == "line "
}

// qualifiedThrowableBefore reports whether the colon at s[i] follows the
// package-qualified name of an exception or error class, as the first line
// of a Java, .NET, Kotlin or Python trace writes it
// ("java.lang.IllegalStateException: ...", "System.NullReferenceException:",
// "requests.exceptions.ConnectionError:"). The dot that qualifies it must
// lie within the prefilter's reach.
func qualifiedThrowableBefore(s string, i int, suffix string) bool {
	if i < len(suffix)+2 || s[i-len(suffix):i] != suffix {
		return false
	}
	for j := i - len(suffix) - 1; j >= 0 && j >= i-scanBehind; j-- {
		switch c := s[j]; {
		case c == '.':
			return j > 0 && isLetter(s[j-1])
		case !isLetter(c) && !isDigit(c) && c != '_' && c != '$':
			return false
		}
	}
	return false
}
