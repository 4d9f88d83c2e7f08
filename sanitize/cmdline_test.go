package sanitize

import "testing"

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
