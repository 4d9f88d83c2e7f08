package sanitize

import (
	"strings"
	"testing"
)

// settleFragments are the pieces of TestSettledOnMixtures' texts:
// credential names and values, tokens, URLs and DSNs, command-line options,
// separators, quotes and brackets, and the controls and escapes the log
// tier writes. Percent, entity and \x escapes are left out: decoding them
// changes what a redaction stands next to, which this test does not hold.
var settleFragments = []string{
	"password", "token", "secret", "signature", "api key", "Cookie: ", "Authorization: ", "Bearer ", "Basic ",
	"0000A000", "3fa9c2e1b7d54a60", "Zq8wLm3nXp2Kd9", "hunter2hunter2", "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
	"AKIAIOSFODNN7EXAMPLE", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", "4111 1111 1111 1111",
	"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "postgres://u:pw123456@db/x",
	"root:myPa55w0rd@tcp(db:3306)/shop", "mysql -p", "-p", "sshpass -p ", "-u admin:", "redis-cli -a ", "PGPASSWORD=",
	" ", " ", " ", "\n", "\t", "\r\n", "\x03", "\x00", "\v", "\f", "\u2028", "\u202e", "\u200b", "é",
	`\n`, `\t`, `\u0070`, `\"`, `"`, "'", "=", ":", ": ", ",", "(", ")", "[", "]", "{", "}", "<EXpeCt>", `"expected":"`,
	"new=", "old=", "v1=", "sha256=", " is ", " was ", "for user 42", "xxxxxxxxxxxxxxxx", "sid=", "api_key=",
	`{"password":"`, "<password>", "</password>", "X-Api-Key: ", "HTTPBasicAuth('bob', '", "')", "token=(",
	"SignatureDoesNotMatch", "session id ", "${API_KEY}", "-----BEGIN PRIVATE KEY-----", "dGVzdDpzZWNyZXQxMjM=",
}

// Rules meet in mixtures as no hand-written case puts them together: a
// redaction by one rule gives another the boundary it lacked, or brings a
// name within reach, or joins two lines, and the tier then has to find it
// in the same call. Random mixtures of settleFragments, in both tiers, are
// held to the package's checks (a second call changes nothing, valid
// UTF-8, the limit, no raw control in the log tier). Found that way: a
// token glued to the end of an AWS key ID, "-p" glued to the log tier's
// escaped tab, a DSN's user read through an escaped line break.
func TestSettledOnMixtures(t *testing.T) {
	pick := xorshiftPicker(0x2545f4914f6cdd1d)
	for range 20000 {
		var b strings.Builder
		for n := 3 + pick(25); n > 0; n-- {
			b.WriteString(settleFragments[pick(len(settleFragments))])
		}
		checkLog(t, b.String())
		checkPublic(t, b.String())
	}
}

// The same mixtures around every credential seed, set off by spaces: no
// seed's core survives in either tier, whatever the rules around it made
// of the words before and after it.
func TestNoCoreSurvivesMixtures(t *testing.T) {
	pick := xorshiftPicker(0x9e3779b97f4a7c15)
	words := func() string {
		var b strings.Builder
		for n := pick(10); n > 0; n-- {
			b.WriteString(settleFragments[pick(len(settleFragments))])
		}
		return b.String()
	}
	for range 4000 {
		prefix, suffix := words(), words()
		checkEmbedded(t, prefix, suffix, credentialSeeds, checkLog)
		checkEmbedded(t, prefix, suffix, credentialSeeds, checkPublic)
	}
}

// Card numbers among digits, separators and other numbers: a card's
// redaction leaves its last four digits after the marker, where they may
// start a card of their own, and a dash between digits joins two numbers
// into one. Random mixtures of such pieces are held to the package's
// checks in both tiers.
func TestCardsSettleOnMixtures(t *testing.T) {
	pieces := []string{"2", "3", "4", "5", "6", "0", "1", "9", "20", "2411", "4111", "1111", "4444 ", " ", "-", ".", "!", "x", "_", "\n", "card ",
		"4111 1111 1111 1111", "5555-5555-5555-4444", "378282246310005"}
	pick := xorshiftPicker(0x853c49e6748fea9b)
	for range 40000 {
		var b strings.Builder
		for n := 3 + pick(40); n > 0; n-- {
			b.WriteString(pieces[pick(len(pieces))])
		}
		checkLog(t, b.String())
		checkPublic(t, b.String())
	}
}
