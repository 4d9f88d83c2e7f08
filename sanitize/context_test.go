package sanitize

import (
	"fmt"
	"strings"
	"testing"
)

// A credential named in prose or in a key is redacted whatever separator
// and quotes stand between the name and the value.
func TestContextRuleRedacts(t *testing.T) {
	const v = "Zx9q2Lm4Kpw7Rt"
	for _, f := range []string{
		"upstream said: invalid API key: %s", "Invalid API key provided: %s", "api key %s", "key: %s",
		"auth: invalid token %s for tenant 42", `license check failed: unknown key "%s"`, "unknown key '%s'",
		"bad secret (%s)", "the password is %s.", "PASSWORD was %s", "clientSecret => %s", "x.api-key ::= %s",
		"db_pass: %s", "SONAR.LOGIN ::= \"%s\"", "creds = %s", "Tokens: [%s]", `{\"accessToken\":\"%s\"}`,
		"refresh token\n  %s", "signature=%s;", "private key “%s”", "credential <%s>", "passphrase `%s`",
		"Access-Key: %s", "my-auth-token %s rejected", "secret_key:=%s",
	} {
		in := strings.Replace(f, "%s", v, 1)
		for _, tier := range []func(string) string{Public, Log} {
			if out := tier(in); strings.Contains(out, v) || strings.Contains(out, v[2:12]) {
				t.Errorf("%q -> %q keeps the value", in, out)
			}
		}
	}
}

// Words after a credential's name that are prose, placeholders or
// identifiers stay; so do the identifiers the contract hands out.
func TestContextRuleKeepsProse(t *testing.T) {
	checkBenign(t, []string{
		"the token expired", "password reset failed", "key not found", "invalid key length",
		"token expired at 2026-01-02T10:00:00Z for user 42", "secret rotation is due in 3 days",
		"the signature is invalid", "api key: required", "auth failed after 3 attempts",
		"primary key 12345678901 violates nothing", "public key 9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit",
		"key = entry_v2_name", "the token is XXXXXXXXXXXX1234", "keyVault: cmp2-qat-1208358310",
		"idempotency key 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203 was already used",
		"Idempotency-Key: 01JDQ3V8Y6ZK2M4N5P7R9S0T1W reused", "idempotency_key=0193b1c2-7d1e-7a3b-9c4d-5e6f70819203",
		"request id 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203", "correlation id 01JDQ3V8Y6ZK2M4N5P7R9S0T1W",
		"operation id 0193b1c2-7d1e-7a3b-9c4d-5e6f70819203", "approval id 01JDQ3V8Y6ZK2M4N5P7R9S0T1W pending",
		"trace id 4bf92f3577b34da6a3ce929d0e0e4736",
	})
}

