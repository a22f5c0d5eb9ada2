package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/aopkit/aopkit/conform"
)

// everyVerdict is a report with one result of each verdict, provenance, a stale
// known-failing entry and a transcript with the evidence of the failure.
func everyVerdict() *conform.Report {
	r := sample()
	long := strings.Repeat("the agent wrote something long and unhelpful ", 8)
	for i, v := range []conform.Verdict{conform.NotApplicable, conform.Flaky, conform.NotJudged, conform.Known, conform.HarnessError, conform.Warn} {
		r.Results = append(r.Results, conform.Result{Check: "aop2/x/check-" + string(rune('a'+i)), Scenario: "s1", Protocol: "aop2", Family: "heartbeats",
			Tier: conform.Core, Level: conform.MUST, Spec: "aop2 §6.1", Requirement: "req " + long, Verdict: v, Message: string(v) + " " + long, Evidence: []int{3}})
	}
	r.Results[1].Expected, r.Results[1].Actual = `{"state":"COMPLETED","signal":"SUCCESS"}`, `{"state":"COMPLETED","signal":"NONE"}`
	r.Results[1].Family = "happy-path"
	// Evidence the page does not show (a record past the end) is named, not linked.
	r.Results[1].Evidence = []int{2, 99}
	r.Score = conform.ScoreResults("aop2", r.Results)
	r.Provenance = &conform.Provenance{Aopconform: "v9.9.9", Suite: conform.SuiteID{Digest: "sha256:" + strings.Repeat("ab", 32), Protocol: "aop2", Scenarios: 2, Checks: 9, Builtin: true},
		Agent: conform.AgentID{Command: []string{"./agent"}, Executable: "/bin/agent", SHA256: strings.Repeat("cd", 32)}, Platform: "linux/amd64 go1", Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		TimeoutScale: 2, Repeat: 3, Transcripts: []conform.TranscriptID{{Scenario: "s1", Records: 3, SHA256: strings.Repeat("ef", 32)}}}
	r.KnownFailing = &conform.KnownFailing{File: "known.txt", Entries: []conform.KnownEntry{{Line: 3, Pattern: "aop2/5/final-response", Reason: "fixed now", Stale: true}}}
	return r
}

