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
