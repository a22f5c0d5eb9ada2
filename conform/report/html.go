package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/internal/safetext"
)

// maxHTMLRecords bounds the transcript records shown per scenario; maxHTMLMsg the
// characters of one pretty-printed message.
const (
	maxHTMLRecords = conform.KeptRecords // the runner keeps no more in memory
	maxHTMLMsg     = 8000
	// foldLines: a message of more lines is folded (a <details> element, open
	// when a failure cites the record).
	foldLines = 14
)

// htmlCard is one failure (or finding worth reading) as the page shows it.
type htmlCard struct {
	ID        string // anchor
	Res       conform.Result
	Scenarios []htmlLink // the block's scenarios (Block)
	Class     string     // verdict class
	Parts     []htmlPart // the block's variants: one, or each with its scenarios
}

// htmlPart is what the results of a variant of a card say (Block.Variants).
type htmlPart struct {
	Res       conform.Result
	Scenarios []htmlLink // the variant's scenarios when the card has several
	Facts     []string   // pass rate, margin, harness lateness (Facts)
	Mode      string     // "lines", "chars" or "" (side by side only)
	Expected  template.HTML
	Actual    template.HTML
	Evidence  []htmlLink
	Lint      []htmlLint
}

type htmlLink struct {
	Href  string
	Label string
}

type htmlLint struct {
	conform.LintFinding
	Href string
}

type htmlRecord struct {
	ID      string
	Seq     int
	Offset  string
	From    string
	Stream  string
	Event   string
	Detail  string
	Pre     string // message (pretty JSON) or text
	Summary string // one line of a long Pre, shown while it is folded
	Class   string
	Refs    []htmlLink // failure cards that cite this record
	Clipped bool
}

type htmlScenario struct {
	conform.ScenarioRun
	Anchor  string
	Open    bool
	Records []htmlRecord
	Clipped int
	Verdict string // worst verdict class of its results
}

type htmlFamily struct {
	Name    string
	Results []htmlRow
}

type htmlRow struct {
	conform.Result
	Class    string
	ScenAnch string
	Facts    string
}

type htmlPageData struct {
	R           *conform.Report
	Failed      bool
	State       string // State(r)
	Level       string
	Judged      int
	Total       int
	Counts      []Count
	Failures    []htmlCard
	NFailures   int // results (a card may hold several scenarios' results)
	NAttention  int
	Attention   []htmlCard
	Families    []htmlFamily
	Scenarios   []htmlScenario
	Provenance  [][2]string
	Stale       []string
	HarnessErrs []conform.ScenarioRun
	// RefusalsHead introduces the sandbox's refusals (text.go).
	RefusalsHead string
	// NoMessage is NoMessageLine (text.go).
	NoMessage string
}

// anchor makes an id fragment of s: s itself when it is lower-case letters, digits
// and '-', else those characters with a hash of s (two IDs never share an anchor).
func anchor(s string) string {
	a := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(s))
	if a == s {
		return a
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%s-%08x", a, h.Sum32())
}

func verdictClass(v conform.Verdict) string { return anchor(strings.ToLower(string(v))) }

func recordAnchor(scenario string, seq int) string {
	return fmt.Sprintf("t-%s-%d", anchor(scenario), seq)
}

var htmlFuncs = template.FuncMap{"join": strings.Join, "pct": pct, "vclass": verdictClass, "anchor": anchor, "shouldText": ShouldText}

