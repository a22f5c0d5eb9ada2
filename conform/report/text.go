package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/internal/safetext"
)

// Text writes the terminal report in the order a reader needs it: the verdict, the
// failures (requirement, expected vs actual, lint findings, evidence, the command
// that reruns the check), what else is worth reading, then every other check by
// family. Every line fits Width columns except rerun commands, kept whole so that
// they can be copied.
func Text(w io.Writer, r *conform.Report) error { return WriteText(w, r, TextOptions{}) }

// TextUncut is Text for a file or a pipe (a CI log): the one-line rows (the
// other checks by family, a diff's lines) are kept whole instead of cut at
// Width columns, so that nothing of a check's message is lost.
func TextUncut(w io.Writer, r *conform.Report) error {
	return WriteText(w, r, TextOptions{Uncut: true})
}

// TextOptions say how WriteText writes the text report.
type TextOptions struct {
	// Uncut keeps one-line rows whole (TextUncut) instead of cut at Width.
	Uncut bool
	// Color colours the verdict words of the failures' heads and of the
	// family rows with ANSI escapes (a terminal; no NO_COLOR).
	Color bool
}

// WriteText writes the text report: Text, TextUncut, with or without colour.
// Only verdict words the report itself wrote are coloured, after the report's
// text is escaped (safetext): nothing the implementation wrote is coloured,
// and no escape sequence of its own reaches the terminal.
func WriteText(w io.Writer, r *conform.Report, o TextOptions) error {
	clip := Width
	if o.Uncut {
		clip = 0
	}
	return text(w, r, clip, o.Color)
}

// textBuf is the text report being written, with the places of the verdict
// words to colour.
type textBuf struct {
	strings.Builder
	marks []verdictMark
}

// verdictMark is a verdict word the report wrote at byte offset at.
type verdictMark struct {
	at int
	v  conform.Verdict
}

// mark records that the next write puts verdict v at offset off in it.
func (b *textBuf) mark(off int, v conform.Verdict) {
	b.marks = append(b.marks, verdictMark{b.Len() + off, v})
}

// render is the report's text, escaped (safetext.Block), the marked verdict
// words coloured when color is set. A mark whose word is not where it was
// expected is left plain.
func (b *textBuf) render(color bool) string {
	s := b.String()
	if !color || len(b.marks) == 0 {
		return safetext.Block(s)
	}
	var out strings.Builder
	prev := 0
	for _, m := range b.marks {
		end := m.at + len(m.v)
		if m.at < prev || end > len(s) || s[m.at:end] != string(m.v) {
			continue
		}
		out.WriteString(safetext.Block(s[prev:m.at]))
		out.WriteString(verdictColor(m.v) + string(m.v) + ansiReset)
		prev = end
	}
	out.WriteString(safetext.Block(s[prev:]))
	return out.String()
}

// ANSI colours of the verdicts (as aoplint colours its severities).
const (
	ansiReset   = "\x1b[0m"
	ansiRed     = "\x1b[1;31m"
	ansiGreen   = "\x1b[32m"
	ansiYellow  = "\x1b[1;33m"
	ansiCyan    = "\x1b[36m"
	ansiMagenta = "\x1b[1;35m"
)

func verdictColor(v conform.Verdict) string {
	switch v {
	case conform.Pass:
		return ansiGreen
	case conform.Fail:
		return ansiRed
	case conform.Warn, conform.Flaky, conform.NotTested:
		return ansiYellow
	case conform.HarnessError:
		return ansiMagenta
	}
	return ansiCyan
}

// text writes the text report; rows are cut at clip columns (0: never).
func text(w io.Writer, r *conform.Report, clip int, color bool) error {
	var b textBuf
	writeVerdict(&b, r)
	if l := NoMessageLine(r); l != "" {
		b.WriteString("\n" + wrap(l, Width, "", "  ") + "\n")
	}
	if c := r.Containment; c != nil && len(c.Refusals) > 0 {
		b.WriteString("\n" + wrap(RefusalsHead, Width, "", "  ") + "\n")
		for _, l := range c.Refusals {
			b.WriteString(wrap(l, Width, "  ", "    ") + "\n")
		}
	}
	for _, s := range harnessErrors(r) {
		b.WriteString("\n" + wrap(fmt.Sprintf("HARNESS ERROR in %s (not the agent's fault): %s", s.ID, s.HarnessError), Width, "", "  ") + "\n")
	}
	for _, e := range StaleEntries(r) {
		b.WriteString("\n" + wrap(staleText(r, e), Width, "", "  ") + "\n")
	}
	if fs := Failures(r); len(fs) > 0 {
		fmt.Fprintf(&b, "\nFAILURES (%d)\n", len(fs))
		for _, bl := range Blocks(fs) {
			writeProblem(&b, r, bl, clip)
		}
	}
	if as := Attention(r); len(as) > 0 {
		fmt.Fprintf(&b, "\nALSO WORTH READING (%d)\n", len(as))
		for _, bl := range Blocks(as) {
			writeProblem(&b, r, bl, clip)
		}
	}
	writeRest(&b, r, clip)
	if r.OutDir != "" {
		fmt.Fprintf(&b, "\ntranscripts: %s\n", r.OutDir)
	}
	b.WriteString(VerdictLine(r) + "\n")
	// What the implementation wrote (messages, expected and actual values,
	// lint findings of its output) reaches no terminal as control characters:
	// the lines are the report's own, every other control is escaped; the
	// colours come after.
	_, err := io.WriteString(w, b.render(color))
	return err
}

