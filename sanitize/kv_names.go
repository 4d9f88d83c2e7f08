package sanitize

// The names the key-value rule knows: a key matches by its ending, so
// "db_password" and "X-Api-Key" need no entry of their own.

var (
	secretKeys = []string{"password", "passwd", "passphrase", "passcode", "pass", "pwd", "secret", "token",
		"apikey", "credential", "credentials", "session_id", "session-id", "sessionid", "signature", "sig",
		"secret_key_base", "session", "sessid",
		// The word for a password in the languages whose services log
		// their own keys ("Passwort=", "senha:", "wachtwoord ="), as
		// ASCII spells it.
		"passwort", "kennwort", "wachtwoord", "senha", "contrasena", "haslo", "heslo", "losenord",
		"passord", "salasana", "sifre", "jelszo", "lozinka", "geslo", "adgangskode", "katasandi", "kata_sandi",
		"matkhau", "motdepasse", "mot_de_passe",
		// and as the language writes it, in the cases a key is written
		// (the comparison folds ASCII letters only).
		"contraseña", "hasło", "lösenord", "şifre", "jelszó", "mật_khẩu", "пароль", "Пароль", "ПАРОЛЬ",
		"密码", "密碼", "パスワード", "비밀번호", "كلمة_المرور", "סיסמה", "पासवर्ड",
		// Short secrets that PCI DSS forbids keeping after use (a card's
		// verification value, a PIN) and one-time codes, which are the
		// second factor of a login while they live.
		"cvv", "cvc", "cvv2", "cvc2", "pin", "otp", "mfa_code", "2fa_code", "verification_code",
		"auth_code", "authorization_code", "recovery_code", "backup_code", "privkey",
		// "bind_pw", "db_pw" and OpenLDAP's rootpw and bindpw; a passphrase
		// by its other name.
		"pw", "rootpw", "bindpw", "keyphrase"}
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
