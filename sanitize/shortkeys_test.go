package sanitize

import (
	"strings"
	"testing"
)

// keyForms writes a key and a value the ways configuration, query
// strings, JSON, YAML, environment dumps and headers do.
var keyForms = []string{"%k=%v", "%k: %v", `{"%k":"%v"}`, "  %k: '%v'\n", "export %k=\"%v\"", "X-%k: %v", "?a=1&%k=%v&b=2", "%k = %v;"}

func checkKeysRedacted(t *testing.T, keys, values []string) {
	t.Helper()
	for _, k := range keys {
		for _, f := range keyForms {
			for _, v := range values {
				in := strings.NewReplacer("%k", k, "%v", v).Replace(f)
				for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
					if out := tier(in); strings.Contains(out, v) {
						t.Errorf("%s(%q) = %q keeps the value", name, in, out)
					}
				}
			}
		}
	}
}

// The word for a password in the languages whose services name their
// settings in them, spelt as ASCII or as the language writes it, glued or
// cased as code writes it.
func TestPasswordWordsOfOtherLanguagesRedacted(t *testing.T) {
	checkKeysRedacted(t, []string{"Passwort", "db_passwort", "KENNWORT", "wachtwoord", "senha", "DB_SENHA", "contrasena",
		"haslo", "heslo", "losenord", "passord", "salasana", "sifre", "jelszo", "lozinka", "geslo", "adgangskode",
		"kata_sandi", "katasandi", "matkhau", "mot_de_passe", "userPasswort",
		"contraseña", "Contraseña", "hasło", "lösenord", "db_şifre", "jelszó", "Mật_khẩu", "пароль", "Пароль", "ПАРОЛЬ",
		"db_пароль", "密码", "用户密码", "密碼", "パスワード", "비밀번호", "كلمة_المرور", "סיסמה", "पासवर्ड"},
		[]string{"geheim", "Zq8Kw2Lm9Rt4", "minha1"})
	checkBenign(t, []string{"Passwort falsch", "senhas incorretas", "passord er feil", "the heslo field is empty",
		"Kennwort vergessen?", "mot de passe oublié",
		"пароль неверный", "密码错误", "パスワードが違います"})
}

// A card's verification value and a PIN, which PCI DSS forbids keeping
// once used, and one-time codes, which are a login's second factor while
// they live: short, often digits alone, and secret by their key.
func TestShortSecretKeysRedacted(t *testing.T) {
	checkKeysRedacted(t, []string{"cvv", "CVV2", "card_cvc", "cvc2", "cardCvc", "pin", "PIN", "card_pin", "cardPin",
		"otp", "totp", "HOTP", "mfa_code", "2fa_code", "verification_code", "auth_code", "authorization_code",
		"recovery_code", "backup_code", "privkey", "eth_privkey"},
		[]string{"4821", "739", "604213", "Xk29fLq8Qz"})
}

// "pin" ends too many words to match glued to a lower-case letter.
func TestWholeKeysKeepLongerWords(t *testing.T) {
	checkBenign(t, []string{"spin=3", "SPIN=3", "kingpin: 2", "hairpin=true", "tenpin=10", "pinned=true", "pin_count=3",
		"pins: 4", "otp_enabled=true", "cvv_check: pass", "pin count=4"})
}

