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
func Text(w io.Writer, r *conform.Report) error { return text(w, r, Width) }

// TextUncut is Text for a file or a pipe (a CI log): the one-line rows (the
// other checks by family, a diff's lines) are kept whole instead of cut at
// Width columns, so that nothing of a check's message is lost.
func TextUncut(w io.Writer, r *conform.Report) error { return text(w, r, 0) }

// text writes the text report; rows are cut at clip columns (0: never).
func text(w io.Writer, r *conform.Report, clip int) error {
	var b strings.Builder
	writeVerdict(&b, r)
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
	// the lines are the report's own, every other control is escaped.
	_, err := io.WriteString(w, safetext.Block(b.String()))
	return err
}

func staleText(r *conform.Report, e conform.KnownEntry) string {
	return fmt.Sprintf("STALE known-failing entry %s:%d %q (%s): every check it names now passes; remove the line",
		r.KnownFailing.File, e.Line, e.Pattern, e.Reason)
}

// writeVerdict is the head of the text report: verdict, counts, provenance.
func writeVerdict(b *strings.Builder, r *conform.Report) {
	state := State(r)
	b.WriteString(wrap(VerdictLine(r)+" — "+state, Width, "", "  ") + "\n")
	judged, total := Exercised(r)
	b.WriteString(wrap(fmt.Sprintf("%s; MUSTs exercised %d of %d", CountsLine(r), judged, total), Width, "", "  ") + "\n")
	if p := r.Provenance; p != nil {
		b.WriteString(wrap(fmt.Sprintf("aopconform %s · suite %s (%d scenarios, %d checks) · agent %s (%s) · %s",
			p.Aopconform, shortDigest(p.Suite.Digest), p.Suite.Scenarios, p.Suite.Checks,
			shortDigest(p.Agent.SHA256), filepath.Base(p.Agent.Executable), p.Platform), Width, "", "  ") + "\n")
	}
	if line := ContainmentLine(r); line != "" {
		b.WriteString(wrap(line, Width, "", "  ") + "\n")
	}
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

func writeProblem(b *strings.Builder, r *conform.Report, bl Block, clip int) {
	res := bl.Result
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
		writeVariant(b, r, v, clip, ind)
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
func writeRest(b *strings.Builder, r *conform.Report, clip int) {
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
		var rows []string
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
			rows = append(rows, cutRow(row, clip))
		}
		if len(rows) == 0 {
			continue
		}
		b.WriteString(f.Name + "\n")
		for _, row := range rows {
			b.WriteString(row + "\n")
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
