package sanitize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The peer corpus: every sample gitleaks validates its own rules against,
// kept outside this repository (see shared/secret-samples/README.md) and
// read as data only.
const gitleaksCases = "shared/secret-samples/gitleaks-cases.json"

type gitleaksCase struct {
	Rule        string   `json:"rule"`
	Kind        string   `json:"kind"`
	Input       string   `json:"input"`
	Secret      string   `json:"secret"`
	Embed       string   `json:"embed"`
	PublicParts []string `json:"public_parts"`
}

// loadGitleaksCases finds the corpus in a parent directory of the package
// (the repository and its worktrees sit next to shared/) or at /work/shared.
// It is not in the repository, so it skips when absent, except in CI.
func loadGitleaksCases(t *testing.T) []gitleaksCase {
	t.Helper()
	var candidates []string
	if p := os.Getenv("HOLDOUT_GITLEAKS_CASES"); p != "" {
		candidates = append(candidates, p)
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			candidates = append(candidates, filepath.Join(dir, gitleaksCases))
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	candidates = append(candidates, filepath.Join("/work", gitleaksCases))
	for _, p := range candidates {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var cases []gitleaksCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return cases
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s not found (looked in %v)", gitleaksCases, candidates)
	}
	t.Skipf("%s not found", gitleaksCases)
	return nil
}

// prefixedRules are the catalogue's rules for credentials that announce
// themselves with a fixed prefix or shape: each must be redacted on its own,
// wherever it appears. sourcegraph-access-token is not one: besides its
// "sgp_" tokens it accepts any 40 hexadecimal digits.
var prefixedRules = strings.Fields(`
1password-secret-key 1password-service-account-token adobe-client-secret
age-secret-key alibaba-access-key-id anthropic-admin-api-key anthropic-api-key
artifactory-api-key artifactory-reference-token aws-access-token
aws-amazon-bedrock-api-key-long-lived aws-amazon-bedrock-api-key-short-lived
clojars-api-token cloudflare-origin-ca-key databricks-api-token
defined-networking-api-token digitalocean-access-token digitalocean-pat
digitalocean-refresh-token doppler-api-token duffel-api-token dynatrace-api-token
easypost-api-token easypost-test-api-token facebook-page-access-token
flutterwave-encryption-key flutterwave-public-key flutterwave-secret-key
flyio-access-token frameio-api-token gcp-api-key github-app-token
github-fine-grained-pat github-oauth github-pat github-refresh-token
gitlab-cicd-job-token gitlab-deploy-token gitlab-feature-flag-client-token
gitlab-feed-token gitlab-incoming-mail-token gitlab-kubernetes-agent-token
gitlab-oauth-app-secret gitlab-pat gitlab-pat-routable gitlab-ptt gitlab-rrt
gitlab-runner-authentication-token gitlab-runner-authentication-token-routable
gitlab-scim-token gitlab-session-cookie grafana-api-key grafana-cloud-api-token
grafana-service-account-token harness-api-key hashicorp-tf-api-token
heroku-api-key-v2 huggingface-access-token huggingface-organization-api-token
infracost-api-token intra42-client-secret jwt linear-api-key mailgun-private-api-token
mailgun-pub-key mapbox-api-token microsoft-teams-webhook new-relic-browser-api-token
new-relic-insert-key new-relic-user-api-key notion-api-token npm-access-token
octopus-deploy-api-key openai-api-key openshift-user-token perplexity-api-key
plaid-api-token planetscale-api-token planetscale-oauth-token planetscale-password
postman-api-token prefect-api-token private-key pulumi-api-token pypi-upload-token
readme-api-token rubygems-api-token scalingo-api-token sendgrid-api-token
sendinblue-api-token sentry-org-token sentry-user-token
settlemint-application-access-token settlemint-personal-access-token
settlemint-service-access-token shippo-api-token shopify-access-token
shopify-custom-access-token shopify-private-app-access-token shopify-shared-secret
slack-app-token slack-bot-token slack-config-access-token slack-config-refresh-token
slack-legacy-bot-token slack-legacy-token slack-legacy-workspace-token
slack-user-token slack-webhook-url square-access-token
stripe-access-token twilio-api-key typeform-api-token vault-batch-token
vault-service-token
`)

// gitleaksSentences set a credential where an upstream error would: the
// first after a word that names it, the second with nothing to announce it.
var gitleaksSentences = []string{
	"upstream said: invalid key %s for account 42",
	"request to billing failed (%s); giving up after 3 attempts",
}

// gitleaksContexts are the sentences and formats real services log and
// return with a credential inside: error wrappers, JSON and XML bodies,
// Go's %q, quotes and brackets, a colon, an '=', the end of a sentence, a
// query string, a header, a shell command and configuration lines. Each
// names the credential with a different word and separator, so the
// context rule is measured, not one phrase.
var gitleaksContexts = []struct{ name, format string }{
	{"wrapper-colon", "upstream said: invalid API key: %s"},
	{"prose-token", "auth: invalid token %s for tenant 42"},
	{"json-body", `{"error":{"message":"Invalid API key provided: %s","type":"invalid_request_error"}}`},
	{"xml-body", "<Error><Code>InvalidToken</Code><Message>The access token %s is not valid.</Message></Error>"},
	{"go-quoted", `license check failed: unknown key "%s"`},
	{"parenthesized", "could not sign request (secret %s): signature mismatch"},
	{"single-quoted", "login rejected: password '%s' does not match"},
	{"mysql-identified", "CREATE USER 'app'@'localhost' IDENTIFIED BY '%s'"},
	{"pg-role-password", "ALTER ROLE app WITH PASSWORD '%s'"},
	{"after-colon", "client secret: %s"},
	{"after-equals", "retrying with credential=%s after 401"},
	{"sentence-end", "The passphrase was %s."},
	{"query-string", "GET https://api.example.com/v1/charges?limit=10&access_token=%s returned 401"},
	{"header-bearer", "sent Authorization: Bearer %s to the gateway"},
	{"shell-password", "backup.sh: /usr/local/bin/deploy --password %s --host db: exit status 1"},
	{"yaml-config", "config:\n  service:\n    apiKey: %s\n  region: eu-west-1"},
	{"env-line", "export PAYMENTS_SECRET_KEY=%s"},
	{"json-escaped", `{"detail":"bad request: {\"auth_token\":\"%s\"}"}`},
	{"registry-login", "ci: docker login -u deploy -p %s registry.example.com: exit status 1"},
	{"custom-header", "curl -H 'X-Api-Key: %s' https://api.example.com/v1/orders"},
	{"xml-element", "<?xml version=\"1.0\"?><config><password>%s</password></config>"},
	{"ini-file", "[default]\naws_secret_access_key = %s\nregion = eu-west-1"},
	{"php-array", `'api-key' => '%s',`},
	{"java-property", "java -Dapp.secret.key=%s -jar service.jar"},
	{"verb-phrase", "audit: api key changed to %s by admin"},
	{"verb-first", "migrate: set password to %s"},
	{"adverb-now", "rotation done, secret now %s"},
	{"qualified-colon", "vault: token for tenant 42: %s"},
	{"qualified-is", "debug: password for user alice is %s"},
	{"compare-got", "webhook: signature mismatch: got %s want 0000"},
	{"compare-second", "auth: expected token abc but got %s"},
	{"arrow", "mapping token -> %s"},
	{"table-pipe", "| token | %s |"},
	{"xml-attr", `<key name="stripe">%s</key>`},
	{"bracket-key", "auth failed [key=%s]"},
	{"abbrev-pw", "ssh: pw=%s host=db1"},
	{"appositive", "auth: the new password, %s, was saved"},
	{"change-pair", "vault: Token rotated: old=abc new=%s"},
	{"change-words", "credential rotated, new value %s"},
	{"one-time-code", "Your one-time code: %s"},
	{"algorithm-name", "webhook: HMAC-SHA256 mismatch: received %s"},
	{"scheme-list", "X-Signature: t=1712345678,v1=%s"},
	{"json-sibling", `{"error":"signature mismatch","expected":"%s","got":"x"}`},
	{"change-quoted", `audit: api key rotated (old="abc", new="%s")`},
	{"glued-algorithm", "webhook rejected: hmac_sha256=%s"},
	{"xml-sibling", "<Error><Code>SignatureDoesNotMatch</Code><Expected>%s</Expected></Error>"},
	{"markdown-bold", "- **API key**: `%s`"},
	{"markdown-bold-colon", "**Client Secret:** %s"},
	{"xml-cdata", "<Credentials><Password><![CDATA[%s]]></Password></Credentials>"},
	{"json-escaped-twice", `{"log":"{\\\"msg\\\":\\\"login\\\",\\\"client_secret\\\":\\\"%s\\\"}"}`},
	{"json-escaped-lossy", `"{\\"password\\":\\"%s\\"}"`},
	{"keytool-storepass", "keytool -importkeystore -srckeystore a.p12 -srcstorepass %s -destkeystore b.jks"},
	{"jarsigner-keypass", "jarsigner -keystore k.jks -keypass %s app.jar signer"},
	{"ssh-passphrase", "Enter passphrase for key '/home/deploy/.ssh/id_ed25519': %s"},
	{"git-password-prompt", "Password for 'https://bob@git.example.com': %s"},
	{"value-first-quoted", "ValueError: '%s' is not a valid API key"},
	{"value-first-bare", "stripe: %s is an invalid secret key"},
	{"json-sibling-after", `{"expected":"%s","error":"signature mismatch"}`},
	{"xml-sibling-after", "<Error><Expected>%s</Expected><Code>SignatureDoesNotMatch</Code></Error>"},
	{"code-key-spaced", "key = %s"},
	{"appositive-end", "login rejected for the client secret, %s"},
	{"user-slash-password", "db: credentials: svc_orders / %s rejected"},
	{"login-slash-password", "ftp: login: deploy / %s (530 Login incorrect)"},
	{"sql-identified-by", "Error 1396 (HY000): Operation CREATE USER failed: CREATE USER 'app'@'10.0.0.0/255.0.0.0' IDENTIFIED BY '%s'"},
	{"html-table", "<table><tr><th>Name</th><th>Value</th></tr><tr><td>API key</td><td>%s</td></tr></table>"},
	{"html-code", "<p>Your client secret: <code>%s</code></p>"},
	{"form-array", "POST /settings body: name=ci&tokens[]=%s&tokens[]=x"},
	{"numbered-name", "rotating: token2: %s (token1 revoked)"},
	{"value-property", "config.apiKey.value = \"%s\";"},
	{"value-next-line", "upstream said: apiKey:\n%s; retrying"},
	{"versioned-url", "GET https://api.example.com/v2/auth/verify?passcode=%s HTTP/1.1"},
	{"stdin-login", "deploy: echo %s | docker login -u deploy --password-stdin registry.example.com: exit status 1"},
	{"xml-namespaced", "<soapenv:Header><wsse:UsernameToken><wsse:Password>%s</wsse:Password></wsse:UsernameToken></soapenv:Header>"},
	{"jwt-name", "session rejected: jwt=%s"},
	{"authentication-header", "Authentication: %s"},
	{"redis-config", "CONFIG SET requirepass %s"},
	{"glued-qualifier", "provisioning: adminpassword %s applied"},
	{"sql-insert-values", "pq: duplicate key: INSERT INTO api_clients (name, client_secret, created_at) VALUES ('billing', '%s', NOW())"},
}

// leaks reports whether out still holds the secret, or any 12-byte window
// of it that is not wholly inside the rule's public framing. Windows are
// taken between control characters, which the log tier escapes.
func leaks(out string, c gitleaksCase) bool {
	if strings.Contains(out, c.Secret) {
		return true
	}
	pieces := strings.FieldsFunc(c.Secret, func(r rune) bool { return r < 0x20 || r == 0x7f })
	for _, p := range pieces {
		for i := 0; i+12 <= len(p); i++ {
			w := p[i : i+12]
			framing := false
			for _, pp := range c.PublicParts {
				if strings.Contains(pp, w) {
					framing = true
				}
			}
			if !framing && strings.Contains(out, w) {
				return true
			}
		}
	}
	return false
}

type tierResult struct {
	raw, sentence, bare int // samples that held
	rulesHeld           map[string]bool
}

func TestGitleaksCorpus(t *testing.T) {
	cases := loadGitleaksCases(t)
	tiers := []struct {
		name string
		f    func(string) string
	}{{"Public", Public}, {"Log", Log}}
	prefixed := map[string]bool{}
	for _, r := range prefixedRules {
		prefixed[r] = true
	}
	var tps, fps int
	fpAltered := map[string]int{}
	results := map[string]*tierResult{}
	failures := map[string][]string{}
	for _, tier := range tiers {
		res := &tierResult{rulesHeld: map[string]bool{}}
		results[tier.name] = res
		tps, fps = 0, 0
		for _, c := range cases {
			switch c.Kind {
			case "fp":
				fps++
				if tier.f(c.Input) != c.Input {
					fpAltered[tier.name]++
				}
				continue
			case "tp":
			default:
				continue
			}
			tps++
			if _, seen := res.rulesHeld[c.Rule]; !seen {
				res.rulesHeld[c.Rule] = true
			}
			embed := c.Embed
			if embed == "" {
				embed = c.Secret
			}
			held := true
			if out := tier.f(c.Input); leaks(out, c) {
				held = false
				failures[tier.name+" raw "+c.Rule] = append(failures[tier.name+" raw "+c.Rule], out)
			} else {
				res.raw++
			}
			if out := tier.f(strings.Replace(gitleaksSentences[0], "%s", embed, 1)); leaks(out, c) {
				held = false
				failures[tier.name+" sentence "+c.Rule] = append(failures[tier.name+" sentence "+c.Rule], out)
			} else {
				res.sentence++
			}
			if out := tier.f(strings.Replace(gitleaksSentences[1], "%s", embed, 1)); leaks(out, c) {
				if prefixed[c.Rule] {
					held = false
				}
				failures[tier.name+" bare "+c.Rule] = append(failures[tier.name+" bare "+c.Rule], out)
			} else {
				res.bare++
			}
			if !held {
				res.rulesHeld[c.Rule] = false
			}
		}
	}
	rules := 0
	for range results["Public"].rulesHeld {
		rules++
	}
	for _, tier := range tiers {
		res := results[tier.name]
		held := 0
		for _, ok := range res.rulesHeld {
			if ok {
				held++
			}
		}
		t.Logf("%s: rules fully held %d/%d; samples as given %d/%d; in sentence 1 %d/%d; in sentence 2 %d/%d; false positives altered %d/%d",
			tier.name, held, rules, res.raw, tps, res.sentence, tps, res.bare, tps, fpAltered[tier.name], fps)
		// The bounds issue #25 set: what the tiers altered before the
		// rules that read prose and command lines came, and no more.
		if bound := map[string]int{"Public": 177, "Log": 203}[tier.name]; fpAltered[tier.name] > bound {
			t.Errorf("%s: %d of %d false positives altered, want at most %d", tier.name, fpAltered[tier.name], fps, bound)
		}
		for _, r := range prefixedRules {
			if _, ok := res.rulesHeld[r]; !ok {
				t.Errorf("prefixed rule %s has no samples", r)
			}
		}
		for r, ok := range res.rulesHeld {
			if !ok && prefixed[r] {
				t.Errorf("%s: prefixed-token rule %s leaks", tier.name, r)
			}
		}
		if res.raw*100 < tps*95 {
			t.Errorf("%s: %d of %d samples redacted, want at least 95%%", tier.name, res.raw, tps)
		}
	}
	if os.Getenv("GITLEAKS_VERBOSE") != "" {
		keys := make([]string, 0, len(failures))
		for k := range failures {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("%s (%d): %q", k, len(failures[k]), failures[k][0])
		}
	}
}

// TestGitleaksContexts puts every true-positive sample into each of
// gitleaksContexts and reports, per context and tier, how many held: each
// context must hold at least 97% of the samples, and every sample of a
// vendor-prefixed rule in every context.
func TestGitleaksContexts(t *testing.T) {
	cases := loadGitleaksCases(t)
	prefixed := map[string]bool{}
	for _, r := range prefixedRules {
		prefixed[r] = true
	}
	for _, tier := range []struct {
		name string
		f    func(string) string
	}{{"Public", Public}, {"Log", Log}} {
		for _, ctx := range gitleaksContexts {
			held, total := 0, 0
			var firstLeak string
			prefixedLeaks := map[string]string{}
			for _, c := range cases {
				if c.Kind != "tp" {
					continue
				}
				embed := c.Embed
				if embed == "" {
					embed = c.Secret
				}
				total++
				out := tier.f(strings.Replace(ctx.format, "%s", embed, 1))
				if !leaks(out, c) {
					held++
					continue
				}
				if firstLeak == "" {
					firstLeak = c.Rule + ": " + out
				}
				if prefixed[c.Rule] {
					prefixedLeaks[c.Rule] = out
				}
			}
			t.Logf("%s %-15s held %d/%d (%.1f%%)", tier.name, ctx.name, held, total, 100*float64(held)/float64(total))
			if held*100 < total*97 {
				t.Errorf("%s %s: %d of %d held, want at least 97%%; first leak: %q", tier.name, ctx.name, held, total, firstLeak)
			}
			for r, out := range prefixedLeaks {
				t.Errorf("%s %s: prefixed rule %s leaks: %q", tier.name, ctx.name, r, out)
			}
		}
	}
}
