package sanitize

import (
	"math/bits"
	"strings"
	"sync"
)

// A tokenFormat describes a credential that announces itself: a fixed
// trigger (a vendor prefix such as "ghp_", or a host name inside a webhook
// URL) and a body drawn from a known alphabet. Adding a vendor is one row
// of tokenFormats and a sample in the tests; the scanner's index is derived
// from the table at init.
//
// Every token rule applies in both tiers and needs no key before it: a
// token that carries its vendor's prefix is a credential wherever it
// appears. Credentials without a prefix are found by the key-value rules
// (keys.go) instead.
type tokenFormat struct {
	name string
	// triggers are matched case-sensitively and must start a word, unless
	// before is set.
	triggers []string
	// body is the alphabet of what follows the trigger, as ranges
	// ("A-Za-z0-9_-"); min and max bound its length (max 0: unbounded).
	// A run longer than max is something else, not a truncated token.
	body     string
	min, max int
	// mixed requires the body to hold a digit and a letter, for triggers
	// short or common enough to begin ordinary words ("s.", "test_").
	mixed bool
	// before, when set, is the alphabet of a run the trigger follows (the
	// host labels before ".webhook.office.com/"): the span starts there.
	before string
	// lead, with before, is what the run before the trigger must begin
	// with; the span then starts a word.
	lead string
	// beforeMin, with before, is the shortest run the trigger may follow
	// (the 32 hexadecimal digits of a Mailchimp key before "-us").
	beforeMin int
	// end, when set, replaces body: it returns the end of the token whose
	// trigger ends at p, or 0 (JWTs and webhook paths have structure).
	end func(s string, p int, rc *runs) int
}

const (
	alnum     = "A-Za-z0-9"
	b64url    = "A-Za-z0-9_-"
	b64       = "A-Za-z0-9+/="
	hexDigits = "a-fA-F0-9"
)