func staleText(r *conform.Report, e conform.KnownEntry) string {
	return fmt.Sprintf("STALE known-failing entry %s:%d %q (%s): every check it names now passes; remove the line",
		r.KnownFailing.File, e.Line, e.Pattern, e.Reason)
}

// writeVerdict is the head of the text report: verdict, counts, provenance.
func writeVerdict(b *textBuf, r *conform.Report) {
	state := State(r)
	b.WriteString(wrap(VerdictLine(r)+" — "+state, Width, "", "  ") + "\n")
	judged, total := Exercised(r)
	b.WriteString(wrap(fmt.Sprintf("%s; MUSTs exercised %d of %d", CountsLine(r), judged, total), Width, "", "  ") + "\n")
	if p := r.Provenance; p != nil {
		agent := fmt.Sprintf("%s (%s)", shortDigest(p.Agent.SHA256), filepath.Base(p.Agent.Executable))
		for _, f := range p.Agent.Files {
			// The script an interpreter ran is the agent as much as the interpreter.
			agent += fmt.Sprintf(" + %s (%s)", shortDigest(f.SHA256), f.Path)
		}
		b.WriteString(wrap(fmt.Sprintf("aopconform %s · suite %s (%d scenarios, %d checks) · agent %s · %s",
			p.Aopconform, shortDigest(p.Suite.Digest), p.Suite.Scenarios, p.Suite.Checks,
			agent, p.Platform), Width, "", "  ") + "\n")
	}
	if line := ContainmentLine(r); line != "" {
		b.WriteString(wrap(line, Width, "", "  ") + "\n")
	}
}

// NoMessageLine is the report's first line about an implementation that never
// sent a protocol message: how it ended (Containment.Exits); "" otherwise.
func NoMessageLine(r *conform.Report) string {
	if c := r.Containment; c != nil && c.Exits != "" {
		line := "NO PROTOCOL MESSAGE: the implementation never spoke; it ended with " + c.Exits
		if len(c.Errors) > 0 {
			return line + "; its stderr says: " + strings.Join(c.Errors, " / ") + " (the rest is in the transcripts)"
		}
		return line + " (its stderr is in the transcripts)"
	}
	return ""
}

// RefusalsHead introduces the lines in which the implementation reported a
// refused operation: the sandbox's refusals come first in every report.
const RefusalsHead = "SANDBOX: the implementation reported refused operations (if it needs them, allow them with --allow-read PATH or --allow-write PATH; docs/aopconform.md \"Containment\"):"

// ContainmentLine says what was enforced on the implementation on this machine
// and what could not be.
func ContainmentLine(r *conform.Report) string {
	c := r.Containment
	if c == nil {
		return ""
	}
	line := "containment: " + c.Mode
	if len(c.Enforced) > 0 {
		line += "; enforced: " + strings.Join(c.Enforced, ", ")
	}
	if len(c.Missing) > 0 {
		line += "; NOT enforced on this machine: " + strings.Join(c.Missing, "; ")
	}
	return line
}

func writeProblem(b *textBuf, r *conform.Report, bl Block, clip int) {
	res := bl.Result
	b.mark(1, res.Verdict) // after the newline
	b.WriteString("\n" + wrap(fmt.Sprintf("%s %s [%s %s] in %s", res.Verdict, res.Check, res.Level, res.Tier, strings.Join(bl.Scenarios(), ", ")), Width, "", "  ") + "\n")
	if req := requirementText(res); req != "" {
		b.WriteString(wrap(req, Width, "  requirement: ", "    ") + "\n")
	}
	vs := variants(bl)
	ind := ""
	if len(vs) > 1 {
		ind = "  "
	}
	for _, v := range vs {
		if len(vs) > 1 {
			b.WriteString(wrap("in "+strings.Join(v.Scenarios(), ", ")+":", Width, "  ", "    ") + "\n")
		}
		writeVariant(&b.Builder, r, v, clip, ind)
	}
	if res.Rerun != "" {
		fmt.Fprintf(b, "  rerun: %s\n", res.Rerun)
	}
}