// HTML writes one self-contained page (no script, no external resource, printable):
// a verdict banner, the failures first — each with the quoted requirement, its spec
// section, labelled expected and actual blocks, the evidence linked to the
// highlighted transcript records and the rerun command —, what else is worth
// reading, the other checks by family, the provenance, then every scenario's
// transcript with harness events as readable rows.
func HTML(w io.Writer, r *conform.Report) error {
	d := htmlPageData{R: r, Failed: Failed(r), State: State(r), Level: LevelName(r.Score), Counts: Counts(r), Provenance: provenanceRows(r), HarnessErrs: harnessErrors(r), RefusalsHead: RefusalsHead, NoMessage: NoMessageLine(r)}
	d.Judged, d.Total = Exercised(r)
	for _, e := range StaleEntries(r) {
		d.Stale = append(d.Stale, staleText(r, e))
	}
	shown := map[string]bool{} // anchors of the transcript records on the page
	for _, s := range r.Scenarios {
		for i, rec := range s.Records {
			if i >= maxHTMLRecords {
				break
			}
			shown[recordAnchor(s.ID, rec.Seq)] = true
		}
	}
	refs := map[string][]htmlLink{} // record anchor → cards citing it
	makeCards := func(rs []conform.Result, prefix string) []htmlCard {
		var out []htmlCard
		for i, bl := range Blocks(rs) {
			res := bl.Result
			c := htmlCard{ID: fmt.Sprintf("%s-%d", prefix, i+1), Res: res, Class: verdictClass(res.Verdict)}
			// cite links a record of a scenario when the page shows it ("" when it
			// does not).
			cite := func(scenario string, seq int) string {
				a := recordAnchor(scenario, seq)
				if !shown[a] {
					return ""
				}
				refs[a] = append(refs[a], htmlLink{"#" + c.ID, string(res.Verdict) + " " + res.Check})
				return "#" + a
			}
			for _, m := range bl.Members {
				c.Scenarios = append(c.Scenarios, htmlLink{"#s-" + anchor(m.Scenario), m.Scenario})
			}
			vs := variants(bl)
			for _, v := range vs {
				p := htmlPart{Res: v.Result, Facts: Facts(v.Result)}
				p.Res.Message = shownMessage(v.Result)
				p.Mode, p.Expected, p.Actual = htmlCompare(v.Expected, v.Actual)
				for _, m := range v.Members {
					if len(vs) > 1 {
						p.Scenarios = append(p.Scenarios, htmlLink{"#s-" + anchor(m.Scenario), m.Scenario})
					}
					for _, seq := range m.Evidence {
						p.Evidence = append(p.Evidence, htmlLink{cite(m.Scenario, seq), fmt.Sprintf("record %d of %s", seq, transcriptOf(r, m.Scenario))})
					}
				}
				// The lint findings are the same in every member of a variant
				// (Blocks): cited in its first scenario.
				for _, l := range v.Lint {
					p.Lint = append(p.Lint, htmlLint{l, cite(v.Scenario, l.Seq)})
				}
				c.Parts = append(c.Parts, p)
			}
			out = append(out, c)
		}
		return out
	}
	d.Failures = makeCards(Failures(r), "f")
	d.Attention = makeCards(Attention(r), "a")
	d.NFailures, d.NAttention = len(Failures(r)), len(Attention(r))
	for _, f := range Rest(r) {
		hf := htmlFamily{Name: f.Name}
		for _, res := range f.Results {
			hf.Results = append(hf.Results, htmlRow{res, verdictClass(res.Verdict), "s-" + anchor(res.Scenario), strings.Join(Facts(res), "; ")})
		}
		d.Families = append(d.Families, hf)
	}
	worst := map[string]string{}
	for _, res := range r.Results {
		if isFailure(res) {
			worst[res.Scenario] = "fail"
		} else if needsAttention(res) && worst[res.Scenario] == "" {
			worst[res.Scenario] = "warn"
		}
	}
	for _, s := range r.Scenarios {
		hs := htmlScenario{ScenarioRun: s, Anchor: "s-" + anchor(s.ID), Verdict: worst[s.ID]}
		hs.Open = hs.Verdict == "fail" || s.HarnessError != ""
		var t0 time.Time
		for i, rec := range s.Records {
			if i >= maxHTMLRecords {
				hs.Clipped = max(s.RecordCount, len(s.Records)) - maxHTMLRecords
				break
			}
			hr := htmlRecord{ID: recordAnchor(s.ID, rec.Seq), Seq: rec.Seq, From: string(rec.From), Class: anchor(string(rec.From)), Stream: rec.Stream}
			if at, err := time.Parse(conform.TimeFormat, rec.At); err == nil {
				if t0.IsZero() {
					t0 = at
				}
				hr.Offset = fmt.Sprintf("+%.3f s", at.Sub(t0).Seconds())
			} else {
				hr.Offset = rec.At
			}
			switch {
			case rec.Event != "":
				hr.Event = string(rec.Event)
				if full := EventText(rec.Event, rec.Detail); len(full) > len(rec.Event) {
					hr.Detail = strings.TrimPrefix(full, hr.Event+" — ")
				}
			case rec.Msg != nil:
				var b bytes.Buffer
				if json.Indent(&b, rec.Msg, "", "  ") == nil {
					hr.Pre = b.String()
				} else {
					hr.Pre = string(rec.Msg)
				}
			case rec.Text != nil:
				hr.Pre = *rec.Text
			}
			if strings.Count(hr.Pre, "\n") >= foldLines {
				hr.Summary = clipLine(recordText(rec), 90)
			}
			if len(hr.Pre) > maxHTMLMsg {
				hr.Pre = fmt.Sprintf("%s… (%d bytes in all)", hr.Pre[:maxHTMLMsg], len(hr.Pre))
			}
			if hr.Refs = refs[hr.ID]; len(hr.Refs) > 0 {
				hr.Class += " hl"
			}
			hs.Records = append(hs.Records, hr)
		}
		d.Scenarios = append(d.Scenarios, hs)
	}
	// html/template escapes markup; control characters of what the
	// implementation wrote are escaped visibly too (safetext), as in the text
	// report: the page is read in terminals and editors as well as browsers.
	var page bytes.Buffer
	if err := htmlPage.Execute(&page, d); err != nil {
		return err
	}
	_, err := io.WriteString(w, safetext.Block(page.String()))
	return err
}

