package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/aopkit/aopkit/conform"
)

// maxHTMLRecords bounds the transcript records shown per scenario.
const maxHTMLRecords = 2000

// unifiedDiff renders expected vs actual as +/- lines (go-diff, line mode).
func unifiedDiff(expected, actual string) string {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(ensureNL(expected), ensureNL(actual))
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	var out strings.Builder
	for _, d := range diffs {
		prefix := "  "
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			prefix = "- "
		case diffmatchpatch.DiffInsert:
			prefix = "+ "
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				out.WriteString(prefix + l)
			}
		}
	}
	return out.String()
}

func ensureNL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// htmlDiff renders expected vs actual character by character (go-diff).
func htmlDiff(expected, actual string) template.HTML {
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMain(expected, actual, false))
	var b strings.Builder
	for _, d := range diffs {
		t := template.HTMLEscapeString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			b.WriteString(`<del>` + t + `</del>`)
		case diffmatchpatch.DiffInsert:
			b.WriteString(`<ins>` + t + `</ins>`)
		default:
			b.WriteString(`<span>` + t + `</span>`)
		}
	}
	return template.HTML(b.String())
}

type htmlRecord struct {
	Seq   int
	At    string
	From  string
	What  string
	Class string
}

type htmlScenario struct {
	conform.ScenarioRun
	Results []conform.Result
	Records []htmlRecord
	Clipped int
}

var htmlFuncs = template.FuncMap{
	"diff":    htmlDiff,
	"lower":   func(v conform.Verdict) string { return strings.ToLower(string(v)) },
	"summary": SummaryLine,
	"join":    strings.Join,
	"pct":     pct,
	"anchor": func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
				return r
			}
			return '-'
		}, strings.ToLower(s))
	},
}

var htmlPage = template.Must(template.New("page").Funcs(htmlFuncs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>aopconform {{.R.Protocol}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
.pass{background:#e6f4ea}.fail{background:#fce8e6}.warn{background:#fef7e0}.not-tested{background:#f1e6fc}.skip{color:#888}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
del{background:#ffd7d5;text-decoration:none}ins{background:#ccffd8;text-decoration:none}
.agent{color:#0b5394}.orchestrator{color:#38761d}.harness{color:#888}
code{background:#f3f3f3;padding:0 3px}
</style></head><body>
<h1>aopconform: {{.R.Protocol}}</h1>
<p>Agent: <code>{{join .R.Command " "}}</code> — started {{.R.Started.Format "2006-01-02 15:04:05Z"}}, {{.R.DurationMS}} ms</p>
<h2>Summary</h2>
<table><tr><th>Level reached</th><th>MUST</th><th>SHOULD</th><th>PASS</th><th>FAIL</th><th>WARN</th><th>NOT-TESTED</th><th>SKIP</th></tr>
<tr><td><b>{{if .R.Score.Level}}{{.R.Score.Level}}{{else}}none{{end}}</b></td><td>{{.R.Score.MustPassed}}/{{.R.Score.MustTotal}} ({{pct .R.Score.MustRate}})</td><td>{{.R.Score.ShouldPassed}}/{{.R.Score.ShouldTotal}} ({{pct .R.Score.ShouldRate}})</td>
<td>{{.R.Score.Pass}}</td><td>{{.R.Score.Fail}}</td><td>{{.R.Score.Warn}}</td><td>{{.R.Score.NotTested}}</td><td>{{.R.Score.Skip}}</td></tr></table>
<p>{{summary .R}}</p>
<h2>Checks</h2>
<table><tr><th>Check</th><th>Level</th><th>Tier</th><th>Scenario</th><th>Verdict</th><th>Detail</th></tr>
{{range .R.Results}}<tr class="{{lower .Verdict}}"><td><code>{{.Check}}</code></td><td>{{.Level}}</td><td>{{.Tier}}</td><td><a href="#{{anchor .Scenario}}">{{.Scenario}}</a></td><td>{{.Verdict}}</td><td>{{.Message}}</td></tr>
{{end}}</table>
<h2>Scenarios</h2>
{{range .S}}<section id="{{anchor .ID}}"><h3>{{.ID}}: {{.Title}}</h3>
<p>Family {{.Family}}, {{.DurationMS}} ms{{if .Transcript}}, transcript <code>{{.Transcript}}</code>{{end}}.{{range .Attempts}} Attempt {{.N}}: exit {{.ExitCode}}{{if .Signal}} ({{.Signal}}){{end}}{{if .TimedOut}}, deadline reached{{end}}.{{end}}</p>
{{if .HarnessError}}<p class="fail"><b>Harness error</b> (not the agent's fault): {{.HarnessError}}</p>{{end}}
{{range .Results}}{{if or (eq .Verdict "FAIL") (eq .Verdict "WARN") (eq .Verdict "NOT-TESTED")}}
<div class="{{lower .Verdict}}"><p><b>{{.Verdict}}</b> <code>{{.Check}}</code> ({{.Level}}, {{.Spec}}): {{.Requirement}}</p>
<p>{{.Message}}</p>
{{if or .Expected .Actual}}<p>Expected vs actual:</p><pre>{{diff .Expected .Actual}}</pre>{{end}}
{{range .Lint}}<p>lint <code>{{.Rule}}</code> ({{.Severity}}, record {{.Seq}}): {{.Message}}</p>{{end}}
{{if .Evidence}}<p>Evidence: records {{.Evidence}}</p>{{end}}
{{if .Rerun}}<p>Rerun: <code>{{.Rerun}}</code></p>{{end}}</div>
{{end}}{{end}}
<details><summary>Transcript ({{len .Records}} records{{if .Clipped}}, {{.Clipped}} more not shown{{end}})</summary>
<pre>{{range .Records}}<span class="{{.Class}}">{{.Seq}} {{.At}} {{.From}}: {{.What}}</span>
{{end}}</pre></details></section>
{{end}}
</body></html>
`))

// HTML writes one self-contained page: summary, per-check verdicts, expected vs
// actual as a go-diff, and each scenario's transcript.
func HTML(w io.Writer, r *conform.Report) error {
	byScenario := map[string][]conform.Result{}
	for _, res := range r.Results {
		byScenario[res.Scenario] = append(byScenario[res.Scenario], res)
	}
	var scs []htmlScenario
	for _, s := range r.Scenarios {
		hs := htmlScenario{ScenarioRun: s, Results: byScenario[s.ID]}
		for i, rec := range s.Records {
			if i >= maxHTMLRecords {
				hs.Clipped = len(s.Records) - maxHTMLRecords
				break
			}
			hs.Records = append(hs.Records, htmlRecord{Seq: rec.Seq, At: rec.At, From: rec.From, What: describeRecord(rec), Class: rec.From})
		}
		scs = append(scs, hs)
	}
	return htmlPage.Execute(w, struct {
		R *conform.Report
		S []htmlScenario
	}{r, scs})
}

func describeRecord(rec conform.Record) string {
	var s string
	switch {
	case rec.Event != "":
		s = fmt.Sprintf("[%s] %v", rec.Event, rec.Detail)
	case rec.Msg != nil:
		s = string(rec.Msg)
	case rec.Text != nil:
		s = *rec.Text
	}
	if rec.Stream != "" {
		s = "(" + rec.Stream + ") " + s
	}
	if len(s) > 2000 {
		s = s[:2000] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}
