package sanitize

import (
	"math/bits"
	"strings"
)

// Command lines that carry a password in a short option. mysql, mysqldump,
// mariadb and 7z take it glued to "-p" ("-pS3cret": a space after mysql's
// "-p" makes the next word the database, and the client prompts). The
// others take it as the next word: sshpass, the registry logins ("docker
// login", podman, helm, oras, skopeo, cf), mongo and mongosh after "-p",
// redis-cli after "-a", sqlcmd and bcp after "-P", the ldap tools after
// "-w" (the bind password), zip after "-P", openssl (enc) after "-k".
// The option is a password only after its command on the same line, so
// "mkdir -p", "ssh -p 22", "ls -a" and "-pedantic" keep their words.

// passwordFlagCommands are the commands whose option is a password: the
// command's name (or the start of it: "mysql" is mysqldump's too), the
// option's letter, whether the password is glued to it, and whether it may
// be either (sshpass reads its options with getopt: "-p pw" and "-ppw").
var passwordFlagCommands = [...]struct {
	name   string
	flag   byte
	glued  bool
	either bool
}{
	{"mysql", 'p', true, false}, {"mariadb", 'p', true, false}, {"7z", 'p', true, false},
	{"sshpass", 'p', false, true}, {"login", 'p', false, false}, {"mongo", 'p', false, false},
	{"redis-cli", 'a', false, false}, {"sqlcmd", 'P', false, false}, {"bcp", 'P', false, false},
	{"ldap", 'w', false, false}, {"zip", 'P', false, false}, {"unzip", 'P', false, false},
	{"openssl", 'k', false, false},
}

// passwordFlagLetters marks the letters of passwordFlagCommands' options.
var passwordFlagLetters = func() (t [256]bool) {
	for _, c := range passwordFlagCommands {
		t[c.flag] = true
	}
	return t
}()

// passwordFlagAt reports whether s[i] starts an option that may carry a
// password: "-p" glued to a word, or one of the options' letters before a
// space. It is the prefilter's check, which does not look for the command.
func passwordFlagAt(s string, i int) bool {
	if i+2 >= len(s) || !passwordFlagLetters[s[i+1]] {
		return false
	}
	if i > 0 && !isSpace(s[i-1]) {
		return false
	}
	return s[i+2] == ' ' || s[i+1] == 'p' && !isSpace(s[i+2])
}

