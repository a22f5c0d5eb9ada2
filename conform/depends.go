package conform

import "strings"

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

// ResolveDependencies keeps a NOT-JUDGED result only while the check it depends on
// reports the root cause in the same run: that check failed in the same scenario,
// or, when it did not run in that scenario, in any scenario of results. Otherwise
// nothing would name the cause (the check was deselected, or no scenario runs it),
// and the dependent result becomes a FAIL that names it itself. One root cause,
// one failure; never none.
func ResolveDependencies(results []Result) {
	type key struct{ check, scenario string }
	verdict := map[key]Verdict{}
	failedAnywhere := map[string]bool{}
	for _, r := range results {
		verdict[key{r.Check, r.Scenario}] = r.Verdict
		if dependencyFailed(r.Verdict) {
			failedAnywhere[r.Check] = true
		}
	}
	for i := range results {
		r := &results[i]
		if r.Verdict != NotJudged || r.DependsOn == "" {
			continue
		}
		v, ran := verdict[key{r.DependsOn, r.Scenario}]
		if ran && v != Skip {
			if dependencyFailed(v) {
				continue
			}
		} else if failedAnywhere[r.DependsOn] {
			continue
		}
		r.Verdict = Fail
		r.Message = strings.TrimPrefix(r.Message, "not judged: ") + "; " + r.DependsOn + " did not report it in this run, so this check does"
	}
}
