package problem

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// catalogHistory is the committed record of every code the kit has
// shipped, with the identity a client may have stored: its status and its
// JSON-RPC code. -update adds codes and never drops one, so a code can only
// leave the registry through Retire.
var catalogHistory = filepath.Join("testdata", "catalog_history.json")

type shippedCode struct {
	Code    string `json:"code"`
	Status  int    `json:"status"`
	RPCCode int    `json:"jsonrpc_code"`
}

// checkAgainstHistory reports every shipped code that reg neither serves
// with its shipped identity nor lists as retired.
func checkAgainstHistory(reg *Registry, shipped []shippedCode) []string {
	var problems []string
	for _, s := range shipped {
		if problemhook.Retired(reg, s.Code) {
			continue
		}
		k, ok := reg.Lookup(Kind(s.Code))
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s disappeared without being retired", s.Code))
		case k.Status != s.Status || k.jsonRPCCode() != s.RPCCode:
			problems = append(problems, fmt.Sprintf("%s was renumbered: status %d→%d, JSON-RPC %d→%d",
				s.Code, s.Status, k.Status, s.RPCCode, k.jsonRPCCode()))
		}
	}
	return problems
}

// TestCatalogHistory: a code present in a previous release's catalog is
// still registered with the same status and JSON-RPC code, or retired.
func TestCatalogHistory(t *testing.T) {
	var shipped []shippedCode
	data, err := os.ReadFile(catalogHistory)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &shipped); err != nil {
			t.Fatal(err)
		}
	case !*update || !os.IsNotExist(err):
		t.Fatalf("%v (run go test ./problem -update to create it)", err)
	}
	reg := NewRegistry()
	for _, p := range checkAgainstHistory(reg, shipped) {
		t.Error(p)
	}
	if t.Failed() || !*update {
		for _, k := range reg.Definitions() {
			if !slices.ContainsFunc(shipped, func(s shippedCode) bool { return s.Code == string(k.Code) }) {
				t.Errorf("%s is not in %s; run go test ./problem -update", k.Code, catalogHistory)
			}
		}
		return
	}
	for _, k := range reg.Definitions() {
		if !slices.ContainsFunc(shipped, func(s shippedCode) bool { return s.Code == string(k.Code) }) {
			shipped = append(shipped, shippedCode{Code: string(k.Code), Status: k.Status, RPCCode: k.jsonRPCCode()})
		}
	}
	out, _ := json.MarshalIndent(shipped, "", "  ")
	if err := os.WriteFile(catalogHistory, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCatalogHistoryCatchesDisappearance: the check above fails for a code
// that vanished or was renumbered, and accepts one that was retired.
func TestCatalogHistoryCatchesDisappearance(t *testing.T) {
	shipped := []shippedCode{
		{Code: "not_found", Status: 404, RPCCode: RPCInvalidParams},
		{Code: "gone", Status: 410, RPCCode: RPCInternalError},
		{Code: "timeout", Status: 504, RPCCode: RPCInternalError},
		{Code: "legacy_quota", Status: 429, RPCCode: RPCInternalError},
	}
	reg := newEmptyRegistry()
	mustRegister(reg, def(NotFound))
	mustRegister(reg, def(Timeout))
	got := checkAgainstHistory(reg, shipped)
	want := []string{"gone disappeared without being retired", "timeout was renumbered: status 504→503, JSON-RPC -32603→-32603",
		"legacy_quota disappeared without being retired"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q", got)
	}
	reg.Retire("gone", "legacy_quota")
	if got := checkAgainstHistory(reg, shipped); len(got) != 1 {
		t.Errorf("retired codes still reported: %q", got)
	}
}
