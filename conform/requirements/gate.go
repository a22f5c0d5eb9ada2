package requirements

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Inventory is what the gate joins the registry to: the rules and checks that
// exist, the evidence that each can fail, and the requirements they cite.
type Inventory struct {
	Rules  map[string]bool // lint rule IDs that exist
	Checks map[string]bool // conformance check IDs that exist (both sides)
	// RuleFails and CheckFails are the enforcers seen failing: a rule whose Bad
	// example (an invalid fixture) it flags, a check a mockagent or engine fault
	// fails.
	RuleFails, CheckFails map[string]bool
	// Cites maps a rule or check ID to the requirement IDs it cites (a check's
	// Requires).
	Cites map[string][]string
}

var idPattern = regexp.MustCompile(`^([a-z0-9-]+)/§([A-Za-z0-9.-]+)/([a-z0-9][a-z0-9.-]*)$`)

// Gate returns every way reqs and inv disagree: a malformed or duplicate entry, a
// requirement with neither an enforcer nor a waiver (open), an enforcer that does
// not exist or was never seen failing, a rule or check that cites a requirement
// the registry does not have. No error: the registry holds.
func Gate(reqs []Requirement, inv Inventory) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	ids := map[string]bool{}
	for _, r := range reqs {
		m := idPattern.FindStringSubmatch(r.ID)
		switch {
		case m == nil:
			bad("%s: ID not of the form protocol/§section/name", r.ID)
		case m[1] != r.Protocol:
			bad("%s: ID names protocol %s, entry is %s", r.ID, m[1], r.Protocol)
		}
		if ids[r.ID] {
			bad("%s: duplicate ID", r.ID)
		}
		ids[r.ID] = true
		if strings.TrimSpace(r.Text) == "" || r.Section == "" {
			bad("%s: no quoted text or no section", r.ID)
		}
		if r.Level != MUST && r.Level != SHOULD && r.Level != MAY {
			bad("%s: level %q, want MUST, SHOULD or MAY", r.ID, r.Level)
		}
		if r.LevelSource != AsWritten && r.LevelSource != Implied {
			bad("%s: level_source %q, want as_written or implied", r.ID, r.LevelSource)
		}
		if r.Side != SideAgent && r.Side != SideOrchestrator && r.Side != SideMessage {
			bad("%s: side %q, want agent, orchestrator or message", r.ID, r.Side)
		}
		if r.Status() == "open" {
			bad("%s: open: neither an enforcer nor a waiver", r.ID)
		}
		for _, id := range r.Rules {
			switch {
			case !inv.Rules[id]:
				bad("%s: rule %s does not exist", r.ID, id)
			case !inv.RuleFails[id]:
				bad("%s: rule %s is never seen failing (no invalid fixture shows it)", r.ID, id)
			}
		}
		for _, id := range r.Checks {
			switch {
			case !inv.Checks[id]:
				bad("%s: check %s does not exist", r.ID, id)
			case strings.Contains(id, "/orch/ref/"):
				bad("%s: check %s compares with the reference engine (MAY, never scored): not an enforcer", r.ID, id)
			case !strings.HasPrefix(id, r.Protocol+"/"):
				bad("%s: check %s is another protocol's", r.ID, id)
			case !inv.CheckFails[id]:
				bad("%s: check %s is never seen failing under any fault", r.ID, id)
			}
		}
	}
	var enforcers []string
	for e := range inv.Cites {
		enforcers = append(enforcers, e)
	}
	sort.Strings(enforcers)
	for _, e := range enforcers {
		for _, id := range inv.Cites[e] {
			if !ids[id] {
				bad("%s cites requirement %s, which is not in the registry", e, id)
			}
		}
	}
	return errs
}