// redactPasswordFlags replaces the passwords of passwordFlagCommands. The
// text is read once: the last command and the last line break before each
// "-p" are found by searches that only move forward.
func redactPasswordFlags(s string) string {
	e := edit{s: s}
	// Nothing is looked for before the first option: the loops below
	// start from -1.
	cmd, kind := -1, 0
	nextCmd, nextKind := -1, 0
	breaks := newLineBreaks(s)
	lineStart, nextBreak := 0, -1
	for i := indexFrom(s, 0, '-'); i < len(s); i = indexFrom(s, i+1, '-') {
		if i < e.last || !passwordFlagAt(s, i) {
			continue
		}
		// The command and the line of an option are looked for only
		// where an option is: a text of dashes does not read for them.
		for nextCmd < i {
			cmd, kind = nextCmd, nextKind
			nextCmd, nextKind = commandFrom(s, nextCmd+1)
		}
		for nextBreak < i {
			lineStart = nextBreak + 1
			nextBreak = breaks.from(nextBreak + 1)
		}
		if cmd < lineStart || s[i+1] != passwordFlagCommands[kind].flag {
			continue
		}
		v := i + 2
		switch c := passwordFlagCommands[kind]; {
		case s[v] == ' ' && (!c.glued || c.either):
			for v < len(s) && s[v] == ' ' {
				v++
			}
		case s[v] == ' ' || !c.glued && !c.either:
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
// quotes, or the word, or none when the word is a key.
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
		if keyColonAt(s, p+2+k) {
			return p, p
		}
		return p + 1, p + 1 + k
	}
	// A word ends at a blank, and at the log tier's escape of one: read
	// through "\\t", "-p" glued to a tab in the tier's output took the
	// words after the tab, which the text's "-p" and tab did not.
	e := p
	for e < len(s) && !endsWord[s[e]] && !escapedBlankAt(s, e) {
		e++
	}
	spend(e - p)
	if e-p > 1 && keyColonAt(s, e-1) {
		return p, p
	}
	return p, e
}

// keyColonAt reports whether s[q] is a colon after a key of the key-value rule
// ("Cookie:", "password:", `"api_key":`). Such a key is no option's value:
// that rule redacts the value after it, which redacting the key would
// leave behind ("sshpass -p password: <value>").
func keyColonAt(s string, q int) bool {
	if q >= len(s) || s[q] != ':' {
		return false
	}
	_, _, ok := keyBefore(s, q)
	return ok
}

// commandsByFirst lists, for each byte, the indexes in
// passwordFlagCommands of the names it starts.
var commandsByFirst = func() (t [256][]int) {
	for k, c := range passwordFlagCommands {
		t[c.name[0]] = append(t[c.name[0]], k)
	}
	return t
}()

// commandFirstBits marks with 1 the bytes commandsByFirst lists names
// for, commandLeadBits the bytes a name may follow: any but a letter or a
// digit, which would make it the end of a longer word.
var (
	commandFirstBits = func() (t [256]uint8) {
		for c, ks := range commandsByFirst {
			if len(ks) > 0 {
				t[c] = 1
			}
		}
		return t
	}()
	commandLeadBits = func() (t [256]uint8) {
		for c := range t {
			if !isAlnum(byte(c)) {
				t[c] = 1
			}
		}
		return t
	}()
)

// commandFrom returns the start of the first command at or after s[i]
// that starts a word or a path's last part ("/usr/bin/mysql"), and its
// index in passwordFlagCommands, or len(s). The commands are found in one
// forward read for all of them (a search per command, strings.Index, read
// the text once for each of the thirteen): eight positions are read a
// step, each a name's first byte after a byte that ends no word, from two
// tables and without a branch, so that text whose letters start names
// often ("s", "o", "r") costs a step, not a stop, for most of them.
func commandFrom(s string, i int) (int, int) {
	for p := i; p < len(s); p++ {
		if p > 0 && p+8 <= len(s) {
			m := packWord(&commandFirstBits, s, p) & packWord(&commandLeadBits, s, p-1)
			if m == 0 {
				p += 7
				continue
			}
			p += bits.TrailingZeros64(m) >> 3
		} else if commandFirstBits[s[p]] == 0 || p > 0 && commandLeadBits[s[p-1]] == 0 {
			continue
		}
		for _, k := range commandsByFirst[s[p]] {
			if name := passwordFlagCommands[k].name; strings.HasPrefix(s[p:], name) {
				spend(p - i + len(name))
				return p, k
			}
		}
	}
	spend(len(s) - i)
	return len(s), 0
}

// commandAt returns the first occurrence of name at or after s[i] that
// starts a word or a path's last part, or len(s).
func commandAt(s string, i int, name string) int {
	for j := i; j < len(s); {
		n := strings.Index(s[j:], name)
		if n < 0 {
			spend(len(s) - j)
			return len(s)
		}
		spend(n + len(name))
		if p := j + n; p == 0 || s[p-1] == '/' || !isAlnum(s[p-1]) {
			return p
		}
		j += n + 1
	}
	return len(s)
}

// lineBreaks finds the line breaks of a text in order, real ones and those
// escaped as the log tier writes them ("\\n"), each kind searched for once
// however many of the other lie between: a text of escaped breaks and no
// real one was read to its end again for each of them.
type lineBreaks struct {
	s             string
	real, escaped int
}

func newLineBreaks(s string) lineBreaks { return lineBreaks{s: s, real: -1, escaped: -1} }

// from returns the index of the first line break at or after s[i], or
// len(s). i does not decrease from call to call.
func (b *lineBreaks) from(i int) int {
	if b.real < i {
		b.real = indexFrom(b.s, i, '\n')
	}
	if b.escaped < i {
		b.escaped = len(b.s)
		if k := strings.Index(b.s[i:], `\n`); k >= 0 {
			b.escaped = i + k
		}
		spend(b.escaped - i)
	}
	return min(b.real, b.escaped)
}

// userPartEnd returns the index of the ':' that ends the user part of a
// "user:password" starting at s[p], bare or quoted ("alice":...), or -1.
func userPartEnd(s string, p int) int {
	if p < len(s) && (s[p] == '\'' || s[p] == '"') {
		q := quotedLen(s, p)
		if c := p + q + 2; q > 0 && c < len(s) && s[c] == ':' {
			return c
		}
		// The pair quoted whole, as shells need it when the password
		// holds a '!' or a space: 'api:pa ss!'.
		if c := strings.IndexByte(s[p+1:p+1+q], ':'); q > 0 && c >= 0 {
			return p + 1 + c
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

// keystorePassParts end the options that carry a keystore's or a key's
// password in keytool, jarsigner and the JDK's other tools ("-storepass",
// "-keypass", "-srcstorepass", "-destkeypass"): the part before "pass".
// Their value is a password whatever it looks like ("-storepass
// changeit", the JDK's default, is one).
var keystorePassParts = []string{"store", "key"}

// keystorePassOptionAt returns the length of a keystore password option
// that starts a word at s[i], with the spaces after it, or 0. "-storepass:env
// NAME" and "-storepass:file path" name where the password is kept, and
// are no match.
func keystorePassOptionAt(s string, i int) int {
	if i > 0 && !isSpace(s[i-1]) || i+1 >= len(s) || s[i] != '-' {
		return 0
	}
	b := i + 1
	if s[b] == '-' {
		b++
	}
	e := b
	for e < len(s) && e-b < maxOptionName && 'a' <= s[e]|0x20 && s[e]|0x20 <= 'z' {
		e++
	}
	if e >= len(s) || s[e] != ' ' || !hasSuffixFold(s[b:e], "pass") {
		return 0
	}
	part := s[b : e-len("pass")]
	for _, p := range keystorePassParts {
		if hasSuffixFold(part, p) {
			v := e
			for v < len(s) && s[v] == ' ' {
				v++
			}
			return v - i
		}
	}
	return 0
}

// keystorePasswordAt finds the password after a keystore password option
// at s[i]: the next word or the text inside its quotes, unless it is the
// next option, a reference to a password kept elsewhere, or a word
// shorter than the six characters keytool requires ("use -storepass to
// set it" is prose about the option).
func keystorePasswordAt(s string, i int) (int, int) {
	n := keystorePassOptionAt(s, i)
	if n == 0 || i+n >= len(s) || s[i+n] == '-' {
		return 0, 0
	}
	vs, ve := optionValue(s, i+n)
	if ve <= vs || vs == i+n && (ve-vs < minKeystorePassword || optionWord(s[vs:ve])) || placeholderAt(s, vs, ve) {
		return 0, 0
	}
	return vs, ve
}

// optionWord reports the words that prose about an option puts after it
// ("the -keypass option is optional").
func optionWord(w string) bool {
	for _, o := range [...]string{"option", "options", "argument", "parameter", "values"} {
		if strings.EqualFold(w, o) {
			return true
		}
	}
	return false
}

const minKeystorePassword = 6