func TestCommandLinePasswords(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"mysql glued", "restore: /usr/bin/mysql -uroot -pS3cr3tPw9 -h db shop < dump.sql: exit status 1", []string{"S3cr3tPw9"}},
		{"mysqldump glued", "exec: mysqldump -u admin -phunter2x --single-transaction shop", []string{"hunter2x"}},
		{"mariadb quoted", "mariadb -h db -p'pa ss' app", []string{"pa ss"}},
		{"password option", "mariadb --user=app --password=Zx9q2Lm4 shop", []string{"Zx9q2Lm4"}},
		{"password option spaced", "pg_dump --password Zx9q2Lm4 shop", []string{"Zx9q2Lm4"}},
		{"curl user", "curl -u deploy:Zx9q2Lm4Kp https://x", []string{"Zx9q2Lm4Kp"}},
		{"pgpassword", "PGPASSWORD=Zx9q2Lm4 psql -h db", []string{"Zx9q2Lm4"}},
		{"sshpass", "sshpass -p Zx9q2Lm4Kp ssh root@host", []string{"Zx9q2Lm4Kp"}},
		{"sshpass quoted", "sshpass -p 'hunter two' ssh host", []string{"hunter two"}},
		{"sshpass glued", "deploy: sshpass -pQm7vT2xK9w ssh -o StrictHostKeyChecking=no root@host", []string{"Qm7vT2xK9w"}},
		{"sshpass glued quoted", `sshpass -p"two words" scp a host:`, []string{"two words"}},
		{"curl user glued", "exec: curl -sS -uci-bot:Hq3nW8zL5r https://x", []string{"Hq3nW8zL5r"}},
		{"docker login", "ci: docker login -u ci -p Xk29fLq8zPw4 registry.example.com: exit status 1", []string{"Xk29fLq8zPw4"}},
		{"podman login quoted", `podman login --username bot -p "r3g1stry pass" quay.io`, []string{"r3g1stry pass"}},
		{"helm registry login", "helm registry login ghcr.io -u bot -p ghs_notaprefix9z8y7x", []string{"ghs_notaprefix9z8y7x"}},
		{"redis-cli", "redis-cli -h cache -p 6380 -a n0tR3d1sPw --no-auth-warning ping", []string{"n0tR3d1sPw"}},
		{"mongosh", "mongosh --host db -u admin -p Mng0Pw77 --authenticationDatabase admin", []string{"Mng0Pw77"}},
		{"sqlcmd", "sqlcmd -S tcp:db,1433 -U sa -P 'Yuk0n!Pass' -Q 'select 1'", []string{"Yuk0n!Pass"}},
		{"ldapsearch", "ldapsearch -x -D cn=admin,dc=corp -w Ld4pB1nd -H ldap://dir", []string{"Ld4pB1nd"}},
		{"7z glued", "7z x -pArch1vePw backup.7z", []string{"Arch1vePw"}},
		{"unzip", "unzip -P z1pPassw0rd bundle.zip", []string{"z1pPassw0rd"}},
		{"openssl enc", "exec: openssl enc -d -aes-256-cbc -k 0pen5slPhr4se -in backup.enc", []string{"0pen5slPhr4se"}},
	})
	checkBenign(t, []string{
		"mkdir -p data failed", "mysql -p shop prompts for it", "gcc -pedantic main.c",
		"mysql -u root shop\ndocker run -p8080:80 app", "docker run -p 8080:80 nginx", "ssh -p 2222 deploy@host",
		"ls -a /data", "redis-cli -p 6380 ping", "docker login\nmkdir -p build",
		"sshpass -f pw.txt ssh host", "sshpass -e ssh host", "curl -k https://api.example.com/v1", "openssl s_client -connect db:5432 -starttls postgres", "mysql -uroot shop", "tar -uvf backup.tar logs", "sort -u names.txt",
	})
}

func TestEncodedAndCutCredentials(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"docker auth", `{"auths":{"registry.example.com":{"auth":"ZGVwbG95Omh1bnRlcjJodW50ZXIy"}}}`, []string{"ZGVwbG95Omh1bnRlcjJodW50ZXIy"}},
		{"percent-encoded token", "GET /cb?token=abc123%2Fdef456%2Bghi789%3D&x=1", []string{"def456", "ghi789"}},
		{"percent-encoded prose", "invalid token abc123%2Fdef456%2Bghi789 given", []string{"def456", "ghi789"}},
		{"basic in any header", "X-Upstream-Auth: Basic ZGVwbG95Omh1bnRlcjI=", []string{"ZGVwbG95Omh1bnRlcjI"}},
		{"dsn cut before quote", `json: cannot unmarshal "\"postgres://svc:Hunter2Pa..."`, []string{"Hunter2Pa"}},
		{"dsn cut at end", "dial redis://default:s3cretPass", []string{"s3cretPass"}},
		{"dsn cut single quote", "url 'mysql://root:Sup3rSecret' invalid", []string{"Sup3rSecret"}},
	})
	checkBenign(t, []string{"https://example.com:8443", "see http://localhost:8080", "GET http://api:9000"})
}