// htmlCompare renders expected and actual for the labelled blocks: structured
// values (pretty-printed JSON, several lines) with the lines that differ marked,
// two short values of the same kind with the characters that differ marked, and
// anything else (two sentences) as they are.
func htmlCompare(expected, actual string) (mode string, exp, act template.HTML) {
	e, a, m := compare(expected, actual)
	esc := template.HTMLEscapeString
	switch m {
	case diffLines:
		var eb, ab strings.Builder
		for _, l := range lineDiff(e, a) {
			line := esc(l.Text) + "\n"
			switch l.Op {
			case '-':
				eb.WriteString(`<del class="line">` + line + `</del>`)
			case '+':
				ab.WriteString(`<ins class="line">` + line + `</ins>`)
			default:
				eb.WriteString(line)
				ab.WriteString(line)
			}
		}
		return "lines", template.HTML(eb.String()), template.HTML(ab.String())
	case diffChars:
		var eb, ab strings.Builder
		for _, d := range charDiff(e, a) {
			switch d.Type {
			case diffmatchpatch.DiffDelete:
				eb.WriteString(`<del>` + esc(d.Text) + `</del>`)
			case diffmatchpatch.DiffInsert:
				ab.WriteString(`<ins>` + esc(d.Text) + `</ins>`)
			default:
				eb.WriteString(esc(d.Text))
				ab.WriteString(esc(d.Text))
			}
		}
		return "chars", template.HTML(eb.String()), template.HTML(ab.String())
	}
	if e == "" {
		e = "(nothing)"
	}
	if a == "" {
		a = "(nothing)"
	}
	return "", template.HTML(esc(e)), template.HTML(esc(a))
}

