package sanitize

import "slices"

// A contextRule is one row of the context rule: the words that name a
// credential and the shape of the value they announce. Adding a word is
// one entry of words; a word matches as a whole word, as the last part of a
// compound name ("db_password", "X-Api-Key", "accessToken", "APIKEY") and
// in the plural.
type contextRule struct {
	name  string
	words []string // lower case
	// spaced lets a bare space separate the word from its value ("invalid
	// token <value>"); without it the rule needs ':', '=', "is" or a quote.
	spaced bool
	// ignoreAfter are qualifiers that make the word name something else
	// ("primary key", "idempotency key": the contract's own identifiers).
	ignoreAfter []string
	// ignoreByLast holds ignoreAfter by last letter (see qualifiedAway).
	ignoreByLast [256][]string
	shape        valueShape
}

// A valueShape bounds a credential's value: its length in bytes, and the
// evidence of entropy it must carry (see valueShape.holds).
type valueShape struct {
	min, max int
	// digitsOnly is the shortest value of digits alone that counts.
	digitsOnly int
}

var contextRules = []contextRule{
	{
		name: "credential",
		words: slices.Concat([]string{"key", "token", "secret", "password", "passwd", "pwd", "passphrase", "credential", "creds", "cred",
			"auth", "signature", "apikey", "accesskey", "secretkey", "privatekey", "authtoken", "accesstoken",
			"refreshtoken", "clientsecret", "oauth", "pw", "otp", "passcode", "hmac", "jwt", "bearer",
			"authentication",
			// Redis' settings of a server's and a replica's password,
			// written "requirepass <value>" in redis.conf and CONFIG SET.
			"requirepass", "masterauth"},
			// The word for a password in other languages.
			passwordWords),
		spaced: true,
		ignoreAfter: []string{"idempotency", "primary", "foreign", "sort", "partition", "cache", "object", "unique",
			"composite", "routing", "lookup", "shard", "hash", "map", "row", "dedup", "dedupe", "bucket", "index",
			"registry", "translation", "public", "message", "pagination", "page", "continuation", "cursor", "next"},
		shape: valueShape{min: 8, max: 1024, digitsOnly: 16},
	},
	{
		// Words that name a credential only as a key of their own
		// ("SONAR.LOGIN ::= ...", "db_pass: ...", "tok: ...", "tkn=..."):
		// in prose they are verbs, or abbreviations too short to tell.
		name:        "credential-key",
		words:       []string{"login", "pass", "tok", "tkn"},
		ignoreAfter: []string{"idempotency"},
		shape:       valueShape{min: 8, max: 1024, digitsOnly: 16},
	},
}

func init() {
	for i := range contextRules {
		r := &contextRules[i]
		for _, w := range r.ignoreAfter {
			r.ignoreByLast[w[len(w)-1]] = append(r.ignoreByLast[w[len(w)-1]], w)
		}
	}
}

type contextWord struct {
	word string
	rule *contextRule
}

// contextWordsByLast groups the words of contextRules by their last byte,
// in either case, as keysByLast does for the key-value rule.
var contextWordsByLast = func() (t [256][]contextWord) {
	for i := range contextRules {
		r := &contextRules[i]
		for _, w := range r.words {
			c := w[len(w)-1]
			t[c] = append(t[c], contextWord{w, r})
			t[c-'a'+'A'] = append(t[c-'a'+'A'], contextWord{w, r})
		}
	}
	return t
}()