func TestCardNumbers(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"spaced visa", "charge failed for card 4111 1111 1111 1111 (declined)", []string{"4111 1111 1111"}},
		{"dashed", "card=5555-5555-5555-4444", []string{"5555-5555-5555"}},
		{"amex", "pan 378282246310005.", []string{"3782822463"}},
		{"json", `{"number":"6011111111111117"}`, []string{"601111111111"}},
		{"amex grouped", "amex 3782 822463 10005 refused", []string{"822463"}},
		{"nineteen digits", "pan: 6011-0009-9013-9424-124", []string{"0009-9013-9424"}},
		{"maestro eighteen", `bad input "6304 0000 0000 0000 00"`, []string{"0000 0000 0000"}},
		{"dotted", "card 4111.1111.1111.1111 declined", []string{"4111.1111.1111"}},
		{"dotted mastercard", "pan=5555.5555.5555.4444;", []string{"5555.5555.5555"}},
		// Cards listed one after another, which the rule once read as one
		// number too long to be a card, and kept whole.
		{"two spaced", "cards 4111 1111 1111 1111 5500 0000 0000 0004 declined", []string{"4111 1111 1111", "5500 0000 0000"}},
		{"two together", "batch 4111111111111111 5555555555554444 failed", []string{"411111111111", "555555555555"}},
		{"two dashed", "4111-1111-1111-1111 6011-0009-9013-9424", []string{"4111-1111-1111", "6011-0009-9013"}},
		{"three mixed", "pans: 378282246310005 4111 1111 1111 1111 5555.5555.5555.4444", []string{"3782822463", "4111 1111 1111", "5555.5555.5555"}},
		{"after a number", "row 2024 4111 1111 1111 1111", []string{"4111 1111 1111"}},
		{"dotted then spaced", "5555.5555.5555.4444 4111 1111 1111 1111", []string{"5555.5555.5555", "4111 1111 1111"}},
		{"log escape after", "card 4111 1111 1111 1111 4111 1111 1111 1111\u00e9", []string{"4111 1111 1111"}},
	})
	for _, tier := range []func(string) string{Public, Log} {
		if out := tier("card 4111 1111 1111 1111"); !strings.HasSuffix(out, "1111") {
			t.Errorf("card lost its last four digits: %q", out)
		}
	}
	checkBenign(t, []string{"order 4111111111111112 shipped", "ts=1733050000123 done", "id 12345678901234567890123",
		"at 2024.01.01 4111", "1.234.567.890.123", "build 4111.1111.1111.1112", "4111.1111.1111.1111.5", "v4111.1111.1111.1111",
		"4111-1111.1111-1111", "4111-1111-1111-1111-2222 shipped", "4111.1111.1111.1111.1111"})
}

// A run of more than a card's digits is no card, and the rule steps past
// it: a run of 20 and more digits from 2 to 6 on, with a card elsewhere in
// the text, once sent redactCards back to the start of the text for ever
// (FuzzLinearMixture's 5cc7d5bc0beb3ac2). Each tier returns, redacts the
// card and keeps the long number.
func TestCardRuleStepsPastLongDigitRuns(t *testing.T) {
	for _, lead := range "23456" {
		for n := 19; n <= 60; n += 7 {
			run := string(lead) + strings.Repeat("0", n)
			for _, in := range []string{
				"card 4111 1111 1111 1111 and id " + run + " done",
				run + " after card 4111 1111 1111 1111",
				run + "!" + run + " 5555-5555-5555-4444",
			} {
				for _, tier := range []func(string) string{Public, Log} {
					out := tier(in)
					if strings.Contains(out, "1111 1111 1111") || strings.Contains(out, "5555-5555-5555") || !strings.Contains(out, run) {
						t.Errorf("%q: %q", in, out)
					}
				}
			}
		}
	}
}

