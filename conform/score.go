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
	// MUST and SHOULD results that count (SKIP excluded) and how many passed.
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

// ScoreResults is a pure function over results: pass rates per level of requirement
// and the tiers reached. A tier is reached when it and every lower tier have at least one
// MUST result and every one of them is PASS; NOT-TESTED never counts as
// a pass, so an agent that never answers reaches nothing and scores 0.
func ScoreResults(protocol string, results []Result) Score {
	s := Score{Protocol: protocol, Levels: []Tier{}}
	tierMust := map[Tier]int{}
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
		}
		ok := r.Verdict == Pass
		switch r.Level {
		case MUST:
			s.MustTotal++
			tierMust[r.Tier]++
			if ok {
				s.MustPassed++
			} else {
				tierBad[r.Tier] = true
				s.MustFailed = true
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
		if tierBad[t] || tierMust[t] == 0 {
			// Tiers are cumulative: one not reached (failed or not tested) stops
			// every tier above it.
			break
		}
		s.Levels = append(s.Levels, t)
		s.Level = t
	}
	return s
}
