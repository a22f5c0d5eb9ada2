package output

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// MarkdownMaxRows bounds the diagnostics table of the Markdown format (a GitHub step
// summary holds at most 1 MiB); the counts above it cover every diagnostic.
const MarkdownMaxRows = 500

// Markdown prints a report for people: a heading with the verdict, the counts, and a
// table of the diagnostics (file and line, severity, rule linked to its
// documentation, message), at most MarkdownMaxRows rows. It is what the GitHub
// Action puts in the step summary.
func Markdown(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	s := r.Summarize()
	verdict := "✅ no errors"
	if s.Errors > 0 {
		verdict = fmt.Sprintf("❌ %d %s", s.Errors, plural(s.Errors, "error", "errors"))
	}
	fmt.Fprintf(bw, "### aoplint: %s\n\n", verdict)
	fmt.Fprintf(bw, "| files | messages | errors | warnings | info |\n|---:|---:|---:|---:|---:|\n| %d | %d | %d | %d | %d |\n\n",
		s.Files, s.Messages, s.Errors, s.Warnings, s.Infos)
	rows := 0
	total := 0
	for i := range r.Files {
		total += len(r.Files[i].Diagnostics)
	}
	if total > 0 {
		bw.WriteString("| where | severity | rule | message |\n|---|---|---|---|\n")
	}
	for f, d := range r.diagnostics() {
		if rows == MarkdownMaxRows {
			break
		}
		fmt.Fprintf(bw, "| `%s:%d:%d` | %s | [%s](%s) | %s |\n", mdCode(pathOf(f, d)), d.Line, d.Column,
			severityIcon(d.Severity), mdCell(d.Rule), HelpURI(d.Rule), mdCell(d.Message))
		rows++
	}
	if rest := total - rows + s.NotPrinted; rest > 0 {
		fmt.Fprintf(bw, "\n%d more %s not shown; run aoplint locally for all of them.\n", rest, plural(rest, "diagnostic", "diagnostics"))
	}
	if r.Version != "" {
		fmt.Fprintf(bw, "\n<sub>aoplint %s</sub>\n", mdCell(r.Version))
	}
	return bw.Flush()
}

func severityIcon(s lint.Severity) string {
	return bySeverity(s, "❌ error", "⚠️ warning", "ℹ️ info")
}

// mdCell makes text safe in a table cell: no line breaks, no column separators, no
// HTML, no link or image ([...](...)), no code span, unprintable characters escaped.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\r", " ", "\n", " ", "[", `\[`, "]", `\]`, "`", "\\`").Replace(SafeText(s))
}

// mdCode makes text safe inside a code span.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", `\|`).Replace(SafePath(s))
}
