package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

// Markdown writes a CI step summary: the score, the problems with their rerun
// commands, then every result.
func Markdown(w io.Writer, r *conform.Report) error {
	s := r.Score
	level := string(s.Level)
	if level == "" {
		level = "none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# aopconform: %s\n\n", r.Protocol)
	fmt.Fprintf(&b, "Agent: `%s`\n\n", strings.Join(r.Command, " "))
	fmt.Fprintf(&b, "| Level reached | MUST | SHOULD | PASS | FAIL | WARN | NOT-TESTED | SKIP |\n|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| **%s** | %d/%d (%s) | %d/%d (%s) | %d | %d | %d | %d | %d |\n\n", level, s.MustPassed, s.MustTotal, pct(s.MustRate), s.ShouldPassed, s.ShouldTotal, pct(s.ShouldRate), s.Pass, s.Fail, s.Warn, s.NotTested, s.Skip)
	for _, sc := range harnessErrors(r) {
		fmt.Fprintf(&b, "> **Harness error** in `%s` (not the agent's fault): %s\n\n", sc.ID, mdEscape(sc.HarnessError))
	}
	if ps := Problems(r); len(ps) > 0 {
		b.WriteString("## Problems\n\n")
		for _, res := range ps {
			fmt.Fprintf(&b, "### %s `%s` in `%s`\n\n", res.Verdict, res.Check, res.Scenario)
			fmt.Fprintf(&b, "%s %s, %s: %s\n\n", res.Level, res.Tier, mdEscape(res.Spec), mdEscape(res.Requirement))
			if res.Message != "" {
				fmt.Fprintf(&b, "%s\n\n", mdEscape(res.Message))
			}
			if res.Expected != "" || res.Actual != "" {
				fmt.Fprintf(&b, "```diff\n%s```\n\n", unifiedDiff(res.Expected, res.Actual))
			}
			for _, l := range res.Lint {
				fmt.Fprintf(&b, "- lint `%s` (%s, record %d): %s\n", l.Rule, l.Severity, l.Seq, mdEscape(l.Message))
			}
			if res.Rerun != "" {
				fmt.Fprintf(&b, "\nRerun:\n\n```sh\n%s\n```\n\n", res.Rerun)
			}
		}
	}
	b.WriteString("## Results\n\n| Check | Level | Tier | Scenario | Verdict | Detail |\n|---|---|---|---|---|---|\n")
	for _, res := range r.Results {
		fmt.Fprintf(&b, "| `%s` | %s | %s | `%s` | %s | %s |\n", res.Check, res.Level, res.Tier, res.Scenario, res.Verdict, mdEscape(clipLine(res.Message, 120)))
	}
	fmt.Fprintf(&b, "\n%s\n", SummaryLine(r))
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