// A UUID's or any dashed identifier's leading digits can pass the Luhn
// check by chance (one in ten): they are not a card, as the 8-4-4-4-12
// grouping and the token going on after them say.
func TestCardRuleSparesIdentifiers(t *testing.T) {
	var benign []string
	for seed := uint64(1); len(benign) < 200; seed++ {
		// Digit-only UUID prefixes, so every one is a Luhn candidate.
		x := seed * 0x9e3779b97f4a7c15
		d := fmt.Sprintf("%020d", x)
		u := fmt.Sprintf("%s-%s-%s-%s-%s", d[:8], d[8:12], d[12:16], "fa20", "4a4a92636252")
		benign = append(benign, u, "idempotency key "+u+" was already used", "trace "+d[:4]+"-"+d[4:8]+"-"+d[8:12]+"-"+d[12:16]+"-ab12")
	}
	checkBenign(t, append(benign, "45041473-3522-8047-fa20-4a4a92636252", "call +49 4111 1111 1111 1111x"))
}

func TestDatabaseMessagesGeneric(t *testing.T) {
	for _, s := range []string{
		"Error 1146 (42S02): Table 'shop.order_items_archive' doesn't exist",
		"load: Error 1054 (42S22): Unknown column 'ssn_plain' in 'field list'",
		"ERROR 1064 (42000) at line 1: You have an error",
		`query: near "SELEC": syntax error`,
		"SQL logic error: no such table: customers_pii (1)",
		"insert: no such column: ssn_plain",
		"select: ambiguous column name: email",
		"mssql: Invalid object name 'dbo.payroll_2026'.",
		"exec batch: Invalid column name 'salary_raw'.",
	} {
		if got := Public(s); got != GenericDetail {
			t.Errorf("Public(%q) = %q", s, got)
		}
		if got := Log(s); got != s {
			t.Errorf("Log(%q) = %q, want it unchanged", s, got)
		}
	}
}

// A user:password pair whose parts are quoted loses its password (and,
// after a credential word, its user too) in every syntax that announces
// it: prose, a secret key's value, curl's user option.
func TestQuotedCredentialPairs(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"prose single quotes", "login rejected for credentials marta:'Wq4zT8nB2cLx' at edge", []string{"Wq4zT8nB2cLx"}},
		{"prose braces", `bad auth "{ops-bot}":"{Hy6rP1sK9dQe}" (code 9)`, []string{"Hy6rP1sK9dQe"}},
		{"prose dotted user", `invalid creds: "r.ortiz":"Tb3mV7xZ0qLw"`, []string{"Tb3mV7xZ0qLw"}},
		{"key value single", "token=deploy:'Nc5jG2wR8tYp' expired", []string{"Nc5jG2wR8tYp"}},
		{"key value double", `X-Auth-Token: "svc":"{Lp0aS4dF7gHj}"`, []string{"Lp0aS4dF7gHj"}},
		{"curl quoted user", `curl --user "carol":"Zu8kE3nM6vBx" https://h`, []string{"Zu8kE3nM6vBx"}},
		{"curl proxy user", `curl --proxy-user 'dave':'Qe2rT5yU8iOp' https://h`, []string{"Qe2rT5yU8iOp"}},
	})
	checkBenign(t, []string{
		`curl -u "${username}":"${password}" https://h`, `the key "region":"eu-west-1" is set`,
		`key: "name":"value"`,
	})
}

// A secret key's value that stands for a secret kept elsewhere (a
// variable reference, a template, a mask) is no secret and stays.
func TestPlaceholderValuesKept(t *testing.T) {
	checkBenign(t, []string{
		`<add key="ClearTextPassword" value="%FEED_PASSWORD%" />`, "password=${POSTGRES_PASSWORD}",
		`api_key: "${{ secrets.API_KEY }}"`, "token={{ .Values.registry.token }}", "DB_PASS=$DB_PASS_FROM_VAULT",
		`<add key="Password" value="********" />`, "secret: xxxxxxxxxxxx", `{"client_secret":"${CLIENT_SECRET}"}`,
	})
	checkLeakCases(t, []leakCase{
		{"mixed mask", `<add key="Password" value="XXXX-9fQ2-XXXX" />`, []string{"9fQ2"}},
		{"dollar lower", "password=$ecretPa55", []string{"ecretPa55"}},
	})
}

