package sanitize

import "strings"

// Roots under which a path tells an outsider something about the machine.
// URL paths ("/v1/orders/42") start elsewhere and survive.
var unixRoots = []string{
	"home", "root", "etc", "var", "usr", "opt", "tmp", "srv", "proc", "sys",
	"dev", "app", "go", "Users", "private", "mnt", "run", "lib", "lib64",
	"bin", "sbin", "snap", "nix", "media", "boot", "Library", "System",
	"Volumes", "Applications", "workspace", "builds",
}

// rootsByFirst groups unixRoots by first byte, so a slash that starts a URL
// path costs one lookup.
var rootsByFirst = func() (t [256][]string) {
	for _, r := range unixRoots {
		t[r[0]] = append(t[r[0]], r)
	}
	return t
}()

// redactPaths replaces Unix paths under well-known roots or the home
// directory, Windows drive paths and UNC paths.
func redactPaths(s string) string {
	e := edit{s: s}
	for i := 0; i < len(s); i++ {
		var from int
		start, windows := i, false
		switch {
		case s[i] == '/' && unixPathAt(s, i):
			from = i + 1
		case s[i] == '/' && homePathAt(s, i) >= 0:
			start, from = homePathAt(s, i), i+1
		case s[i] == '\\' && uncPathAt(s, i):
			from, windows = i+2, true
		case drivePathAt(s, i):
			from, windows = i+3, true
		default:
			continue
		}
		end := pathEnd(s, from)
		if windows {
			end = spacedSegmentsEnd(s, end)
		}
		e.replace(start, end, Redacted)
		i = end - 1
	}
	return e.result()
}

// unixPathAt reports whether the '/' at s[i] starts an absolute path under a
// well-known root. A slash inside a word or a URL ("example.com/etc/x") is
// part of something else; "file:///etc" is the exception.
func unixPathAt(s string, i int) bool {
	if i > 0 {
		switch p := s[i-1]; {
		case p == '/':
			if !strings.HasSuffix(s[:i], ":///") && !strings.HasSuffix(s[:i], "://") {
				return false
			}
		case isWordByte(p) || strings.IndexByte(".~-]", p) >= 0:
			return false
		}
	}
	rest := s[i+1:]
	if len(rest) == 0 {
		return false
	}
	for _, r := range rootsByFirst[rest[0]] {
		if len(rest) > len(r) && rest[len(r)] == '/' && rest[:len(r)] == r {
			return true
		}
	}
	return false
}

// homePathAt returns the start of a path in the home directory whose
// first slash is s[i] ("~/.aws/credentials"), or -1: such a path starts a
// word, and no URL starts so. Paths relative to the working directory
// ("./x", "../x") stay: HTML, CSS and import statements write URLs so.
func homePathAt(s string, i int) int {
	start := i - 1
	if start < 0 || s[start] != '~' {
		return -1
	}
	if start > 0 && (isWordByte(s[start-1]) || strings.IndexByte("./~-", s[start-1]) >= 0) {
		return -1
	}
	if i+1 >= len(s) || !isWordByte(s[i+1]) && s[i+1] != '.' {
		return -1
	}
	return start
}

// drivePathAt reports whether s[i] starts a Windows drive path ("C:\", "D:/").
func drivePathAt(s string, i int) bool {
	if i+2 >= len(s) || s[i+1] != ':' || s[i+2] != '\\' && s[i+2] != '/' {
		return false
	}
	c := s[i]
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	// "http://" has a word before its colon; a drive letter stands alone.
	return i == 0 || !isWordByte(s[i-1]) && s[i-1] != ']'
}

// uncPathAt reports whether s[i] starts a UNC path ("\\server\share").
func uncPathAt(s string, i int) bool {
	return i+2 < len(s) && s[i+1] == '\\' && isWordByte(s[i+2]) && (i == 0 || s[i-1] != '\\')
}

// pathEnd extends a path to the first byte that cannot be part of it in
// running text, leaving a sentence's final period outside.
// spacedSegmentsEnd extends a Windows path that ends at s[end] over the
// spaces of its directory names ("C:\Program Files (x86)\App\app.ini",
// "\\srv\Team Share\x"): a space followed, within three words, by a
// word that holds a separator goes on with the same path.
func spacedSegmentsEnd(s string, end int) int {
	for {
		k, found := end, false
		for n := 0; n < 3 && !found && k+1 < len(s) && s[k] == ' '; n++ {
			w := dirWordEnd(s, k+1)
			if w == k+1 {
				break
			}
			if strings.ContainsAny(s[k+1:w], `\/`) {
				end, found = w, true
			}
			k = w
		}
		if !found {
			return end
		}
	}
}

// dirWordEnd returns the end of the word at s[i] read as a directory's
// name: a path's bytes and the parentheses of "(x86)", less a closing
// parenthesis it did not open and the dots that end a sentence.
func dirWordEnd(s string, i int) int {
	j, open := i, 0
	for j < len(s) && (!isPathStop(s[j]) || s[j] == '(' || s[j] == ')' && open > 0) {
		switch s[j] {
		case '(':
			open++
		case ')':
			open--
		}
		j++
	}
	spend(j - i)
	for j > i && s[j-1] == '.' {
		j--
	}
	return j
}

func pathEnd(s string, i int) int {
	from := i
	for i < len(s) && !isPathStop(s[i]) {
		i++
	}
	spend(i - from)
	for i > 0 && s[i-1] == '.' {
		i--
	}
	return i
}

func isPathStop(c byte) bool {
	return pathStops[c]
}

// pathStops holds the bytes isPathStop reports: one lookup for each byte
// of a path.
var pathStops = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c <= ' ' || c == 0x7f || strings.IndexByte("\"'<>|:;,()[]{}`", byte(c)) >= 0
	}
	return t
}()
