// Package report writes an aopconform run as a terminal table, JSON, JUnit XML,
// Markdown or one self-contained HTML page. One file per format.
package report

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

// Writer renders a report.
type Writer func(w io.Writer, r *conform.Report) error

// ByExtension picks the writer for a --report file name.
func ByExtension(name string) (Writer, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return JSON, nil
	case ".xml":
		return JUnit, nil
	case ".md", ".markdown":
		return Markdown, nil
	case ".html", ".htm":
		return HTML, nil
	case ".txt":
		return Text, nil
	}
	return nil, fmt.Errorf("--report %s: unknown extension (want .json, .xml, .md, .html or .txt)", name)
}

// SummaryLine is the one-line verdict of a run.
func SummaryLine(r *conform.Report) string {
	s := r.Score
	level := string(s.Level)
	if level == "" {
		level = "none"
	}
	line := fmt.Sprintf("%s: MUST %d/%d (%s), SHOULD %d/%d (%s), level %s — %d PASS, %d FAIL, %d WARN, %d NOT-TESTED, %d SKIP",
		r.Protocol, s.MustPassed, s.MustTotal, pct(s.MustRate), s.ShouldPassed, s.ShouldTotal, pct(s.ShouldRate), level,
		s.Pass, s.Fail, s.Warn, s.NotTested, s.Skip)
	if s.NotApplicable > 0 {
		line += fmt.Sprintf(", %d NOT-APPLICABLE", s.NotApplicable)
	}
	if s.Flaky > 0 {
		line += fmt.Sprintf(", %d FLAKY", s.Flaky)
	}
	if s.NotJudged > 0 {
		line += fmt.Sprintf(", %d NOT-JUDGED", s.NotJudged)
	}
	line += fmt.Sprintf("; MUSTs exercised: %d of %d", s.MustExercised, s.MustSelected)
	if r.HarnessErrors > 0 {
		line += fmt.Sprintf("; %d HARNESS ERROR(S)", r.HarnessErrors)
	}
	return line
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

// Problems returns the results that did not pass (FAIL, WARN, NOT-TESTED), sorted.
func Problems(r *conform.Report) []conform.Result {
	var out []conform.Result
	for _, res := range r.Results {
		switch res.Verdict {
		case conform.Fail, conform.Warn, conform.NotTested, conform.NotApplicable, conform.Flaky, conform.NotJudged, conform.HarnessError:
			out = append(out, res)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if rank(out[i].Verdict) != rank(out[j].Verdict) {
			return rank(out[i].Verdict) < rank(out[j].Verdict)
		}
		if out[i].Check != out[j].Check {
			return out[i].Check < out[j].Check
		}
		return out[i].Scenario < out[j].Scenario
	})
	return out
}

func rank(v conform.Verdict) int {
	switch v {
	case conform.Fail:
		return 0
	case conform.NotTested:
		return 1
	case conform.Warn:
		return 2
	case conform.Flaky, conform.NotJudged, conform.HarnessError:
		return 3
	case conform.NotApplicable:
		return 4
	}
	return 5
}

func harnessErrors(r *conform.Report) []conform.ScenarioRun {
	var out []conform.ScenarioRun
	for _, s := range r.Scenarios {
		if s.HarnessError != "" {
			out = append(out, s)
		}
	}
	return out
}