// Bundler reads a private gem host's credentials from BUNDLE_<host>, the
// host's dots written "__": the value is redacted whatever the host.
func TestBundlerHostCredentials(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"sidekiq hex pair", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM=0badf00d:feedface1 bundle exec", []string{"0badf00d:feedface1", "feedface1"}},
		{"quoted", `export BUNDLE_GEMS__GRAPHQL__PRO="9c8b7a6f:1e2d3c4b"`, []string{"1e2d3c4b"}},
		{"github packages", "env BUNDLE_RUBYGEMS__PKG__GITHUB__COM=octo:ghtokenvalue77 bundle install", []string{"ghtokenvalue77"}},
	})
	checkBenign(t, []string{"BUNDLE_GEMFILE=Gemfile.ci", "BUNDLE_PATH__SYSTEM=true", "BUNDLE_WITHOUT=development:test"})
}

// A value quoted whole right after a credential's name needs only letters
// and digits (as people choose passwords); a setting's name in quotes
// stays.
func TestQuotedPasswordAfterName(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"key double", `license: the key "moonLight42" is unknown`, []string{"moonLight42"}},
		{"signature single", "bad signature 'Spring2031x' for hook", []string{"Spring2031x"}},
		{"credentials bracket", `credentials ["tulip88garden"] denied`, []string{"tulip88garden"}},
		{"backtick", "invalid passphrase `orangeCat7` given", []string{"orangeCat7"}},
	})
	checkBenign(t, []string{
		`unknown key "max_retries_3"`, `key "v2.endpoint" missing`, `unknown key "region1"`,
		`the key "http-port-8080" is unknown`,
	})
}

// A value after a colon that decodes to user:password is a credential
// whatever the entry's name (a Kubernetes Secret's data, a Docker auth);
// base64 of anything else stays.
func TestBase64PairsRedacted(t *testing.T) {
	// "deploy:Qz8-wL!2pR" and "root:hunter22" encoded.
	checkLeakCases(t, []leakCase{
		{"secret data", "data:\n  extra: ZGVwbG95OlF6OC13TCEycFI=\n", []string{"ZGVwbG95OlF6OC13TCEycFI="}},
		{"json member", `{"registry":"cm9vdDpodW50ZXIyMg=="}`, []string{"cm9vdDpodW50ZXIyMg=="}},
		{"unpadded single quotes", "creds.txt: 'cm9vdDpodW50ZXIyMg'", []string{"cm9vdDpodW50ZXIyMg"}},
	})
	checkBenign(t, []string{
		"payload: aGVsbG8gd29ybGQgYWdhaW4=", "status: ConnectionRefusedByPeer42", "id: 0193b1c27d1e7a3b9c4d5e6f70819203",
	})
}

// qualifiedAwaySlow is qualifiedAway as first written, with the
// standard library's trims: the reference the faster one is checked
// against.
func qualifiedAwaySlow(s string, kb int, prefix string, r *contextRule) bool {
	q := strings.TrimRight(prefix, "_-.")
	if q == "" && kb > 1 && s[kb-1] == ' ' {
		e := kb - 1
		b := e
		for b > 0 && e-b < 16 && isLetter(s[b-1]) {
			b--
		}
		q = s[b:e]
	} else if k := strings.LastIndexAny(q, "_-. "); k >= 0 {
		q = q[k+1:]
	}
	for _, w := range r.ignoreAfter {
		if len(q) == len(w) && hasPrefixFold(q, w) || hasSuffixFold(q, w) && len(q) > len(w) && 'A' <= q[len(q)-len(w)] && q[len(q)-len(w)] <= 'Z' {
			return true
		}
	}
	return false
}