func render(t *testing.T, w Writer, r *conform.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := w(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

// TestHTMLStructure keeps the page what a reviewer needs: the verdict banner first
// (red when a MUST failed), failures before the rest, every in-page link resolving,
// evidence rows highlighted, no script and no external resource, no Go map syntax.
func TestHTMLStructure(t *testing.T) {
	t.Parallel()
	out := render(t, HTML, repeated()) // every verdict, repeats, a block of two scenarios
	doc, err := html.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]*html.Node{}
	var hrefs []string
	var order []string
	var body *html.Node
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "script", "iframe", "object", "embed", "link", "img":
			t.Errorf("the page has a <%s> element", n.Data)
		case "body":
			body = n
		}
		if attr(n, "src") != "" {
			t.Errorf("<%s src=%q>: the page must be self-contained", n.Data, attr(n, "src"))
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s>: no script", n.Data, a.Key)
			}
		}
		if id := attr(n, "id"); id != "" {
			if ids[id] != nil {
				t.Errorf("duplicate id %q", id)
			}
			ids[id] = n
			order = append(order, id)
		}
		if h := attr(n, "href"); h != "" {
			hrefs = append(hrefs, h)
		}
	})
	if body == nil {
		t.Fatal("no body")
	}
	first := body.FirstChild
	for first != nil && first.Type != html.ElementNode {
		first = first.NextSibling
	}
	if first == nil || first.Data != "header" || attr(first, "id") != "verdict" || !strings.Contains(attr(first, "class"), "fail") {
		t.Errorf("the first element of the body is not the red verdict banner: %+v", first)
	}
	pos := map[string]int{}
	for i, id := range order {
		pos[id] = i
	}
	for _, pair := range [][2]string{{"verdict", "failures"}, {"failures", "attention"}, {"attention", "checks"}, {"checks", "provenance"}, {"provenance", "scenarios"}} {
		a, okA := pos[pair[0]]
		b, okB := pos[pair[1]]
		if !okA || !okB || a >= b {
			t.Errorf("section %q must come before %q (%v %v)", pair[0], pair[1], okA, okB)
		}
	}
	for _, h := range hrefs {
		if !strings.HasPrefix(h, "#") {
			t.Errorf("link %q leaves the page", h)
			continue
		}
		if ids[h[1:]] == nil {
			t.Errorf("link %q resolves to nothing", h)
		}
	}
	// The failure's evidence (record 2 of s1, from its lint finding) is linked and
	// the record row is highlighted, citing the failure back.
	row := ids[recordAnchor("s1", 2)]
	if row == nil || !strings.Contains(attr(row, "class"), "hl") {
		t.Fatalf("evidence row of s1 record 2 missing or not highlighted")
	}
	if !strings.Contains(out, `href="#`+recordAnchor("s1", 2)+`"`) {
		t.Error("no link to the evidence row")
	}
	if !strings.Contains(out, "record 99") || strings.Contains(out, recordAnchor("s1", 99)) {
		t.Error("evidence past the transcript: want it named, never linked")
	}
	for _, bad := range []string{"map[", "<script"} {
		if strings.Contains(out, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{"@media print", "agent-exit</span> — code: 0", "v9.9.9", "STALE known-failing entry known.txt:3", "Expected</h4>", "Actual</h4>"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Every verdict has its own style.
	for _, v := range verdictOrder {
		if !strings.Contains(out, ".v."+verdictClass(v)) {
			t.Errorf("no style for verdict %s", v)
		}
	}
}

func TestCompareModes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		exp, act string
		mode     diffMode
	}{
		{"a HEARTBEAT within interval × max_missed_beats", "no HEARTBEAT for 2250 ms", diffNone},
		{`{"a":1,"b":[1,2]}`, `{"a":2,"b":[1,2]}`, diffLines},
		{"1000", "2250", diffChars},
		{"COMPLETED", "FAILED", diffChars},
		{"1000", "FAILED", diffNone},
		{"", "x", diffNone},
		{"line one\nline two", "line one\nline 2", diffLines},
	} {
		exp, act, mode := compare(tt.exp, tt.act)
		if mode != tt.mode {
			t.Errorf("compare(%q, %q) mode %d, want %d", tt.exp, tt.act, mode, tt.mode)
		}
		if mode == diffLines && strings.HasPrefix(tt.exp, "{") && !strings.Contains(exp, "\n  \"a\": 1") {
			t.Errorf("JSON not pretty-printed: %q / %q", exp, act)
		}
	}
	// Unrelated sentences are shown as they are, never as a character diff.
	mode, e, a := htmlCompare("a HEARTBEAT within interval", "no HEARTBEAT for 2250 ms")
	if mode != "" || strings.Contains(string(e)+string(a), "<del>") || strings.Contains(string(e)+string(a), "<ins>") {
		t.Errorf("sentences diffed: %q %q %q", mode, e, a)
	}
}

// TestWidthAndOrder: text and Markdown open with the verdict, put failures before
// the rest, and fit 100 columns (rerun commands and code blocks aside).
func TestWidthAndOrder(t *testing.T) {
	t.Parallel()
	r := everyVerdict()
	text := render(t, Text, r)
	md := render(t, Markdown, r)
	if !strings.HasPrefix(text, "aop2: MUST ") || !strings.Contains(strings.SplitN(text, "\n", 2)[0], "FAILED") {
		t.Errorf("text does not open with the verdict:\n%s", text)
	}
	for _, doc := range []struct{ name, out, fail, rest string }{
		{"text", text, "\nFAILURES (", "\nOTHER CHECKS BY FAMILY"},
		{"markdown", md, "## Failures (", "## Other checks by family"},
	} {
		f, o := strings.Index(doc.out, doc.fail), strings.Index(doc.out, doc.rest)
		if f < 0 || o < 0 || f > o {
			t.Errorf("%s: failures (%d) must come before the rest (%d)", doc.name, f, o)
		}
		inCode := false
		for _, l := range strings.Split(doc.out, "\n") {
			if strings.HasPrefix(l, "```") {
				inCode = !inCode
				continue
			}
			if inCode || strings.HasPrefix(l, "  rerun: ") {
				continue
			}
			if n := len([]rune(l)); n > Width {
				t.Errorf("%s: line of %d columns: %q", doc.name, n, l)
			}
		}
		if strings.Contains(doc.out, "map[") || strings.Contains(doc.out, "records [") {
			t.Errorf("%s: Go syntax in the output", doc.name)
		}
	}
	for _, v := range verdictOrder {
		if !strings.Contains(text, string(v)) {
			t.Errorf("text never shows %s", v)
		}
	}
	// NOT-APPLICABLE is listed with the rest, never as a failure.
	fail := text[strings.Index(text, "\nFAILURES ("):strings.Index(text, "\nOTHER CHECKS BY FAMILY")]
	if strings.Contains(fail, "NOT-APPLICABLE") || !strings.Contains(text, "STALE known-failing entry") {
		t.Errorf("NOT-APPLICABLE among the failures, or stale entry missing:\n%s", text)
	}
}

