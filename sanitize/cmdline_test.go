package sanitize

import (
	"strings"
	"testing"
)

// An option that takes a password as its next word must not take a key of
// the key-value rule instead: redacting "Cookie:" or `"api_key":` left the
// value after it behind (FuzzPublic's f5ad5184b4def598).
func TestOptionValueLeavesKeys(t *testing.T) {
	checkLeakCases(t, []leakCase{
		{"keystore before a cookie", "-keYpAss Cookie: sid=31d4d96e407aad42 0", []string{"31d4d96e407aad42"}},
		{"keystore before JSON", `-keypass "api_key": "sk4eC39HqLyjWDarjtT1zdp7dc" 0`, []string{"sk4eC39HqLyjWDarjtT1zdp7dc"}},
		{"sshpass before a key", "sshpass -p password: hunter2xyz9 ssh host", []string{"hunter2xyz9"}},
		{"glued before a key", "mysql -uroot -pToken: abcd1234efgh5678", []string{"abcd1234efgh5678"}},
		{"login before a header", "docker login -p Authorization: Bearer abcdefghij0123456789", []string{"abcdefghij0123456789"}},
		{"password ending in a colon", "sshpass -p hunter2: ssh host", []string{"hunter2"}},
	})
}

// An option glued to a blank ("-p" and a tab) has no value in the text,
// and none in the log tier's output, where the blank is an escape ("-p\t")
// glued to the words after it: read as the option's value there, the
// escape and those words went in a later pass, and a redaction that
// joined two lines let a second call find an option the first had not.
func TestPasswordFlagBeforeEscapedBlankSettles(t *testing.T) {
	for _, cmd := range []string{"mysql", "mysqldump -u root", "sshpass", "mariadb --host db", "7z x a.7z"} {
		for _, blank := range []string{"\t", "\n", "\r", "\v", "\f", "\u2028", "\x03"} {
			for _, tail := range []string{"shop < dump.sql", " -pHunt3r2 -h db", "\u2028{login( \t-px=passwordS1gnature", "\nshop \t-pHunt3r2", "\u2028db\t-pS3cret -h x", "\u2029 a \n-pS3cret"} {
				checkLog(t, cmd+" -p"+blank+tail)
			}
		}
	}
}

// A shell needs the user:password pair quoted whole when the password
// holds a '!', a space or a '$': the password goes to the closing quote,
// the user stays.
func TestQuotedUserPasswordPairRedacted(t *testing.T) {
	for _, f := range []string{"curl -s --user '%s' https://api.example.com/v2/x", `curl -u "%s" https://x`, "curl --user '%s'",
		"curl -s --user '%s' \\\n    https://api.mailgun.net/v2/messages", `wget --user "%s" https://x`} {
		for _, pw := range []string{"d2LkV78zLx!t", "hunter22", "pa ss$word", "Zq8Kw2Lm9Rt4Vx7P"} {
			in := strings.ReplaceAll(f, "%s", "api:"+pw)
			for name, tier := range map[string]func(string) string{"Public": Public, "Log": Log} {
				if out := tier(in); strings.Contains(out, pw) || !strings.Contains(out, "api:") {
					t.Errorf("%s(%q) = %q, want the password gone and the user kept", name, in, out)
				}
			}
		}
	}
	checkBenign(t, []string{"curl -u 'api:' https://x", `curl -sL --user "$1:$2" "$3"`, "curl -i -u 'test:test'",
		`curl --user "xxx:yyy"`, `curl -X POST --user "$(cat ./login.txt):$(cat ./password.txt)"`, `curl --user "username:password"`,
		"curl -u admin:$ADMIN_PW https://x", "curl -u USER:PASSWORD https://x"})
}
