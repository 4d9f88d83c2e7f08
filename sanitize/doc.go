// Package sanitize turns untrusted text into text that is safe to show a
// client, and redacts secrets from log records. It has two tiers.
//
// Public is for text that leaves in a problem body. It promises that the
// result holds no credential the rules know (vendor-prefixed tokens, JWTs,
// private keys, a value named by a credential word such as "token", "API
// key", "client_secret", "Passwort" or "пароль" with any separator, in
// prose, key-value syntaxes, tables or markup, the short secrets a key
// names (a card's CVV, a PIN, one-time codes), the arguments after the
// first of a call that authenticates (a traceback's HTTPBasicAuth('user',
// '...')), the credential of a mail protocol's AUTH command, URL and DSN
// passwords,
// command-line passwords, user:password pairs in plain, quoted or base64
// form, a statement's password literals and an INSERT's values for secret
// columns, card numbers), no IP address, internal host name
// or file system path, and nothing of a stack trace, a database statement
// or a database driver message: such text becomes GenericDetail whole. The
// result is at most MaxPublicLen bytes, valid UTF-8, and a fixed point:
// Public(Public(s)) == Public(s).
//
// Log is for text that goes to the operator's log. It redacts the same
// credentials and card numbers but keeps what an operator needs (SQL,
// addresses, host names, paths, stack traces), and writes control
// characters and invisible runes as visible escapes so that one value
// cannot forge a log line. The result is at most MaxLogLen bytes.
//
// Both tiers keep the identifiers the contract hands out (request,
// correlation, operation, approval and trace ids, idempotency keys) and a
// secret key's value that only refers to a secret kept elsewhere
// ("${DB_PASSWORD}", "%FEED_PASSWORD%", a template, a mask), run
// in time linear in their input, and return clean text itself without
// allocating. NewLogHandler applies the log tier to every record of a
// slog.Handler, reading each attribute's key with its value, so that an
// attribute named "password" or "api_key" keeps no credential however
// plain its value looks.
//
// The rules are tables: tokenFormats (rules.go) for credentials that carry
// a vendor prefix, contextRules (context_rules.go) for the words that name a
// credential and the shape of its value, secretKeys and keyQualifiers
// (kv_names.go) for key-value syntaxes. A new vendor, word or key is one row.
package sanitize
