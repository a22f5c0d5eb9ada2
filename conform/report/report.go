// Package report writes an aopconform run as a terminal report, JSON, JUnit XML,
// Markdown or one self-contained HTML page. One file per format; this file holds
// what the human-readable formats share: the verdict, the order (verdict, failures,
// the rest by family) and how values and harness events are written.
package report

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/knownfail"
)

// Width is the terminal width the text and Markdown reports fit.
const Width = 100

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

// verdictOrder is the order verdicts are counted and listed in.
var verdictOrder = []conform.Verdict{
	conform.Pass, conform.Fail, conform.Warn, conform.NotTested, conform.NotApplicable,
	conform.Flaky, conform.NotJudged, conform.Known, conform.HarnessError, conform.Skip,
}

// Count is how many results have one verdict.
type Count struct {
	Verdict conform.Verdict
	N       int
}

// Counts counts the results by verdict, in verdictOrder; PASS, FAIL, WARN,
// NOT-TESTED and SKIP are always listed, the others only when present.
func Counts(r *conform.Report) []Count {
	n := map[conform.Verdict]int{}
	for _, res := range r.Results {
		n[res.Verdict]++
	}
	var out []Count
	for _, v := range verdictOrder {
		switch v {
		case conform.Pass, conform.Fail, conform.Warn, conform.NotTested, conform.Skip:
		default:
			if n[v] == 0 {
				continue
			}
		}
		out = append(out, Count{v, n[v]})
		delete(n, v)
	}
	var rest []string
	for v := range n {
		rest = append(rest, string(v))
	}
	sort.Strings(rest)
	for _, v := range rest {
		out = append(out, Count{conform.Verdict(v), n[conform.Verdict(v)]})
	}
	return out
}

// CountsLine is "45 PASS, 5 FAIL, ...".
func CountsLine(r *conform.Report) string {
	var parts []string
	for _, c := range Counts(r) {
		parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Verdict))
	}
	return strings.Join(parts, ", ")
}

// LevelName is the level reached, "none" when none was.
func LevelName(s conform.Score) string {
	if s.Level == "" {
		return "none"
	}
	return string(s.Level)
}

// VerdictLine is the one-line verdict of a run: rates and level.
func VerdictLine(r *conform.Report) string {
	s := r.Score
	return fmt.Sprintf("%s: MUST %d/%d (%s), %s, level %s",
		r.Protocol, s.MustPassed, s.MustTotal, pct(s.MustRate), ShouldText(r), LevelName(s))
}

// SummaryLine is the verdict line followed by the counts.
func SummaryLine(r *conform.Report) string {
	line := VerdictLine(r) + " — " + CountsLine(r)
	if r.HarnessErrors > 0 {
		line += fmt.Sprintf("; %d HARNESS ERROR(S)", r.HarnessErrors)
	}
	return line
}

// Exercised counts the selected MUST results that judged the agent
// (conform.Exercised: not NOT-APPLICABLE, NOT-TESTED, NOT-JUDGED or
// HARNESS-ERROR) out of every selected MUST result: "MUSTs exercised N of M",
// the same count as the harness's score.
func Exercised(r *conform.Report) (exercised, selected int) {
	for _, res := range r.Results {
		if res.Level != conform.MUST || res.Verdict == conform.Skip {
			continue
		}
		selected++
		if conform.Exercised(res.Verdict) {
			exercised++
		}
	}
	return exercised, selected
}

// ShouldText is the SHOULD part of the score line: "SHOULD 2/3 (66.7%)", or,
// when no SHOULD result counts, that there is none ("no SHOULD checks", or "no
// SHOULD check applicable" when every selected one was NOT-APPLICABLE) instead
// of "SHOULD 0/0 (0.0%)".
func ShouldText(r *conform.Report) string {
	s := r.Score
	if s.ShouldTotal > 0 {
		return fmt.Sprintf("SHOULD %d/%d (%s)", s.ShouldPassed, s.ShouldTotal, pct(s.ShouldRate))
	}
	for _, res := range r.Results {
		if res.Level == conform.SHOULD && res.Verdict != conform.Skip {
			return "no SHOULD check applicable"
		}
	}
	return "no SHOULD checks"
}

