package blackbox

import (
	"net/url"
	"strings"
	"testing"
)

// Input the client sent comes back only through the public tier: a
// secret in a path, a query, a member name or a value is not echoed.
func TestInputEchoesDoNotLeak(t *testing.T) {
	json := []string{"Content-Type", "application/json"}
	cases := []failure{
		{"token in an unknown path", "GET", "/nowhere/ghp_0123456789abcdefghijABCDEFGHIJ012345", "", nil, 404, "not_found"},
		{"DSN in an unknown path", "GET", "/x/" + url.PathEscape("postgres://app:hunter2@10.12.0.7/db"), "", nil, 404, "not_found"},
		{"token in the query", "GET", "/nowhere?access_token=ghp_0123456789abcdefghijABCDEFGHIJ012345&password=hunter2", "", nil, 404, "not_found"},
		{"secret in a known path", "GET", "/v1/orders/AKIAIOSFODNN7EXAMPLE", "", nil, 404, "not_found"},
		{"secret in the path of a wrong method", "DELETE", "/v1/orders/ghp_0123456789abcdefghijABCDEFGHIJ012345", "", nil, 405, "method_not_allowed"},
		{"token as an unknown member", "POST", "/v1/orders", `{"sku":"a","quantity":1,"ghp_0123456789abcdefghijABCDEFGHIJ012345":1}`, json, 400, "invalid_json"},
		{"secret as a wrongly typed value", "POST", "/v1/orders", `{"sku":"a","quantity":"AKIAIOSFODNN7EXAMPLE"}`, json, 422, "validation_failed"},
		{"secret in a syntax error", "POST", "/v1/orders", `{"sku":"a","quantity":1} hunter2`, json, 400, "invalid_json"},
		{"secret in a bare literal", "POST", "/v1/orders", `{"sku":s3cr3tPassw0rd}`, json, 400, "invalid_json"},
		{"secret in the media type", "POST", "/v1/orders", `{}`, []string{"Content-Type", "application/x-hunter2; password=s3cr3tPassw0rd"}, 415, "unsupported_media_type"},
		{"secret in a repeated member", "POST", "/v1/orders", `{"sku":"a","sku":"hunter2","quantity":1}`, json, 400, "invalid_json"},
		{"key=value secret in a path", "GET", "/nowhere/password=hunter2", "", nil, 404, "not_found"},
		{"percent-encoded key=value secret in a path", "GET", "/nowhere/password%3Dhunter2", "", nil, 404, "not_found"},
		{"key:value secret in a path", "GET", "/nowhere/api_key:s3cr3tPassw0rd", "", nil, 404, "not_found"},
		{"key=value secret as an unknown member", "POST", "/v1/orders", `{"sku":"a","quantity":1,"password=hunter2":1}`, json, 400, "invalid_json"},
		{"secret in a mis-cased member", "POST", "/v1/orders", `{"SKU":"hunter2","quantity":1,"Password":"s3cr3tPassw0rd"}`, json, 400, "invalid_json"},
	}
	for name, newApp := range apps(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newApp(t)
			for _, f := range cases {
				ans := a.request(f.method, f.path, f.body, f.header...)
				a.checkContract(f.name, ans, f.status, f.code)
				if inst, _ := ans.doc["instance"].(string); strings.ContainsAny(inst, "? #") {
					t.Errorf("%s: instance %q carries a query, a fragment or a raw space", f.name, inst)
				}
			}
			a.checkLogRedacted("input echoes")
		})
	}
}
