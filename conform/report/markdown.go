package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/provenance"
	"github.com/aopkit/aopkit/conform/requirements"
	"github.com/aopkit/aopkit/internal/safetext"
)

// Markdown writes a CI step summary in the order of the terminal report: the
// verdict, the failures with their rerun commands, what else is worth reading, then
// every other check by family, and the provenance. Lines fit Width columns (code
// blocks aside).
func Markdown(w io.Writer, r *conform.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# aopconform: %s\n\n", r.Protocol)
	state := State(r)
	judged, total := Exercised(r)
	b.WriteString(wrap(fmt.Sprintf("**%s — level %s** · MUST %d/%d (%s) · %s · MUSTs exercised %d of %d",
		state, LevelName(r.Score), r.Score.MustPassed, r.Score.MustTotal, pct(r.Score.MustRate),
		ShouldText(r), judged, total), Width, "", "") + "\n\n")
	b.WriteString(wrap(CountsLine(r), Width, "", "") + "\n\n")
	b.WriteString(wrap("Agent: `"+strings.Join(r.Command, " ")+"`", Width, "", "") + "\n\n")
	if l := NoMessageLine(r); l != "" {
		b.WriteString(wrap("**"+mdEscape(l)+"**", Width, "> ", "> ") + "\n\n")
	}
	if c := r.Containment; c != nil && len(c.Refusals) > 0 {
		b.WriteString(wrap("**"+mdEscape(RefusalsHead)+"**", Width, "> ", "> ") + "\n")
		for _, l := range c.Refusals {
			b.WriteString("> " + mdCode(l) + "\n")
		}
		b.WriteString("\n")
	}
	for _, sc := range harnessErrors(r) {
		b.WriteString(wrap(fmt.Sprintf("**Harness error** in `%s` (not the agent's fault): %s", sc.ID, mdEscape(sc.HarnessError)), Width, "> ", "> ") + "\n\n")
	}
	for _, e := range StaleEntries(r) {
		b.WriteString(wrap("**"+mdEscape(staleText(r, e))+"**", Width, "> ", "> ") + "\n\n")
	}
	if fs := Failures(r); len(fs) > 0 {
		fmt.Fprintf(&b, "## Failures (%d)\n\n", len(fs))
		for _, bl := range Blocks(fs) {
			mdProblem(&b, r, bl)
		}
	}
	if as := Attention(r); len(as) > 0 {
		fmt.Fprintf(&b, "## Also worth reading (%d)\n\n", len(as))
		for _, bl := range Blocks(as) {
			mdProblem(&b, r, bl)
		}
	}
	if fams := Rest(r); len(fams) > 0 {
		b.WriteString("## Other checks by family\n\n")
		for _, f := range fams {
			fmt.Fprintf(&b, "### %s\n\n", f.Name)
			for _, res := range f.Results {
				line := fmt.Sprintf("- %s `%s` (%s %s, `%s`)", res.Verdict, res.Check, res.Level, res.Tier, res.Scenario)
				if fs := Facts(res); len(fs) > 0 {
					line += " — " + mdEscape(strings.Join(fs, "; "))
				}
				if m := rowMessage(res); m != "" {
					line += ": " + mdEscape(m)
				}
				b.WriteString(clipLine(line, Width) + "\n")
			}
			b.WriteString("\n")
		}
	}
	if p := r.Provenance; p != nil {
		b.WriteString("## Provenance\n\n")
		for _, kv := range provenanceRows(r) {
			b.WriteString(wrap(fmt.Sprintf("- %s: %s", kv[0], mdCode(kv[1])), Width, "", "  ") + "\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s\n", wrap(SummaryLine(r), Width, "", ""))
	_, err := io.WriteString(w, safetext.Block(b.String())) // as Text
	return err
}

func mdProblem(b *strings.Builder, r *conform.Report, bl Block) {
	res := bl.Result
	fmt.Fprintf(b, "### %s `%s` in `%s`\n\n", res.Verdict, res.Check, strings.Join(bl.Scenarios(), "`, `"))
	b.WriteString(wrap(fmt.Sprintf("%s %s: %s", res.Level, res.Tier, mdEscape(requirementText(res))), Width, "> ", "> ") + "\n\n")
	vs := variants(bl)
	for _, v := range vs {
		if len(vs) > 1 {
			b.WriteString(wrap("In `"+strings.Join(v.Scenarios(), "`, `")+"`:", Width, "", "") + "\n\n")
		}
		mdVariant(b, r, v)
	}
	if res.Rerun != "" {
		f := fence(res.Rerun)
		fmt.Fprintf(b, "Rerun:\n\n%ssh\n%s\n%s\n\n", f, res.Rerun, f)
	}
}

// mdVariant writes what the results of a variant say (writeVariant).
func mdVariant(b *strings.Builder, r *conform.Report, bl Block) {
	res := bl.Result
	if m := shownMessage(res); m != "" {
		b.WriteString(wrap(mdEscape(m), Width, "", "") + "\n\n")
	}
	if fs := Facts(res); len(fs) > 0 {
		b.WriteString(wrap("*"+mdEscape(strings.Join(fs, "; "))+"*", Width, "", "") + "\n\n")
	}
	if res.Expected != "" || res.Actual != "" {
		exp, act, mode := compare(res.Expected, res.Actual)
		if mode == diffLines {
			diff := unifiedDiff(exp, act)
			f := fence(diff)
			fmt.Fprintf(b, "Expected (-) vs actual (+):\n\n%sdiff\n%s%s\n\n", f, diff, f)
		} else {
			b.WriteString(wrap("- expected: "+mdCode(oneLine(exp)), Width, "", "  ") + "\n")
			b.WriteString(wrap("- actual: "+mdCode(oneLine(act)), Width, "", "  ") + "\n\n")
		}
	}
	for _, l := range res.Lint {
		b.WriteString(wrap(fmt.Sprintf("- lint `%s` (%s, record %d): %s", l.Rule, l.Severity, l.Seq, mdEscape(l.Message)), Width, "", "  ") + "\n")
	}
	if len(res.Lint) > 0 {
		b.WriteString("\n")
	}
	for _, m := range bl.Members {
		if len(m.Evidence) > 0 {
			b.WriteString(wrap(fmt.Sprintf("Evidence: records %s of `%s`", seqList(m.Evidence), transcriptOf(r, m.Scenario)), Width, "", "") + "\n\n")
		}
	}
}

// fence is a code fence longer than every run of backticks in s: a line of
// the implementation's output cannot close the block and write Markdown.
func fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// mdEscape makes the implementation's text inert in Markdown: no table cell
// ends, no HTML, no emphasis, no link or image ([...](...)), no code span.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "`", "\\`").Replace(s)
}

// mdCode puts s in an inline code span (backticks in s lengthen the fence).
func mdCode(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// provenanceRows are the provenance as label/value pairs, for Markdown and HTML.
func provenanceRows(r *conform.Report) [][2]string {
	p := r.Provenance
	if p == nil {
		return nil
	}
	suite := fmt.Sprintf("%s (%s: %d scenarios, %d checks", p.Suite.Digest, p.Suite.Protocol, p.Suite.Scenarios, p.Suite.Checks)
	if !p.Suite.Builtin {
		suite += ", --builtin=false"
	}
	if len(p.Suite.Dirs) > 0 {
		suite += ", --scenarios " + strings.Join(p.Suite.Dirs, " ")
	}
	suite += ")"
	rows := [][2]string{
		{"aopconform", p.Aopconform},
		{"suite", suite},
		{"agent command", strings.Join(p.Agent.Command, " ")},
		{"agent executable", p.Agent.Executable},
		{"agent sha256", p.Agent.SHA256},
	}
	for _, f := range p.Agent.Files {
		rows = append(rows, [2]string{"agent file " + f.Path, "sha256:" + f.SHA256})
	}
	rows = append(rows, [][2]string{
		{"platform", p.Platform},
		{"started", p.Started.Format(conform.TimeFormat)},
		{"timeout scale", fmt.Sprint(p.TimeoutScale)},
		{"repeat", fmt.Sprint(p.Repeat)},
	}...)
	if p.Requirements != "" {
		rows = append(rows, [2]string{"requirements", p.Requirements + " (aopconform coverage)"})
		if rc, err := provenance.RequirementCoverage(r); err == nil && rc.Total > 0 {
			rows = append(rows, [2]string{"requirements covered", fmt.Sprintf("%d of %d %s %s-side requirements (a check of theirs passed%s)", rc.Covered, rc.Total, rc.Protocol, rc.Side, lintNote(rc.Side))})
		}
	}
	for _, t := range p.Transcripts {
		rows = append(rows, [2]string{"transcript " + t.Scenario, fmt.Sprintf("sha256:%s (%d records)", t.SHA256, t.Records)})
	}
	if kf := r.KnownFailing; kf != nil {
		rows = append(rows, [2]string{"known failing", fmt.Sprintf("%s (%d entries)", kf.File, len(kf.Entries))})
	}
	if line := ContainmentLine(r); line != "" {
		rows = append(rows, [2]string{"containment", strings.TrimPrefix(line, "containment: ")})
	}
	return rows
}

func lintNote(side string) string {
	if side == requirements.SideAgent {
		return ", or it has a lint rule and the lint check passed"
	}
	return ""
}