func TestEventText(t *testing.T) {
	t.Parallel()
	var detail conform.Detail
	if err := json.Unmarshal([]byte(`{"deadline_ms":8000,"scenario":"s","nested":{"a":[1,2]},"scale":1.5,"ok":true}`), &detail); err != nil {
		t.Fatal(err)
	}
	got := EventText("scenario-start", detail)
	want := `scenario-start — deadline_ms: 8000, nested: {"a":[1,2]}, ok: true, scale: 1.5, scenario: s`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	got := wrap("aaa bbb ccc "+strings.Repeat("x", 25), 10, "> ", "  ")
	for _, l := range strings.Split(got, "\n") {
		if len([]rune(l)) > 10 {
			t.Errorf("line %q longer than 10", l)
		}
	}
	if !strings.HasPrefix(got, "> aaa bbb\n  ccc\n") {
		t.Errorf("wrap: %q", got)
	}
}

func TestJUnitProvenance(t *testing.T) {
	t.Parallel()
	out := render(t, JUnit, everyVerdict())
	for _, want := range []string{`<property name="aopconform.version" value="v9.9.9">`, `<property name="aopconform.transcript.sha256" value="` + strings.Repeat("ef", 32) + `">`} {
		if !strings.Contains(out, want) {
			t.Errorf("junit lacks %s", want)
		}
	}
	if strings.Index(out, "<properties>") > strings.Index(out, "<testcase") {
		t.Error("<properties> must precede the testcases")
	}
}

// The Markdown and HTML reports name the digest of the requirement registry the
// harness was built with.
func TestRequirementsDigestShown(t *testing.T) {
	t.Parallel()
	r := everyVerdict()
	if r.Provenance == nil {
		t.Fatal("fixture without provenance")
	}
	r.Provenance.Requirements = "sha256:" + strings.Repeat("5a", 32)
	for name, f := range map[string]Writer{"markdown": Markdown, "html": HTML} {
		out := render(t, f, r)
		if !strings.Contains(out, r.Provenance.Requirements) {
			t.Errorf("%s report does not name the requirements digest", name)
		}
		if !strings.Contains(out, "requirements covered") || !strings.Contains(out, "-side requirements") {
			t.Errorf("%s report does not say how many requirements the run covers", name)
		}
	}
}

func TestAnchorsDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, id := range []string{"aop2-happy-path", "aop2_happy_path", "aop2.happy.path", "AOP2-happy-path", "a b"} {
		a := anchor(id)
		if prev, dup := seen[a]; dup {
			t.Errorf("%q and %q share the anchor %q", prev, id, a)
		}
		seen[a] = id
	}
	if anchor("aop2-happy-path") != "aop2-happy-path" {
		t.Error("a plain ID is its own anchor")
	}
}

// The reports name the files the agent's command line named (the script an
// interpreter ran) with their digests, besides the executable.
func TestAgentFilesShown(t *testing.T) {
	t.Parallel()
	r := everyVerdict()
	r.Provenance.Agent.Files = []conform.AgentFile{{Path: "agent.py", SHA256: strings.Repeat("9a", 32)}}
	for name, f := range map[string]Writer{"markdown": Markdown, "html": HTML, "text": TextUncut} {
		out := render(t, f, r)
		if !strings.Contains(out, "agent.py") || !strings.Contains(out, "sha256:9a9a9a9a9a9a") {
			t.Errorf("%s report does not name the agent's file agent.py and its digest", name)
		}
	}
	// The head is wrapped: compare its words.
	if out := strings.Join(strings.Fields(render(t, TextUncut, r)), " "); !strings.Contains(out, "agent sha256:cdcdcdcdcdcd (agent) + sha256:9a9a9a9a9a9a (agent.py) · linux") {
		t.Errorf("text report:\n%s", out)
	}
}