var htmlPage = template.Must(template.New("page").Funcs(htmlFuncs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>aopconform {{.R.Protocol}}: level {{.Level}}{{if .Failed}}, {{.State}}{{end}}</title>
<style>
:root{--red:#b3261e;--redbg:#fce8e6;--green:#1e7b34;--greenbg:#e6f4ea;--amber:#8a5a00;--amberbg:#fef7e0;--grey:#5f6368;--line:#dadce0}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:1.5em 2em;color:#202124;overflow-wrap:anywhere}
h1{font-size:1.3em;margin:0 0 .6em}h2{font-size:1.2em;margin:2em 0 .6em;border-bottom:2px solid var(--line);padding-bottom:.2em}
h3{font-size:1.05em;margin:.2em 0 .5em}
code,pre{font:13px/1.45 ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace}
pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
a{color:#1a56b0}
.banner{border-radius:8px;padding:1em 1.4em;margin:0 0 1em;border:2px solid}
.banner.fail{background:var(--redbg);border-color:var(--red);color:#5c0f0a}
.banner.pass{background:var(--greenbg);border-color:var(--green);color:#0d3d19}
.banner .state{font-size:1.6em;font-weight:700;margin:0}
.banner .rates{display:flex;flex-wrap:wrap;gap:.4em 2em;margin:.5em 0 0;font-size:1.05em}
.banner .rates b{font-size:1.15em}
.counts{margin:.6em 0 0;display:flex;flex-wrap:wrap;gap:.4em}
.v{display:inline-block;border-radius:4px;padding:0 .45em;font-size:.8em;font-weight:700;letter-spacing:.02em;white-space:nowrap;border:1px solid transparent}
.v.pass{background:var(--greenbg);color:var(--green);border-color:#b7dfc2}
.v.fail{background:var(--red);color:#fff}.v.harness-error{background:#5f6368;color:#fff}
.v.not-tested{background:#f3e8fd;color:#6b2fa0;border-color:#dcc5f3}
.v.warn,.v.flaky{background:var(--amberbg);color:var(--amber);border-color:#f3dc9a}
.v.known{background:#e8f0fe;color:#1a56b0;border-color:#c3d6fb}
.v.skip,.v.not-applicable,.v.not-judged{background:#f1f3f4;color:var(--grey);border-color:var(--line)}
.note{border-left:4px solid var(--red);background:var(--redbg);padding:.5em 1em;margin:.6em 0}
.meta{color:var(--grey);font-size:.9em}
.facts{color:var(--amber);font-weight:600}
article.card{border:1px solid var(--line);border-left:6px solid var(--red);border-radius:6px;padding:.8em 1.1em;margin:0 0 1.2em;break-inside:avoid}
article.card.warn,article.card.flaky,article.card.not-tested{border-left-color:#e0a800}
article.card.known{border-left-color:#1a56b0}article.card.harness-error{border-left-color:#5f6368}
blockquote{margin:.4em 0 .6em;padding:.3em .9em;border-left:3px solid var(--line);color:#3c4043;background:#f8f9fa}
blockquote .spec{display:block;color:var(--grey);font-size:.88em;margin-top:.2em}
.cmp{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.8em;margin:.6em 0}
.cmp h4{margin:0 0 .2em;font-size:.8em;text-transform:uppercase;letter-spacing:.06em;color:var(--grey)}
.cmp pre{background:#f8f9fa;border:1px solid var(--line);border-radius:4px;padding:.5em .7em;min-height:2.2em}
.cmp .mode{grid-column:1/3;margin:0;color:var(--grey);font-size:.85em}
del{background:#ffd7d5;color:#82071e;text-decoration:none}ins{background:#ccffd8;color:#055d20;text-decoration:none}
del.line,ins.line{display:block}
pre.cmd{background:#202124;color:#f1f3f4;padding:.5em .8em;border-radius:4px}
ul.lint{margin:.3em 0;padding-left:1.3em}
.tbl{overflow-x:auto;max-width:100%;margin:.4em 0 1em}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{font-size:.85em;color:var(--grey);font-weight:600}
td.w{white-space:nowrap}
table.fam{table-layout:fixed}table.fam td{overflow-wrap:anywhere}
table.prov td:first-child{white-space:nowrap;color:var(--grey);width:11em}
table.prov td{overflow-wrap:anywhere}
section.scenario{margin:1.2em 0;border:1px solid var(--line);border-radius:6px;padding:.6em 1em}
section.scenario.fail{border-left:6px solid var(--red)}
summary{cursor:pointer;font-weight:600}td.body summary{font-weight:400}
table.transcript{table-layout:fixed;min-width:44em}table.transcript td{font-size:13px}
table.transcript td.seq{text-align:right}
table.transcript td.off{white-space:nowrap;color:var(--grey)}
tr.agent td.from{color:#0b5394}tr.orchestrator td.from{color:#38761d}tr.harness td.from{color:var(--grey)}
tr.harness td.body{color:#3c4043}
.ev{font-weight:600}
tr.hl td{background:#fff4ce}tr.hl td.seq{border-left:4px solid #e0a800}
tr:target td{background:#ffe08a}
.refs a{display:block;font-size:.82em}
@media (max-width:800px){.cmp{grid-template-columns:minmax(0,1fr)}}
@media print{body{max-width:none;padding:0;font-size:11pt}a{color:inherit;text-decoration:none}
.banner,.v,del,ins,tr.hl td,pre.cmd{-webkit-print-color-adjust:exact;print-color-adjust:exact}
section.scenario,article.card{break-inside:avoid-page}h2{break-after:avoid}details>summary{list-style:none}}
</style></head><body>
<header class="banner {{if .Failed}}fail{{else}}pass{{end}}" id="verdict">
<h1>aopconform · {{.R.Protocol}}</h1>
<p class="state">{{.State}} — level reached: {{.Level}}</p>
<p class="rates"><span>MUST <b>{{.R.Score.MustPassed}}/{{.R.Score.MustTotal}}</b> ({{pct .R.Score.MustRate}})</span>{{if .R.Score.ShouldTotal}}<span>SHOULD <b>{{.R.Score.ShouldPassed}}/{{.R.Score.ShouldTotal}}</b> ({{pct .R.Score.ShouldRate}})</span>{{else}}<span>{{shouldText .R}}</span>{{end}}<span>MUSTs exercised <b>{{.Judged}} of {{.Total}}</b></span>{{if .R.Score.Levels}}<span>levels: {{range $i, $l := .R.Score.Levels}}{{if $i}}, {{end}}{{$l}}{{end}}</span>{{end}}</p>
<p class="counts">{{range .Counts}}<span class="v {{vclass .Verdict}}">{{.N}} {{.Verdict}}</span>{{end}}</p>
</header>
<p class="meta">Agent <code>{{join .R.Command " "}}</code> · started {{.R.Started.Format "2006-01-02 15:04:05Z07:00"}} · {{.R.DurationMS}} ms{{if .R.OutDir}} · transcripts in <code>{{.R.OutDir}}</code>{{end}} · <a href="#provenance">provenance</a></p>
{{if .NoMessage}}<div class="note"><p><b>{{.NoMessage}}</b></p></div>{{end}}{{if .R.Containment}}{{if .R.Containment.Refusals}}<div class="note"><p><b>{{.RefusalsHead}}</b></p>{{range .R.Containment.Refusals}}<p><code>{{.}}</code></p>{{end}}</div>{{end}}{{end}}{{range .HarnessErrs}}<p class="note"><b>Harness error</b> in <a href="#s-{{anchor .ID}}">{{.ID}}</a> (the harness's problem, not the agent's): {{.HarnessError}}</p>
{{end}}{{range .Stale}}<p class="note"><b>{{.}}</b></p>
{{end}}
<section id="failures"><h2>Failures ({{.NFailures}})</h2>
{{if not .Failures}}<p>None: every selected MUST check that could be judged passed{{if .Stale}} (but see the stale known-failing entries above){{end}}.</p>{{end}}
{{range .Failures}}{{template "card" .}}{{end}}</section>
{{if .Attention}}<section id="attention"><h2>Also worth reading ({{.NAttention}})</h2>
{{range .Attention}}{{template "card" .}}{{end}}</section>{{end}}
<section id="checks"><h2>Other checks, by family</h2>
{{range .Families}}<h3>{{.Name}}</h3>
<div class="tbl"><table class="fam"><colgroup><col style="width:9em"><col style="width:19em"><col style="width:5.5em"><col style="width:6em"><col style="width:13em"><col></colgroup>
<tr><th>Verdict</th><th>Check</th><th>Level</th><th>Tier</th><th>Scenario</th><th>Detail</th></tr>
{{range .Results}}<tr><td class="w"><span class="v {{.Class}}">{{.Verdict}}</span></td><td><code>{{.Check}}</code></td><td>{{.Level}}</td><td>{{.Tier}}</td><td><a href="#{{.ScenAnch}}">{{.Scenario}}</a></td><td>{{if .Facts}}<span class="facts">{{.Facts}}</span> {{end}}{{.Message}}</td></tr>
{{end}}</table></div>
{{end}}</section>
<section id="provenance"><h2>Provenance</h2>
{{if .Provenance}}<div class="tbl"><table class="prov">{{range .Provenance}}<tr><td>{{index . 0}}</td><td><code>{{index . 1}}</code></td></tr>{{end}}</table></div>
{{else}}<p>This report carries no provenance.</p>{{end}}</section>
<section id="scenarios"><h2>Scenarios and transcripts</h2>
{{range .Scenarios}}<section class="scenario {{.Verdict}}" id="{{.Anchor}}"><h3>{{.ID}}: {{.Title}}</h3>
<p class="meta">family {{.Family}} · {{.DurationMS}} ms{{if .SlipMS}} · harness timers late by up to {{.SlipMS}} ms{{end}}{{if .Transcript}} · <code>{{.Transcript}}</code>{{end}}{{range .Attempts}} · attempt {{.N}}: exit {{.ExitCode}}{{if .Signal}} ({{.Signal}}){{end}}{{if .TimedOut}}, deadline reached{{end}}{{if .Error}}, {{.Error}}{{end}}{{end}}</p>
{{if .HarnessError}}<p class="note"><b>Harness error</b> (not the agent's fault): {{.HarnessError}}</p>{{end}}
{{if .Records}}<details{{if .Open}} open{{end}}><summary>Transcript: {{len .Records}} records{{if .Clipped}}, {{.Clipped}} more not shown{{end}}</summary>
<div class="tbl"><table class="transcript"><colgroup><col style="width:3.5em"><col style="width:6.5em"><col style="width:9em"><col><col style="width:13em"></colgroup>
<tr><th>#</th><th>time</th><th>from</th><th>record</th><th>cited by</th></tr>
{{range .Records}}<tr id="{{.ID}}" class="{{.Class}}"><td class="seq"><a href="#{{.ID}}">{{.Seq}}</a></td><td class="off">{{.Offset}}</td><td class="from">{{.From}}{{if and .Stream (ne .Stream "stdout")}} <span class="meta">{{.Stream}}</span>{{end}}</td><td class="body">{{if .Event}}<span class="ev">{{.Event}}</span>{{if .Detail}} — {{.Detail}}{{end}}{{else if .Summary}}<details{{if .Refs}} open{{end}}><summary><code>{{.Summary}}</code></summary><pre>{{.Pre}}</pre></details>{{else}}<pre>{{.Pre}}</pre>{{end}}</td><td class="refs">{{range .Refs}}<a href="{{.Href}}">{{.Label}}</a>{{end}}</td></tr>
{{end}}</table></div></details>{{end}}
</section>
{{end}}</section>
<p class="meta">aopconform-report · {{if .R.Provenance}}aopconform {{.R.Provenance.Aopconform}}{{end}}</p>
</body></html>
{{define "card"}}<article class="card {{.Class}}" id="{{.ID}}">
<h3><span class="v {{.Class}}">{{.Res.Verdict}}</span> <code>{{.Res.Check}}</code> <span class="meta">{{.Res.Level}} · {{.Res.Tier}} · scenario{{if gt (len .Scenarios) 1}}s{{end}} {{range $i, $s := .Scenarios}}{{if $i}}, {{end}}<a href="{{$s.Href}}">{{$s.Label}}</a>{{end}}</span></h3>
{{if or .Res.Requirement .Res.Spec}}<blockquote>{{.Res.Requirement}}{{if .Res.Spec}}<span class="spec">{{.Res.Spec}}</span>{{end}}</blockquote>{{end}}
{{range .Parts}}{{if .Scenarios}}<h4>In {{range $i, $s := .Scenarios}}{{if $i}}, {{end}}<a href="{{$s.Href}}">{{$s.Label}}</a>{{end}}:</h4>
{{end}}{{if .Res.Message}}<p>{{.Res.Message}}</p>{{end}}
{{if .Facts}}<p class="facts">{{join .Facts "; "}}</p>{{end}}
{{if or .Res.Expected .Res.Actual}}<div class="cmp">{{if eq .Mode "lines"}}<p class="mode">Lines only in expected are struck out, lines only in actual are marked.</p>{{else if eq .Mode "chars"}}<p class="mode">Characters that differ are marked.</p>{{end}}
<div><h4>Expected</h4><pre>{{.Expected}}</pre></div><div><h4>Actual</h4><pre>{{.Actual}}</pre></div></div>{{end}}
{{if .Lint}}<ul class="lint">{{range .Lint}}<li>lint <code>{{.Rule}}</code> ({{.Severity}}) on {{if .Href}}<a href="{{.Href}}">record {{.Seq}}</a>{{else}}record {{.Seq}}{{end}}: {{.Message}}</li>{{end}}</ul>{{end}}
{{if .Evidence}}<p>Evidence: {{range $i, $e := .Evidence}}{{if $i}}, {{end}}{{if $e.Href}}<a href="{{$e.Href}}">{{$e.Label}}</a>{{else}}{{$e.Label}}{{end}}{{end}}</p>{{end}}
{{- end}}
{{if .Res.Rerun}}<p>Rerun just this check:</p><pre class="cmd">{{.Res.Rerun}}</pre>{{end}}
</article>
{{end}}`))
