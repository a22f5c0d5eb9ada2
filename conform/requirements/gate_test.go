package requirements_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks"
	_ "github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/conform/requirements"
	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
)

const repo = "../.."

// inventory joins the registry to what exists: every lint rule and check
// registered, the rules seen failing (an invalid fixture's golden shows the rule:
// the Bad-example data of lint/all's TestEveryRuleHasAFailingFixture), the checks
// seen failing (agent side: a ✗ in the fault matrix TestFaultMatrix writes into
// docs/aopconform.md; orchestrator side: the check's row in docs/orchestrator-side.md
// names what fails it, and TestOrchestratorSide sees every one fail under an engine
// fault or a bug mode), and the requirements rules and checks cite (Rule.Requires,
// Check.Requires).
func inventory(t *testing.T) requirements.Inventory {
	return inventoryOf(t, lint.Rules(), conform.Checks(""))
}

// inventoryOf is inventory over the given rules and checks.
func inventoryOf(t *testing.T, rules []*lint.Rule, checks []*conform.Check) requirements.Inventory {
	t.Helper()
	inv := requirements.Inventory{Rules: map[string]bool{}, Checks: map[string]bool{}, RuleFails: map[string]bool{}, CheckFails: map[string]bool{}, Cites: map[string][]string{}}
	for _, r := range rules {
		if !r.Retired {
			inv.Rules[r.ID] = true
		}
		if len(r.Requires) > 0 {
			inv.Cites[r.ID] = r.Requires
		}
	}
	for _, c := range checks {
		inv.Checks[c.ID] = true
		if len(c.Requires) > 0 {
			inv.Cites[c.ID] = c.Requires
		}
	}
	ruleRef := regexp.MustCompile(` \[([A-Z0-9]+-[A-Z0-9]+-[0-9A-Z]+)\]`)
	err := filepath.WalkDir(filepath.Join(repo, "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".golden") || !strings.Contains(filepath.ToSlash(path), "/invalid/") {
			return err
		}
		data, err := os.ReadFile(path)
		for _, m := range ruleRef.FindAllStringSubmatch(string(data), -1) {
			inv.RuleFails[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for id := range faultMatrix(t) {
		inv.CheckFails[id] = true
	}
	for id := range orchFaults(t) {
		inv.CheckFails[id] = true
	}
	return inv
}

// faultMatrix reads the fault matrix of docs/aopconform.md: the checks with a ✗
// under some fault.
func faultMatrix(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "docs", "aopconform.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, "<!-- BEGIN FAULT MATRIX"), strings.Index(doc, "<!-- END FAULT MATRIX -->")
	if i < 0 || j < i {
		t.Fatal("docs/aopconform.md has no fault matrix")
	}
	failed := map[string]bool{}
	for _, sec := range strings.Split(doc[i:j], "\n### ")[1:] {
		var cols []string
		var rows [][]string
		for _, l := range strings.Split(sec, "\n") {
			if strings.HasPrefix(l, "| `") {
				rows = append(rows, strings.Split(l, "|"))
			}
			if _, c, ok := strings.Cut(l, ". `"); ok && strings.HasSuffix(c, "`") {
				cols = append(cols, strings.TrimSuffix(c, "`"))
			}
		}
		for _, cells := range rows {
			// "", " `fault` ", " exit ", column 1, ...
			for k, cell := range cells[3:] {
				if strings.TrimSpace(cell) == "✗" && k < len(cols) {
					failed[cols[k]] = true
				}
			}
		}
	}
	if len(failed) < 50 {
		t.Fatalf("fault matrix: only %d checks seen failing; the parser is out of step with the doc", len(failed))
	}
	return failed
}

// orchFaults reads the check tables of docs/orchestrator-side.md: the
// orchestrator-side checks whose "what fails it" names a failure.
func orchFaults(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "docs", "orchestrator-side.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		cells := strings.Split(l, " | ")
		if len(cells) < 5 || !strings.HasPrefix(l, "| `") {
			continue
		}
		id := strings.Trim(strings.TrimPrefix(cells[0], "| "), "`")
		if requirements.IsOrchCheck(id) && strings.TrimSpace(strings.TrimSuffix(cells[len(cells)-1], "|")) != "" {
			out[id] = true
		}
	}
	if len(out) < 20 {
		t.Fatalf("docs/orchestrator-side.md: only %d checks with a failure; the parser is out of step with the doc", len(out))
	}
	return out
}

// TestGateNewCheck: a new check that cites a requirement the registry does not
// hold fails the gate over the real registry, rules and checks; citing one it
// holds passes.
func TestGateNewCheck(t *testing.T) {
	reqs, err := requirements.All()
	if err != nil {
		t.Fatal(err)
	}
	gate := func(requires ...string) []string {
		c := &conform.Check{ID: "aop2/6.1/heartbeat-jitter", Protocol: "aop2", Requires: requires}
		var msgs []string
		for _, e := range requirements.Gate(reqs, inventoryOf(t, lint.Rules(), append(conform.Checks(""), c))) {
			msgs = append(msgs, e.Error())
		}
		return msgs
	}
	if msgs := gate("aop2/§6.1/interval"); len(msgs) != 0 {
		t.Errorf("a check citing a known requirement: %v", msgs)
	}
	msgs := gate("aop2/§6.1/interval", "aop2/§6.1/jitter")
	if len(msgs) != 1 || !strings.Contains(msgs[0], "aop2/6.1/heartbeat-jitter cites requirement aop2/§6.1/jitter, which is not in the registry") {
		t.Errorf("a check citing an unknown requirement: %v", msgs)
	}
}

// TestGate: the registry holds against the rules and checks of this build.
func TestGate(t *testing.T) {
	reqs, err := requirements.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range requirements.Gate(reqs, inventory(t)) {
		t.Error(e)
	}
}
