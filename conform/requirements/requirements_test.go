package requirements_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform/requirements"
)

var update = flag.Bool("u", false, "rewrite docs/coverage.md")

// specsDir is the shared specification directory beside the repository.
const specsDir = "../../../shared/specs"

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestTextsVerbatim: every requirement quotes its spec word for word (whitespace
// aside), so a reader finds it, and a requirement whose text left the spec is
// caught. Skipped when the specs are not beside the repository.
func TestTextsVerbatim(t *testing.T) {
	specs, err := requirements.Specs()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(specsDir); err != nil {
		t.Skip("shared/specs is not beside the repository")
	}
	for _, s := range specs {
		data, err := os.ReadFile(filepath.Join(specsDir, s.File))
		if err != nil {
			t.Fatal(err)
		}
		text := collapse(string(data))
		for _, r := range s.Requirements {
			if !strings.Contains(text, collapse(r.Text)) {
				t.Errorf("%s: text not in %s: %q", r.ID, s.File, r.Text)
			}
		}
	}
}

// minEnforced is the share of requirements a rule or check enforces, at least.
// The registry holds 0.90 or more: the rest are waivers with a reason a
// reviewer can read (docs/coverage.md), and no known gaps. Never lower it.
const minEnforced = 0.90

// TestCounts: the five specs are all there, with at least 300 requirements, at
// least minEnforced of them enforced and none open.
func TestCounts(t *testing.T) {
	specs, err := requirements.Specs()
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 5 {
		t.Errorf("%d specs in the registry, want 5", len(specs))
	}
	reqs, _ := requirements.All()
	tot := requirements.Sum(requirements.Coverage(reqs))
	if tot.Total < 300 {
		t.Errorf("%d requirements, want at least 300", tot.Total)
	}
	if float64(tot.Enforced) < minEnforced*float64(tot.Total) {
		t.Errorf("%d of %d requirements enforced, want at least %.0f %%", tot.Enforced, tot.Total, 100*minEnforced)
	}
	t.Logf("%d requirements: %d enforced, %d waived, %d known gaps", tot.Total, tot.Enforced, tot.Waived, tot.Gap)
	if tot.Open != 0 {
		t.Errorf("%d requirements open", tot.Open)
	}
}

// TestGateFails: the gate catches a check citing a requirement the registry does
// not hold, an open requirement, an enforcer that does not exist and one never
// seen failing — and passes the same data without them.
func TestGateFails(t *testing.T) {
	reqs := []requirements.Requirement{
		{ID: "aop2/§6.1/heartbeat-interval", Protocol: "aop2", Section: "6.1", Text: `"interval_seconds": 120,`, Level: "MUST", LevelSource: "implied", Side: "agent", Checks: []string{"aop2/6.1/heartbeat-interval"}, Rules: []string{"AOP2-SEQ-006"}},
		{ID: "aop2/§8/effects", Protocol: "aop2", Section: "8", Text: "Effects are implementation-specific", Level: "MAY", LevelSource: "as_written", Side: "orchestrator", Waiver: "left to the implementation"},
	}
	inv := func() requirements.Inventory {
		return requirements.Inventory{
			Rules: map[string]bool{"AOP2-SEQ-006": true}, RuleFails: map[string]bool{"AOP2-SEQ-006": true},
			Checks: map[string]bool{"aop2/6.1/heartbeat-interval": true, "aop2/6.1/new-check": true}, CheckFails: map[string]bool{"aop2/6.1/heartbeat-interval": true, "aop2/6.1/new-check": true},
			Cites: map[string][]string{"aop2/6.1/heartbeat-interval": {"aop2/§6.1/heartbeat-interval"}},
		}
	}
	if errs := requirements.Gate(reqs, inv()); len(errs) != 0 {
		t.Fatalf("clean registry: %v", errs)
	}
	cases := []struct {
		name  string
		edit  func([]requirements.Requirement, *requirements.Inventory) []requirements.Requirement
		wants string
	}{
		{"a new check cites an unknown requirement", func(r []requirements.Requirement, inv *requirements.Inventory) []requirements.Requirement {
			inv.Cites["aop2/6.1/new-check"] = []string{"aop2/§6.1/heartbeat-jitter"}
			return r
		}, "aop2/6.1/new-check cites requirement aop2/§6.1/heartbeat-jitter, which is not in the registry"},
		{"a rule cites an unknown requirement", func(r []requirements.Requirement, inv *requirements.Inventory) []requirements.Requirement {
			inv.Cites["AOP2-SEQ-006"] = []string{"aop2/§6.1/heartbeat-interval", "aop2/§6.1/jitter"}
			return r
		}, "AOP2-SEQ-006 cites requirement aop2/§6.1/jitter, which is not in the registry"},
		{"open requirement", func(r []requirements.Requirement, _ *requirements.Inventory) []requirements.Requirement {
			r[1].Waiver = ""
			return r
		}, "aop2/§8/effects: open"},
		{"unknown rule", func(r []requirements.Requirement, _ *requirements.Inventory) []requirements.Requirement {
			r[0].Rules = []string{"AOP2-SEQ-999"}
			return r
		}, "rule AOP2-SEQ-999 does not exist"},
		{"unknown check", func(r []requirements.Requirement, _ *requirements.Inventory) []requirements.Requirement {
			r[0].Checks = []string{"aop2/6.1/heartbeat-gone"}
			return r
		}, "check aop2/6.1/heartbeat-gone does not exist"},
		{"rule never failing", func(r []requirements.Requirement, inv *requirements.Inventory) []requirements.Requirement {
			delete(inv.RuleFails, "AOP2-SEQ-006")
			return r
		}, "rule AOP2-SEQ-006 is never seen failing"},
		{"check never failing", func(r []requirements.Requirement, inv *requirements.Inventory) []requirements.Requirement {
			delete(inv.CheckFails, "aop2/6.1/heartbeat-interval")
			return r
		}, "check aop2/6.1/heartbeat-interval is never seen failing"},
		{"duplicate ID", func(r []requirements.Requirement, _ *requirements.Inventory) []requirements.Requirement {
			return append(r, r[1])
		}, "aop2/§8/effects: duplicate ID"},
		{"bad level", func(r []requirements.Requirement, _ *requirements.Inventory) []requirements.Requirement {
			r[0].Level = "REQUIRED"
			return r
		}, `level "REQUIRED"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := inv()
			rs := c.edit(append([]requirements.Requirement(nil), reqs...), &in)
			var msgs []string
			for _, e := range requirements.Gate(rs, in) {
				msgs = append(msgs, e.Error())
			}
			if got := strings.Join(msgs, "\n"); !strings.Contains(got, c.wants) {
				t.Errorf("gate errors %q, want one containing %q", got, c.wants)
			}
		})
	}
}

// TestDigest: the digest is stable and names the data.
func TestDigest(t *testing.T) {
	d := requirements.Digest()
	if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 || d != requirements.Digest() {
		t.Errorf("digest %q", d)
	}
}

// TestJSON: --format json has the fields the issue names, rules and checks never
// null.
func TestJSON(t *testing.T) {
	reqs, _ := requirements.All()
	var b bytes.Buffer
	if err := requirements.WriteJSON(&b, reqs); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Requirements []map[string]any `json:"requirements"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Requirements) != len(reqs) {
		t.Fatalf("%d requirements in JSON, want %d", len(out.Requirements), len(reqs))
	}
	for _, k := range []string{"id", "protocol", "section", "level", "side", "text", "rules", "checks", "waiver"} {
		v, ok := out.Requirements[0][k]
		if !ok || v == nil {
			t.Errorf("JSON requirement lacks %q: %v", k, out.Requirements[0])
		}
	}
}

// TestCoverageDoc keeps docs/coverage.md what `aopconform coverage --format md`
// prints (go test ./conform/requirements -u rewrites it).
func TestCoverageDoc(t *testing.T) {
	want, err := requirements.Doc()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(repo, "docs", "coverage.md")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("docs/coverage.md is stale; run go test ./conform/requirements -u")
	}
}

// TestCoverageOfRun: a run covers the requirements whose checks of its side
// passed; lint rules count on the agent side when the lint check passed.
func TestCoverageOfRun(t *testing.T) {
	none, err := requirements.CoverageOfRun("aop2", "agent", nil)
	if err != nil || none.Total < 50 || none.Covered != 0 {
		t.Fatalf("nothing passed: %+v, %v", none, err)
	}
	hb, _ := requirements.CoverageOfRun("aop2", "agent", map[string]bool{"aop2/6.1/heartbeat-interval": true})
	if hb.Covered < 2 || hb.Covered >= hb.Total || hb.Total != none.Total {
		t.Errorf("heartbeat check passed: %+v", hb)
	}
	lint, _ := requirements.CoverageOfRun("aop2", "agent", map[string]bool{"aop2/lint/messages-valid": true})
	if lint.Covered <= hb.Covered {
		t.Errorf("lint check passed: %+v, want more than %d", lint, hb.Covered)
	}
	orch, _ := requirements.CoverageOfRun("aop2", "orchestrator", map[string]bool{"aop2/6.1/heartbeat-interval": true, "aop2/lint/messages-valid": true})
	if orch.Covered != 0 {
		t.Errorf("agent checks count on the orchestrator side: %+v", orch)
	}
	orch, _ = requirements.CoverageOfRun("aop2", "orchestrator", map[string]bool{"aop2/orch/11/timeout-enforced": true})
	if orch.Covered == 0 {
		t.Errorf("orchestrator check passed: %+v", orch)
	}
}
