package requirements

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Filter selects requirements: Protocol "" is every protocol; Side "agent" keeps
// what binds an agent (and messages), "orchestrator" what binds an orchestrator
// (and messages); "" keeps all.
type Filter struct{ Protocol, Side string }

// Keep reports whether f selects r.
func (f Filter) Keep(r Requirement) bool {
	if f.Protocol != "" && r.Protocol != f.Protocol {
		return false
	}
	return f.Side == "" || r.Side == f.Side || r.Side == SideMessage
}

// Select returns the requirements f keeps.
func Select(reqs []Requirement, f Filter) []Requirement {
	var out []Requirement
	for _, r := range reqs {
		if f.Keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Row counts the requirements of one section. A requirement counts once in each
// column of enforcers it has (Lint, Agent, Orch); Enforced counts it once.
type Row struct {
	Protocol, Section                  string
	Total, Lint, Agent, Orch, Enforced int
	Waived, Gap, Open                  int
	MustTotal, MustEnforced            int
}

// Coverage counts reqs per protocol and section, in the order of the data, with
// one total row per protocol (Section "") after its sections.
func Coverage(reqs []Requirement) []Row {
	var rows []Row
	index := map[string]int{}
	totals := map[string]*Row{}
	var order []string
	add := func(row *Row, r Requirement) {
		row.Total++
		if len(r.Rules) > 0 {
			row.Lint++
		}
		if len(r.AgentChecks()) > 0 {
			row.Agent++
		}
		if len(r.OrchChecks()) > 0 {
			row.Orch++
		}
		switch r.Status() {
		case "enforced":
			row.Enforced++
		case "waived":
			row.Waived++
		case "gap":
			row.Gap++
		default:
			row.Open++
		}
		if r.Level == MUST {
			row.MustTotal++
			if r.Enforced() {
				row.MustEnforced++
			}
		}
	}
	for _, r := range reqs {
		k := r.Protocol + "\x00" + r.Section
		i, ok := index[k]
		if !ok {
			i = len(rows)
			index[k] = i
			rows = append(rows, Row{Protocol: r.Protocol, Section: r.Section})
		}
		add(&rows[i], r)
		if totals[r.Protocol] == nil {
			totals[r.Protocol] = &Row{Protocol: r.Protocol}
			order = append(order, r.Protocol)
		}
		add(totals[r.Protocol], r)
	}
	var out []Row
	for _, p := range order {
		for _, row := range rows {
			if row.Protocol == p {
				out = append(out, row)
			}
		}
		out = append(out, *totals[p])
	}
	return out
}

// Sum adds rows (the per-protocol totals of Coverage) into one.
func Sum(rows []Row) Row {
	var t Row
	for _, r := range rows {
		if r.Section != "" {
			continue
		}
		t.Total += r.Total
		t.Lint += r.Lint
		t.Agent += r.Agent
		t.Orch += r.Orch
		t.Enforced += r.Enforced
		t.Waived += r.Waived
		t.Gap += r.Gap
		t.Open += r.Open
		t.MustTotal += r.MustTotal
		t.MustEnforced += r.MustEnforced
	}
	return t
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(d))
}

// WriteText writes the coverage table for a terminal.
func WriteText(w io.Writer, reqs []Requirement) error {
	rows := Coverage(reqs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROTOCOL\tSECTION\tREQS\tLINT\tAGENT\tORCH\tWAIVED\tGAP\tOPEN\tENFORCED")
	for _, r := range rows {
		sec := r.Section
		if sec == "" {
			sec = "(all)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", r.Protocol, clip(sec, 40), r.Total, r.Lint, r.Agent, r.Orch, r.Waived, r.Gap, r.Open, pct(r.Enforced, r.Total))
	}
	t := Sum(rows)
	fmt.Fprintf(tw, "total\t\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", t.Total, t.Lint, t.Agent, t.Orch, t.Waived, t.Gap, t.Open, pct(t.Enforced, t.Total))
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "MUST requirements enforced: %d/%d; registry %s\n", t.MustEnforced, t.MustTotal, Digest())
	return err
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// jsonReq is one requirement of `aopconform coverage --format json`: the
// requirement and its status.
type jsonReq struct {
	Requirement
	Status string `json:"status"`
}

// WriteJSON writes {"digest", "requirements":[...]}; rules and checks are never
// null.
func WriteJSON(w io.Writer, reqs []Requirement) error {
	out := struct {
		Digest       string    `json:"digest"`
		Requirements []jsonReq `json:"requirements"`
	}{Digest: Digest(), Requirements: []jsonReq{}}
	for _, r := range reqs {
		r.Rules, r.Checks = append([]string{}, r.Rules...), append([]string{}, r.Checks...)
		out.Requirements = append(out.Requirements, jsonReq{r, r.Status()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteMarkdown writes the coverage per section, then every requirement that is
// waived (with its reason) or open.
func WriteMarkdown(w io.Writer, reqs []Requirement) error {
	var b strings.Builder
	rows := Coverage(reqs)
	t := Sum(rows)
	fmt.Fprintf(&b, "%d requirements; enforced %d (%s), waived %d, known gaps %d, open %d; MUST enforced %d/%d.\n\n", t.Total, t.Enforced, pct(t.Enforced, t.Total), t.Waived, t.Gap, t.Open, t.MustEnforced, t.MustTotal)
	b.WriteString("| protocol | section | requirements | lint | agent checks | orchestrator checks | waived | gap | open |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		sec := "**all**"
		if r.Section != "" {
			sec = mdEscape(r.Section)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", r.Protocol, sec, r.Total, r.Lint, r.Agent, r.Orch, r.Waived, r.Gap, r.Open)
	}
	b.WriteString("\n### Waived requirements, known gaps and open requirements\n\nA waiver starting with `gap:` is no excuse: the requirement can be tested and is not yet.\n\n| requirement | level | side | text | why |\n|---|---|---|---|---|\n")
	for _, r := range reqs {
		if r.Enforced() {
			continue
		}
		why := r.Waiver
		if why == "" {
			why = "**open**"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.ID, r.Level, r.Side, mdEscape(clip(r.Text, 120)), mdEscape(why))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "`", "'")
}

// Doc is docs/coverage.md: what the registry is, and the Markdown coverage of
// every requirement.
func Doc() ([]byte, error) {
	reqs, err := All()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(`# Requirement coverage

<!-- Generated by go test ./conform/requirements -u (aopconform coverage --format md); do not edit. -->

Every requirement of the five specifications (docs/specs.md) is one entry of the
registry in ` + "`conform/requirements/data/<protocol>.json`" + `: a stable ID
(` + "`aop2/§6.1/interval`" + `), its section, the sentence or table row quoted word for word,
its level (MUST, SHOULD or MAY: ` + "`as_written`" + ` when the spec says so, ` + "`implied`" + `
when a table, a limit, a template or an example implies it), the side it binds
(agent, orchestrator — for aos the guardian, for aof the dispatcher and router — or
the message whoever sends it) and what enforces it: lint rules, agent-side checks,
orchestrator-side checks — or a waiver with its reason. A waiver that starts with
` + "`gap:`" + ` is no excuse: the requirement can be tested and is not yet.

The gate (` + "`go test ./conform/requirements`" + `) fails when a requirement has neither
an enforcer nor a waiver, when an enforcer it names does not exist, when a rule was
never seen failing on an invalid fixture or a check under a fault (the fault matrix
of docs/aopconform.md, the orchestrator-side faults of docs/orchestrator-side.md),
and when a check cites (` + "`Check.Requires`" + `) a requirement the registry does not hold.
` + "`aopconform coverage`" + ` prints this table; ` + "`--format json`" + ` every requirement.

Registry digest: ` + "`" + Digest() + "`" + `

`)
	if err := WriteMarkdown(&b, reqs); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// RunCoverage is how many requirements of a run's protocol and side its passing
// checks enforce: Covered of Total (the requirements of the protocol binding the
// side, messages included). A requirement counts when one of its checks of that
// side passed, or, on the agent side, when it has a lint rule and the run's
// "<protocol>/lint/messages-valid" check passed.
type RunCoverage struct {
	Protocol, Side string
	Covered, Total int
	// CoveredIDs and Uncovered name the requirements, sorted: what the run
	// covers and what it does not (failed, not run, waived).
	CoveredIDs, Uncovered []string
}

// CoverageOfRun computes RunCoverage from the checks that passed (every result of
// the check a PASS).
func CoverageOfRun(protocol, side string, passed map[string]bool) (RunCoverage, error) {
	all, err := All()
	if err != nil {
		return RunCoverage{}, err
	}
	rc := RunCoverage{Protocol: protocol, Side: side}
	orch := side == SideOrchestrator
	lintClean := !orch && passed[protocol+"/lint/messages-valid"]
	for _, r := range Select(all, Filter{Protocol: protocol, Side: side}) {
		rc.Total++
		covered := lintClean && len(r.Rules) > 0
		for _, c := range r.Checks {
			if IsOrchCheck(c) == orch && passed[c] {
				covered = true
			}
		}
		if covered {
			rc.Covered++
			rc.CoveredIDs = append(rc.CoveredIDs, r.ID)
		} else {
			rc.Uncovered = append(rc.Uncovered, r.ID)
		}
	}
	sort.Strings(rc.CoveredIDs)
	sort.Strings(rc.Uncovered)
	return rc, nil
}
