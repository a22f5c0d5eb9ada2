package conform

import (
	"fmt"
	"slices"
	"strings"
)

// dependencyFailed reports whether a verdict of the check another one depends on
// explains the dependent's missing evidence: it failed (FAIL, NOT-TESTED), it was
// itself not judged because of an earlier failure, or the harness could not judge
// it (HARNESS-ERROR, which fails the run with exit 2 anyway).
func dependencyFailed(v Verdict) bool {
	switch v {
	case Fail, NotTested, NotJudged, HarnessError, Known:
		return true
	}
	return false
}

// resultKey names one result: a check in a scenario.
type resultKey struct{ check, scenario string }

// indexResults maps every result's check and scenario to its index (the last
// one where a check ran twice in a scenario).
func indexResults(results []Result) map[resultKey]int {
	at := make(map[resultKey]int, len(results))
	for i, r := range results {
		at[resultKey{r.Check, r.Scenario}] = i
	}
	return at
}

// ResolveDependencies keeps a NOT-JUDGED result only while the check it depends on
// reports the root cause in the same run: that check failed in the same scenario,
// or, when it did not run in that scenario, in any scenario of results. Otherwise
// nothing would name the cause (the check was deselected, or no scenario runs it),
// and the dependent result becomes a FAIL that names it itself. One root cause,
// one failure; never none.
func ResolveDependencies(results []Result) {
	at := indexResults(results)
	failedAnywhere := map[string]bool{}
	for _, r := range results {
		if dependencyFailed(r.Verdict) {
			failedAnywhere[r.Check] = true
		}
	}
	reports := func(dep, scenario string) bool {
		if j, ran := at[resultKey{dep, scenario}]; ran && results[j].Verdict != Skip {
			return dependencyFailed(results[j].Verdict)
		}
		return failedAnywhere[dep]
	}
	for i := range results {
		r := &results[i]
		if r.Verdict != NotJudged || r.DependsOn == "" {
			continue
		}
		if reports(r.DependsOn, r.Scenario) {
			continue
		}
		// The check named did not report the cause; a root cause declared for it
		// (or for this check) may have: the guardian answered with errors because
		// the requests were not application/json.
		if root := declaredRoot(r, reports); root != "" {
			why, _ := strings.CutPrefix(r.Message, "not judged: depends on "+r.DependsOn+" (")
			r.Message = fmt.Sprintf("not judged: depends on %s (through %s: %s", root, r.DependsOn, why)
			r.DependsOn = root
			continue
		}
		r.Verdict = Fail
		r.Message = strings.TrimPrefix(r.Message, "not judged: ") + "; " + r.DependsOn + " did not report it in this run, so this check does"
	}
}

// declaredRoot is a check declared After the check r depends on, or After r's own
// check, that reports the cause in r's scenario ("" if none does).
func declaredRoot(r *Result, reports func(dep, scenario string) bool) string {
	for _, id := range []string{r.DependsOn, r.Check} {
		c := LookupCheck(id)
		if c == nil {
			continue
		}
		for _, root := range c.After {
			if root != r.Check && reports(root, r.Scenario) {
				return root
			}
		}
	}
	return ""
}

// rootFailed: a verdict that reports a root cause itself (a failure of the agent,
// shown in every report's failures), not one left unjudged by another.
func rootFailed(v Verdict) bool { return v == Fail || v == NotTested }

