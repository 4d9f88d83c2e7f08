package sanitize

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// corpusCase is one message of testdata/corpus.json: what drivers, SDKs,
// CLIs and frameworks actually print. A leak case lists the cores that
// must not survive the tiers it names; a benign control must pass them
// unchanged.
type corpusCase struct {
	Name   string   `json:"name"`
	Tiers  string   `json:"tiers"` // "both", "public" or "log"
	In     string   `json:"in"`
	Gone   []string `json:"gone"`
	Benign bool     `json:"benign"`
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	data, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	benign := 0
	for _, c := range cases {
		if c.Benign {
			benign++
		}
	}
	if len(cases) < 300 || 2*benign < len(cases) {
		t.Fatalf("corpus has %d cases, %d benign: want at least 300, half benign", len(cases), benign)
	}
	for _, c := range cases {
		for _, tier := range []struct {
			name string
			f    func(string) string
		}{{"public", Public}, {"log", Log}} {
			if c.Tiers != "both" && c.Tiers != tier.name {
				continue
			}
			got := tier.f(c.In)
			if c.Benign {
				if got != c.In {
					t.Errorf("%s: %s(%q) = %q, want it unchanged", c.Name, tier.name, c.In, got)
				}
				continue
			}
			for _, core := range c.Gone {
				if strings.Contains(got, core) {
					t.Errorf("%s: %s(%q) = %q keeps %q", c.Name, tier.name, c.In, got, core)
				}
			}
		}
	}
}
