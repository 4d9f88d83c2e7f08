package sanitize

import (
	"strings"
	"testing"
)

// What echo or printf pipes into a command that reads a credential from
// its standard input is the credential, whatever its shape.
func TestStdinSecrets(t *testing.T) {
	for _, c := range []struct{ in, secret string }{
		{"echo hunter2 | docker login -u ci --password-stdin registry.example.com", "hunter2"},
		{`ci: echo "p@ss w0rd" | docker login --password-stdin: exit status 1`, "p@ss w0rd"},
		{"printf '%s' 'letmein' | podman login -u bot --password-stdin quay.io", "letmein"},
		{"set -e; echo -n s3cr3t | helm registry login --password-stdin ghcr.io", "s3cr3t"},
		{"printf %s gho_16C7e42F292c6912E7710c838347Ae178B4a | gh auth login --with-token", "gho_16C7e42F292c6912E7710c838347Ae178B4a"},
		{"run:\necho abc123xyz | oras login --password-stdin reg\nexit 1", "abc123xyz"},
		{"/bin/echo 'hunter2' | skopeo login --password-stdin quay.io", "hunter2"},
	} {
		for _, tier := range []func(string) string{Public, Log} {
			if out := tier(c.in); strings.Contains(out, c.secret) {
				t.Errorf("%q -> %q keeps %q", c.in, out, c.secret)
			}
		}
	}
	checkBenign(t, []string{
		"cat pw.txt | docker login --password-stdin", "echo $PASSWORD | docker login --password-stdin",
		`echo "${{ secrets.TOKEN }}" | gh auth login --with-token`, "docker login --password-stdin < pw.txt",
		"echo done || docker login --password-stdin", "echo hello | grep --password-stdinx",
		"echo hello\ndocker login --password-stdin",
	})
}