// A table's row (psql's " | ", Markdown), a mapping's arrow and CJK
// text's full-width colon part a credential's name from its value as ':'
// does; the value's shape decides, as after a space.
func TestCredentialAfterCellSeparators(t *testing.T) {
	values := []string{"Zq8Kw2Lm9Rt4Vx7Pb3Nc", "a3f9c2e1b7d54a60c2e1b7d5", "hQ-7rT_2xWp9LmZk4Vb8Nc3D"}
	for _, f := range []string{" password | %s", "| api_key | %s |", "token\t| %s", "secret -> %s", "password <- %s",
		"apiKey → %s", "password：%s", "token ＝ %s", "set the password as %s", "client secret equals %s",
		" db_password | %s | 2026-01-01"} {
		for _, v := range values {
			in := strings.ReplaceAll(f, "%s", v)
			for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
				if out := tier(in); strings.Contains(out, v) {
					t.Errorf("%s(%q) = %q keeps the value", name, in, out)
				}
			}
		}
	}
	checkBenign(t, []string{"token -> expired", "| token | string | The API token |", "password as required",
		"expired token; 4bf92f3577b34da6a3ce929d0e0e4736", "cache key -> user:42:profile"})
}

// Names of credentials that the key-value rule read only in some of their
// forms: a qualifier spaced from "key" as prose and hand-written YAML
// write it, OpenLDAP's "rootpw" and "bind_pw", the keys of an HMAC, an SSH
// or a JWT signing secret, a passphrase by its other name, and a password
// whose qualifier names identifiers elsewhere ("registry key" is one,
// "registry password" is a credential).
func TestMoreCredentialNamesRedacted(t *testing.T) {
	checkKeysRedacted(t, []string{"secret key", "license key", "API key", "secret access key", "rootpw", "bind_pw", "db_pw",
		"olcRootPW", "bindpw", "ldap_bindpw", "hmac_key", "ssh_key", "JWT_KEY", "keyphrase", "signing_keyphrase"},
		[]string{"hunter22", "s3cr3t", "Zq8Kw2Lm9Rt4Vx7P"})
	for _, in := range []string{"registry_password Zq8Kw2Lm9Rt4Vx7P", "cache password Zq8Kw2Lm9Rt4Vx7P",
		"index secret Zq8Kw2Lm9Rt4Vx7P", "public passphrase Zq8Kw2Lm9Rt4Vx7P"} {
		for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
			if out := tier(in); strings.Contains(out, "Zq8Kw2Lm9Rt4Vx7P") {
				t.Errorf("%s(%q) = %q keeps the value", name, in, out)
			}
		}
	}
	checkBenign(t, []string{"write key=value pairs", "the primary key=5", "yPW=Y", "xpw=3", "DhPw: 42", "sort key=name", "deploy key=rotated",
		"registry key a3f9c2e1b7d54a60c2e1b7d5", "page token Zq8Kw2Lm9Rt4Vx7P", "password hash updated"})
}

// A bare array key: PHP's print_r ("[password] => ..."), form fields of
// nested parameters ("user[password]=..."), PHP's $cfg[password].
func TestBareArrayKeysRedacted(t *testing.T) {
	for _, f := range []string{"Array\n(\n    [user] => bob\n    [password] => %s\n)\n", "    [api_key] => %s", "user[password]=%s&commit=Save",
		"$cfg[db_password] = '%s';", "[token]=%s", "params[client_secret]: %s"} {
		for _, v := range []string{"hunter22", "Zq8Kw2Lm9Rt4Vx7P"} {
			in := strings.ReplaceAll(f, "%s", v)
			for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
				if out := tier(in); strings.Contains(out, v) {
					t.Errorf("%s(%q) = %q keeps the value", name, in, out)
				}
			}
		}
	}
	checkBenign(t, []string{"items[0] => 5", "[status] => ok", "    [user] => bob", "rows[42]=7"})
}

