package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aopkit/aopkit/conform"
)

// hostile is what an agent may write to take a terminal over: clear the screen,
// ring the bell, a NUL, set the window title, a C1 CSI, DEL, a bidi override, a
// carriage return, a byte that is not UTF-8, and backticks to close a fence.
const hostile = "a\x1b[2Jb\x07c\x00d\x1b]0;title\x07e\u009b31mf\x7fg\u202eh\ri\xffj ```"

func hostileReport() *conform.Report {
	r := sample()
	text := hostile + "\n" + hostile
	for i := range r.Results {
		res := &r.Results[i]
		if res.Verdict == conform.Fail {
			res.Message = hostile + " [link](http://example.invalid/x) ![img](http://example.invalid/i)"
			res.Expected = "line 1\n" + hostile + "\n"
			res.Actual = "line 1\nline 2 " + hostile + "\n"
			res.Lint = append(res.Lint, conform.LintFinding{Seq: 2, Rule: "AOP2-X", Severity: "error", Message: "lint: " + hostile})
		}
		if res.Verdict == conform.NotTested {
			res.Message = hostile
			res.Expected, res.Actual = "x"+hostile, hostile
		}
	}
	r.Scenarios[0].Records = append(r.Scenarios[0].Records, conform.Record{Seq: 4, From: "agent", Text: &text},
		conform.Record{Seq: 5, From: "agent", Msg: json.RawMessage(`{"m":"\u001b]0;title\u0007\u0000"}`)})
	r.Scenarios[1].HarnessError = "launch failed: " + hostile
	return r
}

// TestControlCharactersEscaped: in the terminal report (.txt), the Markdown and
// the HTML report, no control character the agent wrote survives (C0 but the
// report's own newlines and tabs, DEL, C1, bidi overrides, invalid UTF-8): they
// are shown escaped. The JUnit XML stays well-formed XML 1.0, the JSON valid.
func TestControlCharactersEscaped(t *testing.T) {
	r := hostileReport()
	for _, name := range []string{"r.txt", "r.md", "r.html"} {
		w, _ := ByExtension(name)
		var b bytes.Buffer
		if err := w(&b, r); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !utf8.ValidString(out) {
			t.Errorf("%s: not UTF-8", name)
		}
		for i, c := range out {
			if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f || c == 0x202e {
				t.Errorf("%s: %U at byte %d: %q", name, c, i, out[max(0, i-20):min(len(out), i+20)])
				break
			}
		}
		// (html/template makes NUL U+FFFD; a line break of wrapped text, a CR
		// among them, is a space.)
		nul := `\x00`
		if name == "r.html" {
			nul = "\uFFFD"
		}
		for _, want := range []string{`a\x1b[2Jb\ac` + nul + `d\x1b]0;title\ae\u009b31mf\x7fg\u202eh`, `i\xffj`} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the agent's text is not shown escaped (%s):\n%s", name, want, out)
			}
		}
		if name == "r.md" && strings.Contains(out, "[link](http") {
			t.Errorf("r.md: the agent's text makes a link:\n%s", out)
		}
		if name == "r.md" {
			// Its fences are longer than the agent's backticks.
			if !strings.Contains(out, "````diff\n") {
				t.Errorf("r.md: the diff's fence is not longer than the agent's backticks:\n%s", out)
			}
		}
	}
	var b bytes.Buffer
	if err := JUnit(&b, r); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("junit: not XML: %v\n%q", err, b.String())
		}
	}
	b.Reset()
	if err := JSON(&b, r); err != nil || !json.Valid(b.Bytes()) {
		t.Errorf("json: %v", err)
	}
}
