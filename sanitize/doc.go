// Package sanitize turns untrusted text into text that is safe to show a
// client, and redacts secrets from log records.
package sanitize