var tokenFormats = []tokenFormat{
	{name: "aws-access-key-id", triggers: []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"}, body: "A-Z0-9", min: 16},
	{name: "aws-bedrock-api-key", triggers: []string{"ABSKQmVkcm9ja0FQSUtleS", "bedrock-api-key-"}, body: b64, min: 20},
	{name: "1password-secret-key", triggers: []string{"A3-"}, body: "A-Z0-9-", min: 30},
	{name: "1password-service-account-token", triggers: []string{"ops_eyJ"}, body: b64, min: 40},
	{name: "adobe-client-secret", triggers: []string{"p8e-"}, body: alnum, min: 32},
	{name: "age-secret-key", triggers: []string{"AGE-SECRET-KEY-1"}, body: "A-Z0-9", min: 50},
	{name: "alibaba-access-key-id", triggers: []string{"LTAI"}, body: alnum, min: 20},
	{name: "anthropic-api-key", triggers: []string{"sk-ant-api03-", "sk-ant-admin01-", "sk-ant-"}, body: b64url, min: 32},
	{name: "artifactory-api-key", triggers: []string{"AKCp"}, body: alnum, min: 60},
	{name: "artifactory-reference-token", triggers: []string{"cmVmd"}, body: alnum, min: 50},
	{name: "authress-service-client-access-key", triggers: []string{"sc_", "ext_", "scauth_", "authress_"}, body: "a-zA-Z0-9._=+/-", min: 60, mixed: true},
	{name: "bcrypt-hash", triggers: []string{"$2a$", "$2b$", "$2y$"}, body: "A-Za-z0-9./$", min: 50},
	{name: "argon2-hash", triggers: []string{"$argon2id$", "$argon2i$", "$argon2d$"}, body: "A-Za-z0-9+/=,$", min: 30},
	{name: "beamer-api-token", triggers: []string{"b_"}, body: "a-z0-9=_-", min: 44, max: 44, mixed: true},
	{name: "clojars-api-token", triggers: []string{"CLOJARS_"}, body: alnum, min: 30},
	{name: "cloudflare-origin-ca-key", triggers: []string{"v1.0-"}, body: hexDigits + "-", min: 40},
	{name: "databricks-api-token", triggers: []string{"dapi"}, body: "a-z0-9-", min: 32, mixed: true},
	{name: "defined-networking-api-token", triggers: []string{"dnkey-"}, body: "A-Za-z0-9=_-", min: 20},
	{name: "digitalocean-token", triggers: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, body: hexDigits, min: 40},
	{name: "doppler-api-token", triggers: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."}, body: "A-Za-z0-9._-", min: 40},
	{name: "discord-webhook-url", triggers: []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"}, end: webhookPathEnd},
	{name: "docker-pat", triggers: []string{"dckr_pat_"}, body: b64url, min: 20},
	{name: "dropbox-api-token", triggers: []string{"sl."}, body: "A-Za-z0-9=_-", min: 130},
	{name: "duffel-api-token", triggers: []string{"duffel_test_", "duffel_live_"}, body: "A-Za-z0-9_=-", min: 30},
	{name: "dynatrace-api-token", triggers: []string{"dt0c01."}, body: "A-Za-z0-9.", min: 60},
	{name: "easypost-api-token", triggers: []string{"EZAK", "EZTK"}, body: alnum, min: 40},
	{name: "facebook-or-square-access-token", triggers: []string{"EAA"}, body: b64url, min: 40, mixed: true},
	{name: "square-access-token", triggers: []string{"sq0atp-", "sq0csp-"}, body: b64url, min: 22},
	{name: "flutterwave-key", triggers: []string{"FLWPUBK_TEST-", "FLWSECK_TEST-", "FLWPUBK-", "FLWSECK-"}, body: "A-Za-z0-9-", min: 12},
	{name: "flyio-access-token", triggers: []string{"fm1r_", "fm1a_", "fm2_", "fo1_"}, body: "A-Za-z0-9+/=_-", min: 40},
	{name: "frameio-api-token", triggers: []string{"fio-u-"}, body: "A-Za-z0-9_=-", min: 30},
	{name: "gcp-api-key", triggers: []string{"AIza"}, body: b64url, min: 30},
	{name: "github-token", triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, body: alnum, min: 20},
	{name: "github-fine-grained-pat", triggers: []string{"github_pat_"}, body: "A-Za-z0-9_", min: 20},
	{name: "gitlab-token", triggers: []string{"glpat-", "glcbt-", "gldt-", "glffct-", "glft-", "glimt-", "glagent-", "gloas-", "glptt-", "glrt-", "glsoat-"}, body: "A-Za-z0-9_.-", min: 20},
	{name: "gitlab-rrt", triggers: []string{"GR1348941"}, body: b64url, min: 20},
	{name: "gitlab-session-cookie", triggers: []string{"_gitlab_session="}, body: alnum, min: 32},
	{name: "gocardless-or-lob-api-key", triggers: []string{"live_", "test_", "test_pub_", "live_pub_"}, body: "A-Za-z0-9_=-", min: 30, mixed: true},
	{name: "grafana-api-key", triggers: []string{"eyJrIjoi"}, body: b64, min: 40},
	{name: "grafana-cloud-api-token", triggers: []string{"glc_"}, body: b64, min: 32},
	{name: "grafana-service-account-token", triggers: []string{"glsa_"}, body: "A-Za-z0-9_", min: 32},
	{name: "harness-api-key", triggers: []string{"pat.", "sat."}, body: "A-Za-z0-9._-", min: 40, mixed: true},
	{name: "hashicorp-tf-api-token", triggers: []string{".atlasv1."}, before: alnum, body: "A-Za-z0-9_=-", min: 40},
	{name: "heroku-api-key-v2", triggers: []string{"HRKU-AA"}, body: b64url, min: 40},
	{name: "huggingface-token", triggers: []string{"hf_", "api_org_"}, body: alnum, min: 30},
	{name: "infracost-api-token", triggers: []string{"ico-"}, body: alnum, min: 30},
	{name: "intra42-client-secret", triggers: []string{"s-s4t2ud-", "s-s4t2af-"}, body: hexDigits, min: 40},
	{name: "jwt", triggers: []string{"eyJ"}, end: jwtEnd},
	// Tokens shaped like a JWT whose header does not decode to JSON: found
	// from the dot before the payload.
	{name: "jwt-like", triggers: []string{".ey"}, before: b64url, lead: "ey", body: "A-Za-z0-9_./-", min: 17},
	{name: "jwt-base64", triggers: []string{"ZXlK"}, body: b64, min: 40},
	{name: "linear-api-key", triggers: []string{"lin_api_"}, body: alnum, min: 30},
	{name: "mailgun-key", triggers: []string{"key-", "pubkey-"}, body: hexDigits, min: 32, max: 32},
	{name: "mapbox-api-token", triggers: []string{"pk.", "sk.", "tk."}, body: "A-Za-z0-9.", min: 60, mixed: true},
	{name: "microsoft-teams-webhook", triggers: []string{".webhook.office.com/", "outlook.office.com/webhook/"}, before: "A-Za-z0-9-", body: "A-Za-z0-9@/_.-", min: 20},
	{name: "new-relic-key", triggers: []string{"NRAK-", "NRJS-", "NRII-", "NRAA-"}, body: alnum, min: 19},
	{name: "notion-api-token", triggers: []string{"ntn_"}, body: alnum, min: 40},
	{name: "npm-access-token", triggers: []string{"npm_"}, body: alnum, min: 30},
	{name: "octopus-deploy-api-key", triggers: []string{"API-"}, body: "A-Z0-9", min: 26, mixed: true},
	{name: "openai-api-key", triggers: []string{"sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-", "sk-"}, body: b64url, min: 20, mixed: true},
	{name: "openshift-user-token", triggers: []string{"sha256~"}, body: b64url, min: 40},
	{name: "perplexity-api-key", triggers: []string{"pplx-"}, body: alnum, min: 40},
	{name: "plaid-api-token", triggers: []string{"access-sandbox-", "access-development-", "access-production-"}, body: hexDigits + "-", min: 36},
	{name: "planetscale-token", triggers: []string{"pscale_tkn_", "pscale_oauth_", "pscale_pw_"}, body: "A-Za-z0-9=._-", min: 20},
	{name: "postman-api-token", triggers: []string{"PMAK-"}, body: "A-Za-z0-9-", min: 40},
	{name: "prefect-api-token", triggers: []string{"pnu_"}, body: alnum, min: 30},
	{name: "pulumi-api-token", triggers: []string{"pul-"}, body: hexDigits, min: 40},
	{name: "pypi-upload-token", triggers: []string{"pypi-AgEIcHlwaS5vcmc"}, body: b64url, min: 30},
	{name: "readme-api-token", triggers: []string{"rdme_"}, body: alnum, min: 40},
	{name: "rubygems-api-token", triggers: []string{"rubygems_"}, body: hexDigits, min: 40},
	{name: "scalingo-api-token", triggers: []string{"tk-us-"}, body: b64url, min: 40},
	{name: "sendgrid-api-token", triggers: []string{"SG."}, body: "A-Za-z0-9=_.-", min: 50, mixed: true},
	{name: "sendinblue-api-token", triggers: []string{"xkeysib-"}, body: "A-Za-z0-9-", min: 60},
	{name: "sentry-org-token", triggers: []string{"sntrys_eyJ"}, body: "A-Za-z0-9+/=_", min: 50},
	{name: "sentry-user-token", triggers: []string{"sntryu_"}, body: hexDigits, min: 40},
	{name: "settlemint-token", triggers: []string{"sm_aat_", "sm_pat_", "sm_sat_"}, body: alnum, min: 16},
	{name: "shippo-api-token", triggers: []string{"shippo_live_", "shippo_test_"}, body: hexDigits, min: 40},
	{name: "shopify-token", triggers: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, body: hexDigits, min: 32},
	{name: "slack-token", triggers: []string{"xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-"}, body: "A-Za-z0-9-", min: 8},
	{name: "slack-config-token", triggers: []string{"xoxe."}, body: "A-Za-z0-9.-", min: 20},
	{name: "slack-webhook-url", triggers: []string{"hooks.slack.com/"}, end: webhookPathEnd},
	{name: "sourcegraph-access-token", triggers: []string{"sgp_"}, body: "A-Za-z0-9_", min: 40},
	{name: "stripe-key", triggers: []string{"sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"}, body: alnum, min: 16},
	{name: "tailscale-key", triggers: []string{"tskey-"}, body: b64url, min: 30},
	{name: "twilio-api-key", triggers: []string{"SK"}, body: hexDigits, min: 32, max: 32, mixed: true},
	{name: "twitter-bearer-token", triggers: []string{"AAAAAAAAAAAAAAAAAAAAA"}, body: "A-Za-z0-9%", min: 30},
	{name: "typeform-api-token", triggers: []string{"tfp_"}, body: "A-Za-z0-9_=.-", min: 40},
	{name: "vault-token", triggers: []string{"hvs.", "hvb.", "hvr."}, body: b64url, min: 20},
	{name: "vault-legacy-token", triggers: []string{"s."}, body: alnum, min: 24, max: 24, mixed: true},
	{name: "azure-ad-client-secret", triggers: []string{"Q~"}, before: "A-Za-z0-9_.", beforeMin: 3, body: "A-Za-z0-9_~.-", min: 31, mixed: true},
	{name: "atlassian-api-token", triggers: []string{"ATATT3", "ATCTT3"}, body: "A-Za-z0-9_=-", min: 60},
	{name: "facebook-app-access-token", triggers: []string{"|"}, before: "0-9", beforeMin: 15, body: b64url, min: 27, mixed: true},
	{name: "figma-pat", triggers: []string{"figd_"}, body: b64url, min: 30},
	{name: "google-oauth-access-token", triggers: []string{"ya29."}, body: "A-Za-z0-9_.-", min: 20, mixed: true},
	{name: "google-oauth-refresh-token", triggers: []string{"1//0"}, body: b64url, min: 30, mixed: true},
	{name: "google-oauth-client-secret", triggers: []string{"GOCSPX-"}, body: b64url, min: 24},
	{name: "groq-api-key", triggers: []string{"gsk_"}, body: alnum, min: 40},
	{name: "langsmith-api-key", triggers: []string{"lsv2_pt_", "lsv2_sk_"}, body: "A-Za-z0-9_", min: 32},
	{name: "mailchimp-api-key", triggers: []string{"-us"}, before: hexDigits, beforeMin: 32, body: "0-9", min: 1, max: 2},
	{name: "pinecone-api-key", triggers: []string{"pcsk_"}, body: "A-Za-z0-9_", min: 50},
	{name: "replicate-api-token", triggers: []string{"r8_"}, body: alnum, min: 30, mixed: true},
	{name: "stripe-webhook-secret", triggers: []string{"whsec_"}, body: alnum, min: 24},
	{name: "supabase-token", triggers: []string{"sbp_", "sb_secret_"}, body: "A-Za-z0-9_-", min: 20},
	{name: "tavily-api-key", triggers: []string{"tvly-"}, body: "A-Za-z0-9-", min: 24, mixed: true},
	{name: "telegram-bot-token", triggers: []string{":A"}, before: "0-9", beforeMin: 5, body: b64url, min: 30, mixed: true},
	{name: "xai-api-key", triggers: []string{"xai-"}, body: alnum, min: 60},
	// A private key encoded once more in base64, as Kubernetes stores it
	// ("client-key-data: LS0tLS1CRUdJTi..."): the triggers are the
	// encodings of "-----BEGIN <kind> PRI..." cut to 24 bytes.
	{name: "base64-private-key", triggers: []string{"LS0tLS1CRUdJTiBSU0EgUFJJ", "LS0tLS1CRUdJTiBQUklWQVRF", "LS0tLS1CRUdJTiBFQyBQUklW",
		"LS0tLS1CRUdJTiBPUEVOU1NI", "LS0tLS1CRUdJTiBEU0EgUFJJ", "LS0tLS1CRUdJTiBFTkNSWVBU", "LS0tLS1CRUdJTiBQR1AgUFJJ"}, body: b64, min: 40},
	// Bundler's credentials for a private gem host, in the variable it
	// reads them from: BUNDLE_<host, its dots written "__">=user:password
	// (Sidekiq Enterprise's BUNDLE_ENTERPRISE__CONTRIBSYS__COM=hex:hex).
	{name: "bundler-gem-host-credentials", triggers: []string{"BUNDLE_"}, end: bundlerCredentialEnd},
	{name: "google-oauth-authorization-code", triggers: []string{"4/0A"}, body: b64url, min: 30, mixed: true},
	{name: "yandex-token", triggers: []string{"t1."}, body: "A-Za-z0-9_=.-", min: 60},
	{name: "yandex-api-key", triggers: []string{"AQVN"}, body: b64url, min: 35, max: 38},
	{name: "yandex-aws-access-token", triggers: []string{"YC"}, body: b64url, min: 38, max: 38, mixed: true},
}

// A trigger is one trigger string of a rule, indexed by its anchor: the
// byte of it least likely to stop a scan of prose. at is the anchor's
// offset in text.
type trigger struct {
	text         string
	at           int
	rule         *tokenFormat
	body, before *[256]bool
	bodyID       int
	// head holds the text's first eight bytes (fewer for a shorter text)
	// as load64 reads them, mask the bits of those bytes.
	head, mask uint64
}

// anchored holds the triggers anchored on one byte: those whose anchor is
// their first byte, checked wherever the byte starts a word, those that
// follow a run of their own (infix), grouped by the byte after the anchor,
// and the others
// grouped by the byte just before the anchor, so that a '_' inside an
// ordinary identifier is compared with the few triggers that could end
// there instead of all sixty.
type anchored struct {
	first []trigger
	// infix triggers, by the byte after the anchor
	next   [256]uint8
	byNext [][]trigger
	prev   [256]uint8 // index+1 into byPrev, or 0
	byPrev [][]trigger
	// prevNext cuts each list of byPrev by the byte after the anchor: for
	// list g and a byte n, index+1 into prevLists of the triggers of g, in
	// their order, whose text has n there or ends at the anchor. A
	// repetition of one trigger ("sk-sk-...") then tries the few whose
	// next byte it has, not every trigger that ends in "k-".
	prevNext  [][256]uint8
	prevLists [][]trigger
	joint     *joint // or nil: see punctTriggerAt
}

// triggersByAnchor is the multi-pattern index over every trigger string of
// tokenFormats, derived at init: a byte of the text is looked at only if
// some trigger is anchored on it.
var triggersByAnchor = indexTriggers()

func indexTriggers() (index [256]*anchored) {
	for i := range tokenFormats {
		r := &tokenFormats[i]
		for _, text := range r.triggers {
			at := anchorOf(text)
			// The prefilter must decide on a trigger from the bytes within
			// its reach of the anchor (see rescan).
			if at+1 > scanBehind || len(text)-at > scanAhead {
				panic("sanitize: trigger " + text + " is beyond the prefilter's reach")
			}
			t := trigger{text: text, at: at, rule: r, before: alphabetSet(r.before)}
			for k := 0; k < min(8, len(text)); k++ {
				t.head |= uint64(text[k]) << (8 * k)
				t.mask |= 0xff << (8 * k)
			}
			if r.body != "" {
				t.bodyID = alphabet(r.body)
				t.body = alphabets[t.bodyID]
			}
			a := index[text[at]]
			if a == nil {
				a = new(anchored)
				index[text[at]] = a
			}
			if r.before != "" {
				// A run before the trigger is read back only as far as a
				// byte outside its alphabet: the trigger must hold one, or
				// a run of repeated triggers would be read again for each.
				if strings.Trim(text, byteString(t.before)) == "" {
					panic("sanitize: trigger " + text + " lies inside its own before alphabet")
				}
				// Infix triggers are grouped by the byte after the anchor:
				// the trigger's next byte, or any byte of the body.
				for n := range 256 {
					if at+1 < len(text) && byte(n) != text[at+1] || at+1 == len(text) && !t.body[n] {
						continue
					}
					if a.next[n] == 0 {
						a.byNext = append(a.byNext, nil)
						a.next[n] = uint8(len(a.byNext))
					}
					a.byNext[a.next[n]-1] = append(a.byNext[a.next[n]-1], t)
				}
				continue
			}
			if at == 0 {
				a.first = append(a.first, t)
				continue
			}
			p := text[at-1]
			if a.prev[p] == 0 {
				a.byPrev = append(a.byPrev, nil)
				a.prev[p] = uint8(len(a.byPrev))
			}
			a.byPrev[a.prev[p]-1] = append(a.byPrev[a.prev[p]-1], t)
		}
	}
	for _, a := range index {
		if a != nil {
			a.cutByNext()
		}
	}
	return index
}

func byteString(set *[256]bool) string {
	var b []byte
	for c := range 256 {
		if set[c] {
			b = append(b, byte(c))
		}
	}
	return string(b)
}

// neighbours holds, for each anchor byte, the bytes that may stand just
// before it (prev) and just after it (next) where some trigger is anchored
// on it, as bit sets: the prefilter rejects almost every anchor byte of
// prose ("codes. ", "....") with a few loads and no call. A byte that
// anchors nothing has empty sets.
type neighbours struct{ prev, next [256][4]uint64 }

var anchorNeighbours = func() (n neighbours) {
	add := func(b *[4]uint64, ok func(c byte) bool) {
		for c := range 256 {
			if ok(byte(c)) {
				b[c>>6] |= 1 << (c & 63)
			}
		}
	}
	for c, a := range triggersByAnchor {
		if a == nil {
			continue
		}
		for _, list := range [][][]trigger{{a.first}, a.byPrev, a.byNext} {
			for _, ts := range list {
				for _, t := range ts {
					switch {
					case t.at > 0:
						add(&n.prev[c], func(b byte) bool { return b == t.text[t.at-1] })
					case t.before != nil:
						add(&n.prev[c], func(b byte) bool { return t.before[b] })
					default:
						add(&n.prev[c], func(b byte) bool { return !isAlnum(b) })
					}
					switch {
					case t.at+1 < len(t.text):
						add(&n.next[c], func(b byte) bool { return b == t.text[t.at+1] })
					case t.body != nil:
						add(&n.next[c], func(b byte) bool { return t.body[b] })
					default:
						add(&n.next[c], func(byte) bool { return true })
					}
				}
			}
		}
	}
	return n
}()

// mayTrigger reports whether a trigger could be anchored at s[i]; the
// start and the end of the text count as spaces.
func mayTrigger(s string, i int) bool {
	c := s[i]
	p, nx := byte(' '), byte(' ')
	if i > 0 {
		p = s[i-1]
	}
	if i+1 < len(s) {
		nx = s[i+1]
	}
	return anchorNeighbours.prev[c][p>>6]&(1<<(p&63)) != 0 && anchorNeighbours.next[c][nx>>6]&(1<<(nx&63)) != 0
}

// alphabets holds every body alphabet of the table, so that runs can
// remember one run per alphabet.
var (
	alphabets     []*[256]bool
	alphabetSpecs = map[string]int{}
)

const maxAlphabets = 40

// alphabet returns the id of the byte set a spec such as "A-Za-z0-9_-"
// names; a '-' between two bytes is a range, elsewhere itself.
func alphabet(spec string) int {
	if id, ok := alphabetSpecs[spec]; ok {
		return id
	}
	t := new([256]bool)
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for c := int(spec[i]); c <= int(spec[i+2]); c++ {
				t[c] = true
			}
			i += 2
			continue
		}
		t[spec[i]] = true
	}
	if len(alphabets) == maxAlphabets {
		panic("sanitize: more than maxAlphabets token alphabets")
	}
	alphabets = append(alphabets, t)
	alphabetSpecs[spec] = len(alphabets) - 1
	return len(alphabets) - 1
}

func alphabetSet(spec string) *[256]bool {
	if spec == "" {
		return nil
	}
	return alphabets[alphabet(spec)]
}

// runs remembers, for each alphabet, the last run of its bytes that was
// measured: from any position inside a run its end is the same, so
// triggers repeated inside one long run ("sk-sk-sk-...") cost one pass over
// it, not one pass each, and a text of any shape is read in linear time.
type runs struct {
	from, end, lastDigit, lastLetter [maxAlphabets]int
}

// run returns the end of the run of alphabet id's bytes starting at s[p],
// and whether the run holds a digit and a letter from p on.
func (rc *runs) run(s string, id, p int) (end int, digit, letter bool) {
	if rc.from[id] <= p && p < rc.end[id] {
		return rc.end[id], rc.lastDigit[id] >= p, rc.lastLetter[id] >= p
	}
	set := alphabets[id]
	e, ld, ll := p, -1, -1
	for e < len(s) && set[s[e]] {
		if isDigit(s[e]) {
			ld = e
		} else if isLetter(s[e]) {
			ll = e
		}
		e++
	}
	spend(e - p)
	rc.from[id], rc.end[id], rc.lastDigit[id], rc.lastLetter[id] = p, e, ld, ll
	return e, ld >= p, ll >= p
}

// anchorOf picks the anchor of a trigger: punctuation first, which prose
// rarely holds inside a word; then a capital letter inside the trigger
// (prose capitalises only the first letter of a word); then the first
// byte, which counts only where a word starts. Lower-case letters and
// digits inside a trigger are never anchors: prose is made of them.
func anchorOf(text string) int {
	best, bestScore := 0, 1<<30
	for i := 0; i < len(text); i++ {
		c := text[i]
		score := 9
		switch {
		case c == '_' || c == '~':
			score = 0
		case c == '-':
			score = 1
		case c == '.' || c == '/':
			score = 2
		case 'A' <= c && c <= 'Z' && i > 0:
			score = 3
		case 'A' <= c && c <= 'Z':
			score = 4
		case i == 0:
			score = 5
		}
		if score < bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// nextMatches reports whether the two bytes after the anchor at s[i] are
// the ones t's text has there, as far as it has any: of the triggers
// indexed by the byte before their anchor ("sk-ant-", "sk-proj-",
// "sk-svcacct-"...), most differ there, and a repetition of one would
// compare them all whole at every anchor.
func nextMatches(s string, i int, t *trigger) bool {
	k := t.at + 1
	return k >= len(t.text) || i+1 < len(s) && s[i+1] == t.text[k] && (k+1 == len(t.text) || i+2 < len(s) && s[i+2] == t.text[k+1])
}

// triggerAt reports whether a trigger anchored at s[i] is present there;
// the prefilter calls it at every anchor byte, so it reads only the
// trigger itself and calls nothing it need not.
func triggerAt(s string, i int) bool {
	a := triggersByAnchor[s[i]]
	if i+1 < len(s) {
		if b := a.next[s[i+1]]; b != 0 {
			for k := range a.byNext[b-1] {
				if triggerIs(s, i, &a.byNext[b-1][k]) {
					return true
				}
			}
		}
	}
	if len(a.first) > 0 && wordStart(s, i) {
		for k := range a.first {
			if triggerIs(s, i, &a.first[k]) {
				return true
			}
		}
	}
	if i > 0 {
		ts := a.prevList(s, i)
		for k := range ts {
			if t := &ts[k]; nextMatches(s, i, t) && secondBeforeMatches(s, i, t) && triggerIs(s, i, t) && wordStart(s, i-t.at) {
				return true
			}
		}
	}
	return false
}

// secondBeforeMatches compares the byte two before the anchor, when t has
// one: the triggers grouped by the byte before their anchor often end
// with it ("pat.", "sat."), and nextMatches then tells none apart.
func secondBeforeMatches(s string, i int, t *trigger) bool {
	return t.at < 2 || i >= 2 && s[i-2] == t.text[t.at-2]
}

// triggerIs reports whether t's text lies at s with its anchor at s[i].
// Away from the end of s its first eight bytes are compared as one word:
// most texts tried differ there, and a comparison of strings is a call.
func triggerIs(s string, i int, t *trigger) bool {
	p := i - t.at
	if p < 0 || len(s)-p < len(t.text) {
		return false
	}
	if len(s)-p < 8 {
		return s[p:p+len(t.text)] == t.text
	}
	return load64(s, p)&t.mask == t.head && (len(t.text) <= 8 || s[p+8:p+len(t.text)] == t.text[8:])
}

// redactTokens replaces every token of tokenFormats.
func redactTokens(s string) string {
	// The runs escape to the heap through the formats' end functions: a
	// pooled one keeps the rule from allocating 1.3 KB a call, which the
	// escape re-check makes once a window.
	rc := tokenRuns.Get().(*runs)
	defer tokenRuns.Put(rc)
	*rc = runs{}
	e := edit{s: s}
	for i := 0; i < len(s); i++ {
		if i = nextAnchor(s, i); i == len(s) {
			break
		}
		if !tokenMayStart(s, i) {
			continue
		}
		start, end := tokenAt(s, i, e.last, rc)
		// A token found from its anchor may start before the end of the
		// last span: only the rest of it is new.
		start = max(start, e.last)
		if end <= start {
			continue
		}
		e.replace(start, end, Redacted)
		i = end - 1
	}
	return e.result()
}

// tokenRuns hold redactTokens' runs between calls.
var tokenRuns = sync.Pool{New: func() any { return new(runs) }}

// anchorByte marks the bytes triggersByAnchor indexes, anchorBits as 1.
var (
	anchorByte = func() (t [256]bool) {
		for c, a := range triggersByAnchor {
			t[c] = a != nil
		}
		return t
	}()
	anchorBits = func() (t [256]uint8) {
		for c, ok := range anchorByte {
			if ok {
				t[c] = 1
			}
		}
		return t
	}()
)

// nextAnchor returns the index of the first anchor byte of s[i:], or
// len(s). Eight bytes are read a step: random text holds an anchor every
// four bytes or so, and a walk to each, byte by byte, ended in a branch
// no predictor could learn. (A text dense with anchors in a pattern the
// predictor does learn, "sk-" repeated, pays more for the word than it
// paid for the walk.)
func nextAnchor(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := packWord(&anchorBits, s, i); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && !anchorByte[s[i]] {
		i++
	}
	return i
}

// packWord packs t's entries for s[j:j+8] one to a byte, s[j] lowest:
// eight lookups and no branch, whose marks bits.TrailingZeros64 finds.
func packWord(t *[256]uint8, s string, j int) uint64 {
	b := s[j : j+8]
	return uint64(t[b[0]]) | uint64(t[b[1]])<<8 | uint64(t[b[2]])<<16 | uint64(t[b[3]])<<24 |
		uint64(t[b[4]])<<32 | uint64(t[b[5]])<<40 | uint64(t[b[6]])<<48 | uint64(t[b[7]])<<56
}

// bodyEnd returns the end of the token's body starting at s[p], or 0.
func (t *trigger) bodyEnd(s string, p int, rc *runs) int {
	r := t.rule
	if r.end != nil {
		return r.end(s, p, rc)
	}
	e, digit, letter := rc.run(s, t.bodyID, p)
	e = beforeGluedTrigger(s, p, e, r)
	n := e - p
	if n < r.min || r.max > 0 && n > r.max || r.mixed && !(digit && letter) {
		return 0
	}
	return e
}

// webhookPathEnd takes the path of a webhook URL, which is itself the
// credential.
func webhookPathEnd(s string, p int, rc *runs) int {
	if e, _, _ := rc.run(s, webhookAlphabet, p); e > p {
		return e
	}
	return 0
}

// bundlerCredentialEnd accepts the rest of a Bundler host variable after
// "BUNDLE_": a name whose last part follows "__" (a top-level domain of
// at most maxTLD bytes, so each trigger of a long name reads a bounded
// part of it), '=', an optional quote and the credential.
func bundlerCredentialEnd(s string, p int, rc *runs) int {
	e, _, _ := rc.run(s, bundlerNameAlphabet, p)
	if e >= len(s) || s[e] != '=' || !strings.Contains(s[max(p, e-maxTLD-2):e], "__") {
		return 0
	}
	v := e + 1
	if v < len(s) && (s[v] == '"' || s[v] == '\'') {
		v++
	}
	if ve, _, _ := rc.run(s, bundlerValueAlphabet, v); ve-v >= 8 {
		return ve
	}
	return 0
}

const maxTLD = 24

var (
	bundlerNameAlphabet  = alphabet("A-Z0-9_")
	bundlerValueAlphabet = alphabet("A-Za-z0-9_.:%+/=-")
	webhookAlphabet      = alphabet("A-Za-z0-9_/-")
	jwtAlphabet          = alphabet(b64url)
)

// jwtEnd accepts a header and a payload, both base64url JSON objects (which
// begin "ey"), and an optional signature, which unsigned tokens lack. p is
// just after the header's "ey". A token wrapped or pasted with blanks
// around its dots ("eyJ... . eyJ... . sig") is one token too: after a
// blank the payload must begin "eyJ" and the signature hold at least
// jwtMinSpacedSignature bytes, so the word after an unsigned token's final
// dot stays.
func jwtEnd(s string, p int, rc *runs) int {
	e, _, _ := rc.run(s, jwtAlphabet, p)
	if e-p < 3 {
		return 0
	}
	d := skipBlanks(s, e)
	if d >= len(s) || s[d] != '.' {
		return 0
	}
	q := skipBlanks(s, d+1)
	if !strings.HasPrefix(s[q:], "ey") || (q > d+1 || d > e) && !strings.HasPrefix(s[q:], "eyJ") {
		return 0
	}
	q += 2
	if e, _, _ = rc.run(s, jwtAlphabet, q); e-q < 3 {
		return 0
	}
	if d = skipBlanks(s, e); d < len(s) && s[d] == '.' {
		q = skipBlanks(s, d+1)
		if sig, _, _ := rc.run(s, jwtAlphabet, q); sig > q && (q == d+1 || sig-q >= jwtMinSpacedSignature) {
			return sig
		}
	}
	return e
}

const jwtMinSpacedSignature = 16

// skipBlanks skips up to two spaces or tabs at s[p].
func skipBlanks(s string, p int) int {
	for n := 0; n < 2 && p < len(s) && (s[p] == ' ' || s[p] == '\t'); n++ {
		p++
	}
	return p
}