// ApplyCauses turns consequences into NOT-JUDGED results under their root cause,
// before ResolveDependencies:
//
//   - causes seen elsewhere: a failed result of a check whose AfterElsewhere
//     names a check that failed itself in another scenario depends on that
//     check (judged first, on the checks' own verdicts);
//   - declared causes: a failed result of a check whose After names a check that
//     failed in the same scenario (FAIL, NOT-TESTED) depends on that check, and
//     one whose After names a check NOT-JUDGED there under a failed one depends
//     on that one (the chain followed to its root);
//   - a lint finding is reported once: a failed catch-all lint check (Lint "*")
//     whose every finding is a rule another check already reports failing (its
//     own lint findings, in any scenario) depends on that check.
//
// Results are taken in order and a check is made a consequence only of one that
// still fails itself, so two checks declared After each other leave one of them
// failing: never none.
func ApplyCauses(results []Result) {
	at := indexResults(results)
	// reportsCause: dep failed itself in the scenario (a check NOT-JUDGED under
	// another is no cause: the chain would be the other's, and two checks
	// declared After each other would leave none failing).
	//
	// When dep did not judge the scenario, another check of the scenario left
	// NOT-JUDGED under dep by its own evidence ("the agent sent no
	// steps/toolCallRequest": depends on aos/bind/all-tools-requested) shows the
	// cause there, as long as dep failed somewhere (ResolveDependencies keeps
	// that one NOT-JUDGED then too).
	failedSomewhere := map[string]bool{}
	underIn := map[resultKey]bool{} // dep, scenario: a result of the scenario is NOT-JUDGED under dep
	for _, r := range results {
		if rootFailed(r.Verdict) {
			failedSomewhere[r.Check] = true
		}
		if r.Verdict == NotJudged && r.DependsOn != "" {
			underIn[resultKey{r.DependsOn, r.Scenario}] = true
		}
	}
	reportsCause := func(dep, scenario, check string) bool {
		if dep == check {
			return false
		}
		if j, ok := at[resultKey{dep, scenario}]; ok && results[j].Verdict != Skip {
			return rootFailed(results[j].Verdict)
		}
		return underIn[resultKey{dep, scenario}] && failedSomewhere[dep]
	}
	// Causes seen elsewhere, on the verdicts the checks gave: a root failing in
	// another scenario, before any of them is made a consequence below.
	failedIn := map[string][]string{} // check: the scenarios it failed itself in
	for _, r := range results {
		if rootFailed(r.Verdict) {
			failedIn[r.Check] = append(failedIn[r.Check], r.Scenario)
		}
	}
	for i := range results {
		r := &results[i]
		c := LookupCheck(r.Check)
		if !rootFailed(r.Verdict) || c == nil {
			continue
		}
		for _, dep := range c.AfterElsewhere {
			if k := slices.IndexFunc(failedIn[dep], func(s string) bool { return s != r.Scenario }); dep != r.Check && k >= 0 {
				dependOn(r, dep, fmt.Sprintf("it failed in %s too, the same cause: %s", failedIn[dep][k], r.Message))
				break
			}
		}
	}
	// rootOf follows a declared cause that is itself NOT-JUDGED in the
	// scenario to the check that failed there (or, when that check does not
	// judge the scenario, failed itself in another): exit-zero declared After
	// finish-within-timeout, which is NOT-JUDGED under progress-rate, is
	// progress-rate's consequence too ("" when the chain ends in no failure).
	rootOf := func(dep, scenario, check string) string {
		for hops := 0; hops < 8 && dep != check; hops++ {
			j, ok := at[resultKey{dep, scenario}]
			if !ok {
				// A check of the scenario is NOT-JUDGED under dep, which does
				// not judge the scenario: dep reports the cause if it failed
				// itself elsewhere (final-response NOT-JUDGED under
				// finish-within-timeout, which only aop2-timeout judges). The
				// declared cause itself must judge the scenario (reportsCause
				// took the other case).
				if hops > 0 && failedSomewhere[dep] {
					return dep
				}
				return ""
			}
			switch r := results[j]; {
			case rootFailed(r.Verdict):
				return dep
			case r.Verdict == NotJudged && r.DependsOn != "":
				dep = r.DependsOn
			default:
				return ""
			}
		}
		return ""
	}
	for i := range results {
		r := &results[i]
		if !rootFailed(r.Verdict) {
			continue
		}
		c := LookupCheck(r.Check)
		if c == nil {
			continue
		}
		for _, dep := range c.After {
			if reportsCause(dep, r.Scenario, r.Check) {
				dependOn(r, dep, r.Message)
				break
			}
			if root := rootOf(dep, r.Scenario, r.Check); root != "" && root != dep {
				dependOn(r, root, fmt.Sprintf("through %s: %s", dep, r.Message))
				break
			}
		}
	}
	ApplyLintClaims(results)
}