// variants are the block's variants (the block itself when it has none).
func variants(bl Block) []Block {
	if len(bl.Variants) == 0 {
		return []Block{bl}
	}
	return bl.Variants
}

// writeVariant writes what the results of a variant say: message, facts, expected
// and actual values, lint findings, evidence.
func writeVariant(b *strings.Builder, r *conform.Report, bl Block, clip int, ind string) {
	res := bl.Result
	if m := shownMessage(res); m != "" {
		b.WriteString(wrap(m, Width, ind+"  ", ind+"    ") + "\n")
	}
	if fs := Facts(res); len(fs) > 0 {
		b.WriteString(wrap(strings.Join(fs, "; "), Width, ind+"  ", ind+"    ") + "\n")
	}
	if res.Expected != "" || res.Actual != "" {
		exp, act, mode := compare(res.Expected, res.Actual)
		if mode == diffLines {
			b.WriteString(ind + "  expected (-) vs actual (+):\n")
			for _, l := range lineDiff(exp, act) {
				b.WriteString(cutRow(ind+"    "+string(l.Op)+" "+l.Text, clip) + "\n")
			}
		} else {
			b.WriteString(wrap(oneLine(exp), Width, ind+"  expected: ", ind+"            ") + "\n")
			b.WriteString(wrap(oneLine(act), Width, ind+"  actual:   ", ind+"            ") + "\n")
		}
	}
	for _, l := range res.Lint {
		b.WriteString(wrap(fmt.Sprintf("lint %s %s (record %d): %s", l.Severity, l.Rule, l.Seq, l.Message), Width, ind+"  ", ind+"    ") + "\n")
	}
	for _, m := range bl.Members {
		if len(m.Evidence) > 0 {
			b.WriteString(wrap(fmt.Sprintf("evidence: records %s of %s", seqList(m.Evidence), transcriptOf(r, m.Scenario)), Width, ind+"  ", ind+"    ") + "\n")
		}
	}
}

// cutRow is a one-line row cut at clip columns (0: kept whole, on one line).
func cutRow(s string, clip int) string {
	if clip <= 0 {
		clip = math.MaxInt32
	}
	return clipLine(s, clip)
}

func oneLine(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}

// writeRest lists the other checks by family, one line each; SKIP rows are
// counted, not listed.
func writeRest(b *textBuf, r *conform.Report, clip int) {
	fams := Rest(r)
	if len(fams) == 0 {
		return
	}
	checkW := 0
	for _, f := range fams {
		for _, res := range f.Results {
			if n := len([]rune(res.Check)); n > checkW {
				checkW = n
			}
		}
	}
	if checkW > 44 {
		checkW = 44
	}
	b.WriteString("\nOTHER CHECKS BY FAMILY\n")
	skipped := 0
	for _, f := range fams {
		type restRow struct {
			text string
			v    conform.Verdict
		}
		var rows []restRow
		for _, res := range f.Results {
			if res.Verdict == conform.Skip {
				skipped++
				continue
			}
			verdict := string(res.Verdict)
			if res.Runs > 1 {
				verdict += fmt.Sprintf(" %d/%d", res.Passed, res.Runs) // pass rate over the runs
			}
			row := fmt.Sprintf("  %-14s %-*s %-6s %-9s %s", verdict, checkW, clipLine(res.Check, checkW), res.Level, res.Tier, res.Scenario)
			if m := rowMessage(res); m != "" {
				row += "  " + m
			}
			rows = append(rows, restRow{cutRow(row, clip), res.Verdict})
		}
		if len(rows) == 0 {
			continue
		}
		b.WriteString(f.Name + "\n")
		for _, row := range rows {
			b.mark(2, row.v)
			b.WriteString(row.text + "\n")
		}
	}
	if skipped > 0 {
		fmt.Fprintf(b, "(%d deselected checks, SKIP, not listed)\n", skipped)
	}
}

// requirementText is "requirement (spec section)", either part left out when empty.
func requirementText(res conform.Result) string {
	switch {
	case res.Spec == "":
		return res.Requirement
	case res.Requirement == "":
		return "(" + res.Spec + ")"
	}
	return res.Requirement + " (" + res.Spec + ")"
}

// rowMessage is a result's message as a one-line row shows it: a NOT-JUDGED result
// names the check it depends on first (the rest of its message is in JSON).
func rowMessage(res conform.Result) string {
	if res.Verdict == conform.NotJudged && res.DependsOn != "" {
		why, ok := strings.CutPrefix(res.Message, "not judged: depends on "+res.DependsOn+" (")
		if ok {
			why = strings.TrimSuffix(why, ")")
		}
		return "depends on " + res.DependsOn + ": " + why
	}
	return res.Message
}
