package conform

import "time"

// ReportSchema names the JSON report format (docs/aopconform.md).
const ReportSchema = "aopconform-report/1"

// Report is the outcome of one `aopconform run`.
type Report struct {
	Schema     string        `json:"schema"`
	Protocol   string        `json:"protocol"`
	Command    []string      `json:"command"`
	Started    time.Time     `json:"started"`
	DurationMS int64         `json:"duration_ms"`
	OutDir     string        `json:"out_dir,omitempty"`
	Scenarios  []ScenarioRun `json:"scenarios"`
	Results    []Result      `json:"results"`
	Score      Score         `json:"score"`
	// HarnessErrors counts scenarios the harness could not run; any makes the run
	// exit 2.
	HarnessErrors int `json:"harness_errors"`
	// Provenance and KnownFailing are filled by aopconform run (conform/provenance,
	// conform/knownfail); absent in reports of older versions.
	Provenance   *Provenance   `json:"provenance,omitempty"`
	KnownFailing *KnownFailing `json:"known_failing,omitempty"`
	// Containment is what the harness enforced on the implementation (and what
	// it could not on this machine); nil when no launch reported it.
	Containment *Containment `json:"containment,omitempty"`
}

// Score is the summary of results of one protocol.
type Score struct {
	Protocol string `json:"protocol"`
	// Counts by verdict over every selected result.
	Pass      int `json:"pass"`
	Fail      int `json:"fail"`
	Warn      int `json:"warn"`
	NotTested int `json:"not_tested"`
	Skip      int `json:"skip"`
	// NotApplicable, Flaky, NotJudged and HarnessError count the other verdicts.
	NotApplicable int `json:"not_applicable"`
	Flaky         int `json:"flaky"`
	NotJudged     int `json:"not_judged"`
	HarnessError  int `json:"harness_error"`
	// MustSelected is every selected MUST result; MustExercised those the run
	// judged the agent on (Exercised: not NOT-APPLICABLE, NOT-TESTED, NOT-JUDGED
	// or HARNESS-ERROR): "MUSTs exercised N of M".
	MustSelected  int `json:"must_selected"`
	MustExercised int `json:"must_exercised"`
	// MUST and SHOULD results that count (SKIP and NOT-APPLICABLE excluded) and how
	// many passed.
	MustTotal    int     `json:"must_total"`
	MustPassed   int     `json:"must_passed"`
	ShouldTotal  int     `json:"should_total"`
	ShouldPassed int     `json:"should_passed"`
	MustRate     float64 `json:"must_rate"`   // 0..1; 0 when nothing was tested
	ShouldRate   float64 `json:"should_rate"` // 0..1; 0 when nothing was tested
	// Levels lists the tiers reached, ascending; Level is the highest ("" = none).
	Levels []Tier `json:"levels"`
	Level  Tier   `json:"level"`
	// MustFailed: some selected MUST result is not PASS (exit code 1).
	MustFailed bool `json:"must_failed"`
}

// Exercised reports whether a result of verdict v judged the agent: PASS, FAIL,
// WARN, FLAKY (KNOWN, a failure the run expected, too). NOT-APPLICABLE (a state
// never reached), NOT-TESTED (a state the check needs never came), NOT-JUDGED
// (left to a failed check) and HARNESS-ERROR (the harness could not judge) did
// not exercise the requirement, whatever they do to the run.
func Exercised(v Verdict) bool {
	switch v {
	case NotApplicable, NotTested, NotJudged, HarnessError, Skip:
		return false
	}
	return true
}

// ScoreResults is a pure function over results: pass rates per level of requirement
// and the tiers reached. A tier is reached when every lower tier is reached, it has
// at least one selected MUST result, every one of them that was exercised is PASS,
// and at least one MUST of the run passed (docs/aopconform.md "Levels").
// NOT-TESTED never counts as a pass, so an agent that never answers reaches nothing
// and scores 0. NOT-APPLICABLE (a state a correct agent legitimately never reached)
// is neither a pass nor a failure: it is left out of the rates and counted in
// MustSelected only, and a tier whose MUSTs were all NOT-APPLICABLE is reached (the
// agent passed every MUST it was driven to; --strict turns NOT-APPLICABLE into FAIL
// for certifiers who require every MUST exercised). FLAKY is not a pass either, and
// not a violation: it fails no run but keeps the rates below 100% and its tier
// unreached. NOT-JUDGED (depends on another failed check) is not a pass; the failure
// it depends on already fails the run.
func ScoreResults(protocol string, results []Result) Score {
	s := Score{Protocol: protocol, Levels: []Tier{}}
	tierMust := map[Tier]int{} // selected MUST results, NOT-APPLICABLE included
	tierBad := map[Tier]bool{}
	for _, r := range results {
		switch r.Verdict {
		case Pass:
			s.Pass++
		case Fail:
			s.Fail++
		case Warn:
			s.Warn++
		case NotTested:
			s.NotTested++
		case Skip:
			s.Skip++
			continue
		case NotApplicable:
			s.NotApplicable++
			if r.Level == MUST {
				s.MustSelected++
				tierMust[r.Tier]++
			}
			continue
		case Flaky:
			s.Flaky++
		case NotJudged:
			s.NotJudged++
		case HarnessError:
			s.HarnessError++
		}
		ok := r.Verdict == Pass
		// Verdicts that are no violation of the agent: they fail no run.
		excused := r.Verdict == Flaky || r.Verdict == HarnessError
		switch r.Level {
		case MUST:
			s.MustSelected++
			if Exercised(r.Verdict) {
				s.MustExercised++
			}
			s.MustTotal++
			tierMust[r.Tier]++
			if ok {
				s.MustPassed++
			} else {
				tierBad[r.Tier] = true
				if !excused {
					s.MustFailed = true
				}
			}
		case SHOULD:
			s.ShouldTotal++
			if ok {
				s.ShouldPassed++
			}
		}
	}
	if s.MustTotal > 0 {
		s.MustRate = float64(s.MustPassed) / float64(s.MustTotal)
	}
	if s.ShouldTotal > 0 {
		s.ShouldRate = float64(s.ShouldPassed) / float64(s.ShouldTotal)
	}
	for _, t := range Tiers {
		if tierBad[t] || tierMust[t] == 0 || s.MustPassed == 0 {
			// Tiers are cumulative: one not reached (failed, not tested, or with
			// no selected MUST) stops every tier above it. NOT-APPLICABLE alone
			// reaches nothing.
			break
		}
		s.Levels = append(s.Levels, t)
		s.Level = t
	}
	return s
}
