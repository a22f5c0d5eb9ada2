package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/aopkit/aopkit/conform"
)

// Text writes the terminal table, then every problem with expected vs actual and
// the command that reruns it, then the summary line.
func Text(w io.Writer, r *conform.Report) error {
	table := tablewriter.NewWriter(w)
	table.Header("Check", "Level", "Tier", "Scenario", "Verdict", "Detail")
	for _, res := range r.Results {
		if res.Verdict == conform.Skip {
			continue // counted in the summary line; listed in the other formats
		}
		verdict := string(res.Verdict)
		if res.Runs > 1 {
			verdict += fmt.Sprintf(" %d/%d", res.Passed, res.Runs) // pass rate over the runs
		}
		if err := table.Append([]string{res.Check, string(res.Level), string(res.Tier), res.Scenario, verdict, clipLine(res.Message, 60)}); err != nil {
			return err
		}
	}
	if err := table.Render(); err != nil {
		return err
	}
	for _, s := range harnessErrors(r) {
		fmt.Fprintf(w, "\nHARNESS ERROR in %s (not the agent's fault): %s\n", s.ID, s.HarnessError)
	}
	for _, res := range Problems(r) {
		fmt.Fprintf(w, "\n%s %s [%s %s] in %s\n", res.Verdict, res.Check, res.Level, res.Tier, res.Scenario)
		fmt.Fprintf(w, "  requirement: %s (%s)\n", res.Requirement, res.Spec)
		if res.Message != "" {
			fmt.Fprintf(w, "  %s\n", res.Message)
		}
		if res.Expected != "" || res.Actual != "" {
			fmt.Fprintf(w, "  expected: %s\n  actual:   %s\n", indent(res.Expected), indent(res.Actual))
		}
		for _, l := range res.Lint {
			fmt.Fprintf(w, "  lint %s %s (record %d): %s\n", l.Severity, l.Rule, l.Seq, l.Message)
		}
		if len(res.Evidence) > 0 {
			fmt.Fprintf(w, "  evidence: records %v of %s\n", res.Evidence, transcriptOf(r, res.Scenario))
		}
		if res.Rerun != "" {
			fmt.Fprintf(w, "  rerun: %s\n", res.Rerun)
		}
	}
	if r.OutDir != "" {
		fmt.Fprintf(w, "\ntranscripts: %s\n", r.OutDir)
	}
	_, err := fmt.Fprintln(w, SummaryLine(r))
	return err
}

func transcriptOf(r *conform.Report, scenario string) string {
	for _, s := range r.Scenarios {
		if s.ID == scenario {
			return s.Transcript
		}
	}
	return ""
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n            ") }

func clipLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
