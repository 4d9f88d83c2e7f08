package sanitize

import "strings"

// Command lines that carry a password in a short option: mysql, mysqldump
// and mariadb take it glued to "-p" ("-pS3cret": a space after "-p" makes
// the next word the database, and the client prompts), sshpass takes it as
// the word after "-p". The option is a password only after its command on
// the same line, so "mkdir -p" and "-pedantic" keep their words.

// passwordFlagCommands are the commands whose "-p" option is a password,
// and whether the password is glued to it.
var passwordFlagCommands = []struct {
	name  string
	glued bool
}{{"mysql", true}, {"mariadb", true}, {"sshpass", false}}

// passwordFlagAt reports whether s[i] starts a "-p" option that may carry
// a password: the prefilter's check, which does not look for the command.
func passwordFlagAt(s string, i int) bool {
	return i+2 < len(s) && s[i+1] == 'p' && (i == 0 || isSpace(s[i-1])) && !isSpace(s[i+2]) || strings.HasPrefix(s[i:], "-p ")
}

// redactPasswordFlags replaces the passwords of passwordFlagCommands. The
// text is read once: the last command and the last line break before each
// "-p" are found by searches that only move forward.
func redactPasswordFlags(s string) string {
	e := edit{s: s}
	cmd, glued := -1, false
	nextCmd, nextKind := nextPasswordCommand(s, 0)
	lineStart, nextBreak := 0, nextLineBreak(s, 0)
	for i := indexFrom(s, 0, '-'); i < len(s); i = indexFrom(s, i+1, '-') {
		for nextCmd < i {
			cmd, glued = nextCmd, passwordFlagCommands[nextKind].glued
			nextCmd, nextKind = nextPasswordCommand(s, nextCmd+1)
		}
		for nextBreak < i {
			lineStart = nextBreak + 1
			nextBreak = nextLineBreak(s, nextBreak+1)
		}
		if cmd < lineStart || i < e.last || !passwordFlagAt(s, i) {
			continue
		}
		v := i + 2
		if !glued {
			if s[v] != ' ' {
				continue
			}
			for v < len(s) && s[v] == ' ' {
				v++
			}
		} else if s[v] == ' ' {
			continue
		}
		vs, ve := optionValue(s, v)
		if ve > vs {
			e.replace(vs, ve, Redacted)
		}
	}
	return e.result()
}

// optionValue returns the bounds of an option's value at s[p]: inside its
// quotes, or the word.
func optionValue(s string, p int) (int, int) {
	if p >= len(s) {
		return p, p
	}
	if q := s[p]; q == '"' || q == '\'' {
		k := strings.IndexByte(s[p+1:min(len(s), p+1+maxQuotedPassword)], q)
		if k <= 0 {
			return p, p
		}
		spend(k)
		return p + 1, p + 1 + k
	}
	e := p
	for e < len(s) && !endsWord[s[e]] {
		e++
	}
	spend(e - p)
	return p, e
}

// nextPasswordCommand returns the start of the first command of
// passwordFlagCommands at or after s[i] that starts a word or a path's last
// part ("/usr/bin/mysql"), and its index, or len(s).
func nextPasswordCommand(s string, i int) (int, int) {
	best, kind := len(s), 0
	for k, c := range passwordFlagCommands {
		for j := i; j < best; {
			n := strings.Index(s[j:best], c.name)
			if n < 0 {
				break
			}
			spend(n + len(c.name))
			if p := j + n; p == 0 || s[p-1] == '/' || !isAlnum(s[p-1]) {
				best, kind = p, k
				break
			}
			j += n + 1
		}
	}
	return best, kind
}

// nextLineBreak returns the index of the first line break at or after
// s[i], real or escaped as the log tier writes it, or len(s).
func nextLineBreak(s string, i int) int {
	n := indexFrom(s, i, '\n')
	if k := strings.Index(s[i:n], `\n`); k >= 0 {
		return i + k
	}
	return n
}

// userPartEnd returns the index of the ':' that ends the user part of a
// "user:password" starting at s[p], bare or quoted ("alice":...), or -1.
func userPartEnd(s string, p int) int {
	if p < len(s) && (s[p] == '\'' || s[p] == '"') {
		q := quotedLen(s, p)
		if c := p + q + 2; q > 0 && c < len(s) && s[c] == ':' {
			return c
		}
		return -1
	}
	end := p
	for end < len(s) && !endsWord[s[end]] {
		end++
	}
	spend(end - p)
	if colon := strings.IndexByte(s[p:end], ':'); colon >= 0 {
		return p + colon
	}
	return -1
}

// quotedLen returns the length of the text quoted by the quote at s[q],
// up to maxQuotedPassword bytes, or 0 when it is empty or not closed.
func quotedLen(s string, q int) int {
	n := strings.IndexByte(s[q+1:min(len(s), q+1+maxQuotedPassword)], s[q])
	spend(max(n, 0))
	return max(n, 0)
}
