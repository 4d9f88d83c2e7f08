package sanitize

import "strings"

// A password piped into a command that reads it from its standard input:
// "echo <password> | docker login -u ci --password-stdin registry",
// "printf '%s' <token> | gh auth login --with-token". The option says what
// the pipe carries, so the word echo or printf writes is redacted whatever
// its shape. A file piped in ("cat pw.txt | ...") names no secret.

// stdinSecretOptions are the options that read a credential from the
// standard input: docker's, podman's, helm's, oras' and skopeo's logins,
// and the GitHub CLI's.
var stdinSecretOptions = []string{"--password-stdin", "--with-token"}

// stdinSecretOptionAt reports whether s[i] starts one of
// stdinSecretOptions as a word.
func stdinSecretOptionAt(s string, i int) bool {
	if i+2 >= len(s) || s[i+1] != '-' {
		return false
	}
	for _, o := range stdinSecretOptions {
		if strings.HasPrefix(s[i:], o) && (i+len(o) == len(s) || !isKeyNameByte(s[i+len(o)])) {
			return true
		}
	}
	return false
}

// maxPipeLead bounds how far before its option the pipe's writer is read.
const maxPipeLead = 256

// redactStdinSecrets replaces what echo or printf pipes into a command
// with one of stdinSecretOptions on the same line.
func redactStdinSecrets(s string) string {
	e := edit{s: s}
	// from is after the last option read: the writer of an option's pipe
	// stands after the option before it, so no byte is read back twice.
	from := 0
	for i := indexFrom(s, 0, '-'); i < len(s); i = indexFrom(s, i+1, '-') {
		if (i > 0 && !isSpace(s[i-1])) || !stdinSecretOptionAt(s, i) {
			continue
		}
		if vs, ve := pipedWord(s, max(from, i-maxPipeLead), i); ve > vs && vs >= e.last {
			e.replace(vs, ve, Redacted)
		}
		from = i + 1
	}
	return e.result()
}

// pipedWord returns the bounds of the last word echo or printf writes into
// the pipe before the option at s[o], on the option's line and after
// s[lo], or an empty span when no such writer feeds it.
func pipedWord(s string, lo, o int) (int, int) {
	if nl := strings.LastIndexByte(s[lo:o], '\n'); nl >= 0 {
		lo += nl + 1
	}
	pipe := strings.LastIndexByte(s[lo:o], '|')
	spend(o - lo)
	if pipe < 0 || pipe > 0 && s[lo+pipe-1] == '|' {
		return 0, 0
	}
	pipe += lo
	// The writer is the last echo or printf before the pipe, as a word or
	// a path's last part: it may start the line, follow ';' or "&&", or
	// an error's wrapper ("ci: echo ... | ...", "/bin/echo ... | ...").
	start := max(lastCommand(s[lo:pipe], "echo "), lastCommand(s[lo:pipe], "printf "))
	if start < 0 {
		return 0, 0
	}
	start += lo
	ve := pipe
	for ve > start && (s[ve-1] == ' ' || s[ve-1] == '\t') {
		ve--
	}
	if ve == start {
		return 0, 0
	}
	if q := s[ve-1]; q == '"' || q == '\'' {
		vs := strings.LastIndexByte(s[start:ve-1], q)
		if vs < 0 {
			return 0, 0
		}
		if vs = start + vs + 1; placeholderAt(s, vs, ve-1) {
			return 0, 0
		}
		return vs, ve - 1
	}
	vs := ve
	for vs > start && !endsWord[s[vs-1]] {
		vs--
	}
	if s[vs:ve] == "echo" || s[vs:ve] == "printf" || s[vs] == '-' || placeholderAt(s, vs, ve) {
		return 0, 0
	}
	return vs, ve
}

// lastCommand returns where the last occurrence of name in s that
// commandAt finds begins, or -1.
func lastCommand(s, name string) int {
	last := -1
	for k := commandAt(s, 0, name); k < len(s); k = commandAt(s, k+1, name) {
		last = k
	}
	return last
}
