package sanitize

import (
	"slices"
	"strings"
)

// authCallees are the last words of the names of functions whose
// arguments after the first hold a credential: a user or an identity
// first, then a password or a secret (HTTPBasicAuth, smtp.PlainAuth,
// server.login, OAuth1, NetworkCredential).
var authCallees = []string{"auth", "oauth", "login", "logon", "signin", "authenticate", "credential", "credentials"}

// callArgumentBefore reports the credential row when the quoted value that
// starts at s[v] is an argument, after the first, of a call to a function
// that authenticates: a traceback prints the line of source that failed
// ("auth=HTTPBasicAuth('bob', '<value>')", "server.login(user,
// '<value>')"). The arguments before it are read back, quoted strings
// whole, to the call's '(' and the name before it, no further than
// contextReach.
func callArgumentBefore(s string, v int) *contextRule {
	if v < 2 || s[v-1] != '"' && s[v-1] != '\'' {
		return nil
	}
	// An argument after the first follows a comma: most quoted values
	// ("id = 'ord_9'") are turned away here, before the read back.
	comma := v - 1
	for comma > 0 && s[comma-1] == ' ' {
		comma--
	}
	if comma == 0 || s[comma-1] != ',' {
		return nil
	}
	lo := max(0, v-contextReach)
	i := comma - 1
	defer func() { spend(v - i) }()
	for i > lo {
		switch c := s[i-1]; {
		case c == '"' || c == '\'':
			j := strings.LastIndexByte(s[lo:i-1], c)
			if j < 0 {
				return nil
			}
			i = lo + j
		case c == '(':
			if !authCallee(s[lo : i-1]) {
				return nil
			}
			return credentialRule
		case isWordByte(c) || c == ' ' || c == ',' || c == '.' || c == '=':
			i--
		default:
			return nil
		}
	}
	return nil
}

// authCallee reports whether the name that ends s ends in one of
// authCallees as a part of its own ("SetBasicAuth", "smtp_login",
// "OAuth1"), not inside a longer word.
func authCallee(s string) bool {
	b := len(s)
	for b > 0 && isWordByte(s[b-1]) {
		b--
	}
	name := s[b:]
	for len(name) > 0 && isDigit(name[len(name)-1]) {
		name = name[:len(name)-1]
	}
	for _, w := range authCallees {
		if n := len(name) - len(w); n >= 0 && hasSuffixFold(name, w) && (n == 0 || partBoundary(name, n)) {
			return true
		}
	}
	return false
}

// saslMechanisms name how a mail or directory client proves who it is;
// the credential follows the name ("AUTH PLAIN <base64>").
var saslMechanisms = []string{"plain", "login", "xoauth2", "oauthbearer", "cram-md5", "digest-md5",
	"scram-sha-1", "scram-sha-256", "external"}

// saslCommandBefore reports that s[kb:ke] names a SASL mechanism after an
// AUTH or AUTHENTICATE command, as SMTP, POP3 and IMAP transcripts write
// them: the value after the mechanism is the client's credential, which
// the command announces as "password" would.
func saslCommandBefore(s string, kb, ke, lo int) bool {
	if kb-lo < len("auth ") || s[kb-1] != ' ' || !slices.ContainsFunc(saslMechanisms, func(m string) bool {
		return len(m) == ke-kb && hasPrefixFold(s[kb:ke], m)
	}) {
		return false
	}
	cb := keyWordStart(s, kb-1, lo)
	c := s[cb : kb-1]
	return len(c) == len("auth") && hasPrefixFold(c, "auth") || len(c) == len("authenticate") && hasPrefixFold(c, "authenticate")
}