// Hadoop's, Hive's and Maven's settings name a property in one element
// and give its value in the next; a name longer than the rule's reach is
// judged by its end. A dotted qualifier names a key as '_' does.
func TestNamedPropertyValueElementsRedacted(t *testing.T) {
	for _, f := range []string{"<property><name>password</name><value>%s</value></property>",
		"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>%s</value>\n</property>",
		"<property>\n    <name>javax.jdo.option.ConnectionPassword</name>\n    <value>%s</value>\n  </property>",
		"<param><name>api_token</name>\t<value>%s</value></param>", "secret.key=%s", "app.client.secret.key: %s"} {
		for _, v := range []string{"hunter22", "wJalrXUtnFEMI/K7MDENG"} {
			in := strings.ReplaceAll(f, "%s", v)
			for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
				if out := tier(in); strings.Contains(out, v) {
					t.Errorf("%s(%q) = %q keeps the value", name, in, out)
				}
			}
		}
	}
	checkBenign(t, []string{"<property><name>dfs.replication</name><value>3</value></property>",
		"<property><name>fs.defaultFS</name><value>hdfs-nn-1:8020</value></property>", "primary.key=5", "sort.key=name"})
}

// OAuth's authorization code on its way to the redirect URI (in the query,
// or in the fragment of the implicit and hybrid flows) and the verifiers
// of OAuth 1 and PKCE complete a grant; a short code in a URL (an error's,
// a country's, a promotion's) stays.
func TestOAuthCodesInURLsRedacted(t *testing.T) {
	for _, f := range []string{"GET /callback?code=%s&state=af0ifjsldkj HTTP/1.1", "https://app.example.com/cb?state=x&code=%s",
		"https://app.example.com/cb#code=%s&id_token_hint=1", "POST /token grant_type=authorization_code&code_verifier=%s",
		"oauth_token=abc&oauth_verifier=%s"} {
		for _, v := range []string{"4/0AX4XfWhZq8Kw2Lm9Rt4Vx7P", "SplxlOBeZQQYbYS6WxSbIA1234", "Zq8Kw2Lm9Rt4Vx7Pb3Nc"} {
			in := strings.ReplaceAll(f, "%s", v)
			for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
				if out := tier(in); strings.Contains(out, v) {
					t.Errorf("%s(%q) = %q keeps the value", name, in, out)
				}
			}
		}
	}
	checkBenign(t, []string{"GET /err?code=404", "GET /v1/countries?code=US&lang=en", "/checkout?code=SUMMER24", "error code=500",
		"status code=ENOENT", "x?error=access_denied&code="})
}

// A sentence that says what the credential is ("the password is ...")
// needs no more evidence than letters and digits together, from six
// bytes on: people choose passwords so, and the words around them change.
func TestShortPasswordAfterLinkingWordRedacted(t *testing.T) {
	for _, f := range []string{"password is %s", "the password was %s.", "your new password is %s, keep it safe",
		"Password is: %s", "the secret is %s!", "API key was %s", "passphrase equals %s", "set the password as %s"} {
		for _, v := range []string{"hunter2", "abc123", "Summer24", "s3cr3t", "l3tme1n"} {
			in := strings.ReplaceAll(f, "%s", v)
			for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
				if out := tier(in); strings.Contains(out, v) {
					t.Errorf("%s(%q) = %q keeps the value", name, in, out)
				}
			}
		}
	}
	checkBenign(t, []string{"password is required", "the password is too short", "password was reset",
		"token is v1.2.3", "the key is db-01", "the password is 12345", "password is at 10:30", "secret is ab"})
}

// CJK text writes a full-width colon after the name; the context rule
// reads the names of secretKeys in their own scripts there, the value's
// shape deciding as after any other separator.
func TestScriptKeysBeforeFullWidthColonRedacted(t *testing.T) {
	for _, f := range []string{"用户密码：%s", "密码：%s。", "パスワード：%s", "비밀번호：%s", "登录失败，密码：%s，请重试"} {
		for _, v := range []string{"Zq8Kw2Lm9Rt4", "a3f9c2e1b7d54a60"} {
			in := strings.ReplaceAll(f, "%s", v)
			for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
				if out := tier(in); strings.Contains(out, v) {
					t.Errorf("%s(%q) = %q keeps the value", name, in, out)
				}
			}
		}
	}
	checkBenign(t, []string{"订单号：Zq8Kw2Lm9Rt4", "密码错误", "用户：bob"})
}