// ApplyLintClaims turns a catch-all check's failure (messages-valid: Lint "*")
// into NOT-JUDGED when every lint finding that failed it is a rule another
// check reports failing, in this scenario or another: a lint finding is one
// failure, under the check that names it. Both sides apply it (the agent's
// checks and the orchestrator's).
func ApplyLintClaims(results []Result) {
	at := indexResults(results)
	// Which check reports each lint rule failing, first in check order: the
	// findings it carries, and those of the catch-all on the records it cites as
	// its evidence (the report shows them there).
	reportedBy := map[string]string{}
	claim := func(rule, check string) {
		if old, ok := reportedBy[rule]; !ok || check < old {
			reportedBy[rule] = check
		}
	}
	for _, r := range results {
		if r.Verdict != Fail || catchAll(r.Check) {
			continue
		}
		for _, l := range r.Lint {
			claim(l.Rule, r.Check)
		}
		if len(r.Evidence) == 0 {
			continue
		}
		for _, o := range results {
			if o.Scenario != r.Scenario || o.Verdict != Fail || !catchAll(o.Check) {
				continue
			}
			for _, l := range o.Lint {
				if slices.Contains(r.Evidence, l.Seq) {
					claim(l.Rule, r.Check)
				}
			}
		}
	}
	for i := range results {
		r := &results[i]
		if r.Verdict != Fail || len(r.Lint) == 0 || !catchAll(r.Check) {
			continue
		}
		dep := ""
		for _, l := range r.Lint {
			by, ok := reportedBy[l.Rule]
			if !ok || (dep != "" && by != dep) {
				dep = ""
				break
			}
			dep = by
		}
		if j, ok := at[resultKey{dep, r.Scenario}]; ok && results[j].Verdict != Skip && !rootFailed(results[j].Verdict) {
			dep = "" // it judged this scenario's messages and found nothing
		}
		if dep != "" {
			dependOn(r, dep, fmt.Sprintf("its lint findings (%s) are reported by %s", lintRules(r.Lint), dep))
		}
	}
}

func dependOn(r *Result, dep, why string) {
	r.Verdict, r.DependsOn = NotJudged, dep
	r.Message = fmt.Sprintf("not judged: depends on %s (%s)", dep, why)
}

// catchAll: the check claims every lint finding no other check claims.
func catchAll(id string) bool {
	c := LookupCheck(id)
	return c != nil && slices.Contains(c.Lint, "*")
}

func lintRules(fs []LintFinding) string {
	var rules []string
	for _, f := range fs {
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	return strings.Join(rules, ", ")
}

// LintMessage is the message of a result that lint findings failed: the first
// finding, and how many more there are. The reports, which list every finding
// under it, print it only when it says something else (a lint finding is
// printed once).
func LintMessage(fs []LintFinding) string {
	if len(fs) == 0 {
		return ""
	}
	m := fmt.Sprintf("lint %s on record %d: %s", fs[0].Rule, fs[0].Seq, fs[0].Message)
	if len(fs) > 1 {
		m += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return m
}

// CrashRoot is the check that reports a crash of the agent in s, the
// protocol's bind/exit-zero, when its last attempt exited by itself with a
// non-zero code, unasked ("" otherwise): what the agent did not get to do
// after it crashed is that one failure's consequence. An exit after a signal
// of the harness (a scripted SIGTERM, the deadline's, the SIGKILL after the
// grace period) is no crash: the harness acted first.
func CrashRoot(s *Session) string {
	a := s.Last()
	if a == nil || !a.Exited() || a.Exit.Code == 0 || s.Scenario == nil ||
		a.Timeout || a.Stopped() {
		return ""
	}
	id := s.Scenario.Protocol + "/bind/exit-zero"
	if LookupCheck(id) == nil {
		return ""
	}
	return id
}