// TestQualifiedAway compares qualifiedAway with qualifiedAwaySlow at every
// name start and prefix of random texts of the rules' qualifiers, in
// every case, glued and apart.
func TestQualifiedAway(t *testing.T) {
	var parts []string
	for _, r := range contextRules {
		for _, w := range r.ignoreAfter {
			parts = append(parts, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:])
		}
	}
	parts = append(parts, "_", "-", ".", " ", "  ", "x", "Key", "token", "9", "é")
	next := xorshiftPicker(0x853c49e6748fea9b)
	matched := 0
	for range 3000 {
		var b strings.Builder
		for range 1 + next(5) {
			b.WriteString(parts[next(len(parts))])
		}
		s := b.String()
		for kb := 0; kb <= len(s); kb++ {
			for n := kb; n <= len(s); n++ {
				for i := range contextRules {
					r := &contextRules[i]
					got, want := qualifiedAway(s, kb, s[kb:n], r), qualifiedAwaySlow(s, kb, s[kb:n], r)
					if got != want {
						t.Fatalf("qualifiedAway(%q, %d, %q, %s) = %v, want %v", s, kb, s[kb:n], r.name, got, want)
					}
					if got {
						matched++
					}
				}
			}
		}
	}
	if matched < 1000 {
		t.Fatalf("%d matches: the test no longer exercises qualifiedAway", matched)
	}
}

// TestStepsBefore compares openersBefore and spacesBefore, which return at
// once before a byte none of their cases takes, with their cases asked
// every time, at every place and bound of random texts of the bytes they
// step over.
func TestStepsBefore(t *testing.T) {
	openersSlow := func(s string, p, lo int) (int, bool) {
		opened := false
		for range 2 {
			switch {
			case p > lo && valueOpeners[s[p-1]]:
				p--
				if p > lo && s[p-1] == '\\' {
					p--
				}
			case p-3 >= lo && (s[p-3:p] == "\u201c" || s[p-3:p] == "\u2018"):
				p -= 3
			case p-2 >= lo && s[p-2:p] == "\u00ab":
				p -= 2
			default:
				return p, opened
			}
			opened = true
		}
		return p, opened
	}
	spacesSlow := func(s string, p, lo int, lines bool) int {
		for p > lo && (s[p-1] == ' ' || s[p-1] == '\t') {
			p--
		}
		if !lines {
			return p
		}
		n := lineBreakBefore(s, p, lo)
		if n == 0 {
			return p
		}
		p -= n
		for p > lo && (s[p-1] == ' ' || s[p-1] == '\t') {
			p--
		}
		return p
	}
	parts := []string{"\"", "'", "`", "(", "[", "{", "<", "\\", "\u201c", "\u2018", "\u00ab", "\u201d", " ", "\t", "\n", "\r\n", `\n`, `\r\n`, "n", "r", "x", "é"}
	next := xorshiftPicker(0xa54ff53a5f1d36f1)
	for range 5000 {
		var b strings.Builder
		for range 1 + next(6) {
			b.WriteString(parts[next(len(parts))])
		}
		s := b.String()
		for p := 0; p <= len(s); p++ {
			for lo := 0; lo <= p; lo++ {
				gp, go_ := openersBefore(s, p, lo)
				wp, wo := openersSlow(s, p, lo)
				if gp != wp || go_ != wo {
					t.Fatalf("openersBefore(%q, %d, %d) = %d %v, want %d %v", s, p, lo, gp, go_, wp, wo)
				}
				for _, lines := range []bool{false, true} {
					if got, want := spacesBefore(s, p, lo, lines), spacesSlow(s, p, lo, lines); got != want {
						t.Fatalf("spacesBefore(%q, %d, %d, %v) = %d, want %d", s, p, lo, lines, got, want)
					}
				}
			}
		}
	}
}