// Failed reports whether the run failed, as its exit code says: a harness error, a
// stale known-failing entry, or a MUST that did not pass and is not a known failure
// (the score of the other results, conform.ScoreResults, decides).
func Failed(r *conform.Report) bool {
	return r.HarnessErrors > 0 || len(StaleEntries(r)) > 0 || knownfail.MustFailed(r)
}

// State is the run's outcome in a word, as its exit code says: FAILED (exit 1:
// a MUST the agent failed, or a stale known-failing entry, whatever else
// happened), HARNESS ERROR (exit 2: only the harness failed, never the agent's
// failure), else PASSED.
func State(r *conform.Report) string {
	switch {
	case len(StaleEntries(r)) > 0 || knownfail.MustFailed(r):
		return "FAILED"
	case r.HarnessErrors > 0:
		return "HARNESS ERROR"
	}
	return "PASSED"
}

// StaleEntries are the known-failing entries whose checks now pass.
func StaleEntries(r *conform.Report) []conform.KnownEntry {
	if r.KnownFailing == nil {
		return nil
	}
	var out []conform.KnownEntry
	for _, e := range r.KnownFailing.Entries {
		if e.Stale {
			out = append(out, e)
		}
	}
	return out
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

// isFailure: the agent failed a MUST (FAIL, or NOT-TESTED of a MUST: it never
// counts as a pass) or any FAIL of a SHOULD.
func isFailure(res conform.Result) bool {
	switch res.Verdict {
	case conform.Fail:
		return true
	case conform.NotTested:
		return res.Level == conform.MUST
	}
	return false
}

// needsAttention: worth reading but not a failure of the agent: WARN, FLAKY, KNOWN,
// a check the harness could not judge (HARNESS-ERROR: the harness's problem), and
// NOT-TESTED of a SHOULD or MAY.
func needsAttention(res conform.Result) bool {
	switch res.Verdict {
	case conform.Warn, conform.Flaky, conform.Known, conform.HarnessError:
		return true
	case conform.NotTested:
		return res.Level != conform.MUST
	}
	return false
}

// Failures returns the failing results (FAIL, NOT-TESTED of a MUST), sorted by
// rank (MUST first), check and scenario.
func Failures(r *conform.Report) []conform.Result {
	return pick(r, isFailure)
}

// Attention returns WARN, FLAKY, KNOWN, HARNESS-ERROR and the NOT-TESTED of
// SHOULD/MAY checks, sorted like Failures.
func Attention(r *conform.Report) []conform.Result {
	return pick(r, needsAttention)
}

func pick(r *conform.Report, keep func(conform.Result) bool) []conform.Result {
	var out []conform.Result
	for _, res := range r.Results {
		if keep(res) {
			out = append(out, res)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := rank(out[i]), rank(out[j]); a != b {
			return a < b
		}
		if out[i].Check != out[j].Check {
			return out[i].Check < out[j].Check
		}
		return out[i].Scenario < out[j].Scenario
	})
	return out
}

func rank(res conform.Result) int {
	lv := 0
	if res.Level != conform.MUST {
		lv = 1
	}
	switch res.Verdict {
	case conform.Fail:
		return 0 + lv
	case conform.NotTested:
		return 3 + lv
	case conform.Warn:
		return 5
	case conform.Flaky:
		return 6
	case conform.HarnessError:
		return 7
	case conform.Known:
		return 8
	}
	return 9
}

// Block is one problem as the human-readable reports print it: the results of one
// check with the same verdict, level and tier in several scenarios, printed once
// and naming every scenario (a fault that breaks a check in six scenarios is one
// block, not six). Its Variants group the results by what they say (message,
// expected and actual values, lint findings, facts): one variant when every
// scenario broke the check the same way, else each is printed with its scenarios.
type Block struct {
	conform.Result                  // the first of them
	Members        []conform.Result // every one, the first included, in report order
	// Variants are the members grouped by what they say, in report order; a
	// variant's own Variants are nil.
	Variants []Block
}

// Scenarios names the scenarios of the block's results.
func (b Block) Scenarios() []string {
	out := make([]string, len(b.Members))
	for i, m := range b.Members {
		out[i] = m.Scenario
	}
	return out
}

// Blocks groups results (as Failures or Attention return them) into blocks, one
// per check, verdict, level and tier, in the order of each block's first result.
func Blocks(rs []conform.Result) []Block {
	var out []Block
	at := map[string]int{}
	variant := map[string]int{}
	for _, res := range rs {
		k := strings.Join([]string{res.Check, string(res.Verdict), string(res.Level), string(res.Tier), res.Rerun}, "\x00")
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Block{Result: res})
		}
		b := &out[i]
		b.Members = append(b.Members, res)
		vk := k + "\x01" + blockKey(res)
		if j, ok := variant[vk]; ok {
			b.Variants[j].Members = append(b.Variants[j].Members, res)
			continue
		}
		variant[vk] = len(b.Variants)
		b.Variants = append(b.Variants, Block{Result: res, Members: []conform.Result{res}})
	}
	return out
}

