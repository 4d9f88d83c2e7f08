package sanitize

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// The names the key-value rule knows: a key matches by its ending, so
// "db_password" and "X-Api-Key" need no entry of their own.

var (
	// passwordWords are the word for a password in the languages whose
	// services log their own keys ("Passwort=", "senha:", "wachtwoord ="),
	// as ASCII spells it: keys of the key-value rule and words of the
	// context rule alike.
	passwordWords = []string{"passwort", "kennwort", "wachtwoord", "senha", "contrasena", "haslo", "heslo", "losenord",
		"passord", "salasana", "sifre", "jelszo", "lozinka", "geslo", "adgangskode", "katasandi", "matkhau"}

	secretKeys = slices.Concat([]string{"password", "passwd", "passphrase", "passcode", "pass", "pwd", "secret", "token",
		"apikey", "credential", "credentials", "session_id", "session-id", "sessionid", "signature", "sig",
		"secret_key_base", "session", "sessid",
		// Compound spellings the context rule, which reads one word,
		// would not find.
		"kata_sandi", "motdepasse", "mot_de_passe",
		// The word for a password as the language writes it, in the cases
		// a key is written (the comparison folds ASCII letters only).
		"contraseña", "hasło", "lösenord", "şifre", "jelszó", "mật_khẩu", "пароль", "Пароль", "ПАРОЛЬ",
		"密码", "密碼", "パスワード", "비밀번호", "كلمة_المرور", "סיסמה", "पासवर्ड",
		// Short secrets that PCI DSS forbids keeping after use (a card's
		// verification value, a PIN) and one-time codes, which are the
		// second factor of a login while they live.
		"cvv", "cvc", "cvv2", "cvc2", "pin", "otp", "mfa_code", "2fa_code", "verification_code",
		"auth_code", "authorization_code", "recovery_code", "backup_code", "privkey",
		// "bind_pw", "db_pw" and OpenLDAP's rootpw and bindpw; a passphrase
		// by its other name.
		"pw", "rootpw", "bindpw", "keyphrase",
		// OAuth 1's verifier and PKCE's, which complete a grant.
		"oauth_verifier", "code_verifier"}, passwordWords)
	// A key named "<qualifier>_key" ("DD_APP_KEY", "Ocp-Apim-Subscription-Key")
	// holds a credential; "key" alone names too many other things.
	keyQualifiers = []string{"api", "access", "secret", "private", "signing", "encryption", "master", "client", "account",
		"subscription", "license", "application", "app", "functions", "auth", "session", "shared", "storage",
		"deploy", "write", "consumer", "webhook", "hmac", "ssh", "jwt",
		// Vendors whose API keys services keep in "<VENDOR>_KEY" variables.
		"stripe", "openai", "anthropic", "sendgrid", "mailgun", "mailchimp", "twilio", "github", "gitlab",
		"slack", "google", "gcp", "firebase", "algolia", "pusher", "mapbox", "segment", "mixpanel", "heroku",
		"vercel", "netlify", "cloudflare", "digitalocean", "aws", "azure", "paypal", "braintree", "shopify",
		"hubspot", "intercom", "zendesk", "airtable", "notion", "discord", "telegram", "sentry", "postmark",
		"resend", "mistral", "cohere", "groq", "replicate", "huggingface", "pinecone", "supabase", "clerk"}
	// Header keys take the rest of the line as their value.
	lineKeys = []string{"authorization", "cookie"}
	// wholeKeys end too many other words ("spin", "kingpin") to match
	// glued to a lower-case letter: they name a secret alone or as the
	// last part of a compound ("card_pin", "cardPin", "PIN").
	wholeKeys = []string{"pin"}
	// separateKeys are so short that random letters end with them ("yPW"):
	// they match only after a byte that is not a letter ("db_pw", "PW").
	separateKeys = []string{"pw"}
)

// minOAuthCode is the shortest authorization code the key-value rule
// takes for one: providers issue 20 bytes and more, and an error code or
// a country code in a URL is far shorter.
const minOAuthCode = 16

// queryValueLen returns the length of the query parameter's value at s[v],
// read up to minOAuthCode bytes.
func queryValueLen(s string, v int) int {
	n := 0
	for v+n < len(s) && n < minOAuthCode && !endsQueryValue(s[v+n]) {
		n++
	}
	return n
}

func endsQueryValue(c byte) bool {
	return c == '&' || c == '#' || c == ';' || c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>'
}

// matchesAt reports whether the word, found at the end of k from start,
// is the key's name there (see wholeKeys and separateKeys).
func (w *keyword) matchesAt(k string, start int) bool {
	switch {
	case w.whole:
		return !gluedWord(k, start)
	case w.separate:
		return start == 0 || !isLetter(k[start-1])
	}
	return true
}

// gluedWord reports that the word at k[start] continues the one before
// it: a letter precedes it, and it does not start a camel-case part.
func gluedWord(k string, start int) bool {
	if start == 0 || !isLetter(k[start-1]) {
		return false
	}
	return !('A' <= k[start] && k[start] <= 'Z' && 'a' <= k[start-1] && k[start-1] <= 'z')
}

// scriptKeys are the names of secretKeys written in a script of their own
// (пароль, 密码): the context rule reads them too, after a separator the
// key-value rule does not know (the full-width colon of CJK text).
var scriptKeys = func() (keys []string) {
	for _, k := range secretKeys {
		if strings.IndexFunc(k, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
			keys = append(keys, k)
		}
	}
	return keys
}()

// scriptKeyBefore reports the credential row when one of scriptKeys ends
// at s[ke], read no further back than lo.
func scriptKeyBefore(s string, ke, lo int) *contextRule {
	if ke == lo || s[ke-1] < utf8.RuneSelf {
		return nil
	}
	for _, k := range scriptKeys {
		if ke-len(k) >= lo && strings.HasSuffix(s[:ke], k) {
			return &contextRules[0]
		}
	}
	return nil
}