// shownMessage is a result's message as a problem block prints it: none when it
// only restates the first of the lint findings the block lists anyway.
func shownMessage(res conform.Result) string {
	if len(res.Lint) > 0 && res.Message == conform.LintMessage(res.Lint) {
		return ""
	}
	return res.Message
}

func blockKey(res conform.Result) string {
	parts := []string{res.Check, string(res.Verdict), string(res.Level), string(res.Tier), res.Message, res.Expected, res.Actual, res.Rerun}
	for _, l := range res.Lint {
		parts = append(parts, fmt.Sprintf("%d %s %s %s", l.Seq, l.Rule, l.Severity, l.Message))
	}
	parts = append(parts, Facts(res)...)
	return strings.Join(parts, "\x00")
}

// Facts are what every report says about a result besides its message: its pass
// rate when the scenario ran more than once (--repeat, a confirmation run), a
// timing check's measurement against its limit (the margin of a FLAKY verdict), and
// the harness's own lateness when the verdict is FLAKY or HARNESS-ERROR (the
// machine, not the agent).
func Facts(res conform.Result) []string {
	var out []string
	if res.Runs > 1 {
		out = append(out, fmt.Sprintf("passed %d of %d runs", res.Passed, res.Runs))
	}
	if res.MarginMS != nil {
		m := *res.MarginMS
		side := "over"
		if m <= 0 {
			side, m = "within", -m
		}
		out = append(out, fmt.Sprintf("measured %s against a limit of %s: %s %s it", ms(res.MeasuredMS), ms(res.LimitMS), ms(m), side))
	}
	if (res.Verdict == conform.HarnessError || res.Verdict == conform.Flaky) && res.SlipMS > 0 {
		out = append(out, fmt.Sprintf("harness timers late by up to %s", ms(res.SlipMS)))
	}
	return out
}

func ms(n int64) string { return (time.Duration(n) * time.Millisecond).String() }

// Family is the results of one family that are neither failures nor worth reading
// on their own: the passes, the skipped, the not applicable, the not judged.
type Family struct {
	Name    string
	Results []conform.Result
}

// Rest groups the remaining results by family (families sorted, results by check
// then scenario, as in the report).
func Rest(r *conform.Report) []Family {
	by := map[string][]conform.Result{}
	for _, res := range r.Results {
		if isFailure(res) || needsAttention(res) {
			continue
		}
		f := res.Family
		if f == "" {
			f = "other"
		}
		by[f] = append(by[f], res)
	}
	var out []Family
	for name, rs := range by {
		out = append(out, Family{name, rs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
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

// transcriptOf names where a scenario's records are: its transcript file, or the
// scenario when it wrote none.
func transcriptOf(r *conform.Report, scenario string) string {
	for _, s := range r.Scenarios {
		if s.ID == scenario && s.Transcript != "" {
			return s.Transcript
		}
	}
	return "scenario " + scenario
}

// seqList writes record numbers as "3, 7".
func seqList(seqs []int) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}

// shortDigest is "sha256:1234abcd5678" (12 hex digits) for one-line summaries.
func shortDigest(d string) string {
	d = strings.TrimPrefix(d, "sha256:")
	if len(d) > 12 {
		d = d[:12]
	}
	if d == "" {
		return "unknown"
	}
	return "sha256:" + d
}
