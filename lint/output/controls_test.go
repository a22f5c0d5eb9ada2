package output

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// hostile is what an input may hold to take a terminal over: clear the screen,
// ring the bell, a NUL, set the window title, a C1 CSI, DEL, a bidi override, a
// carriage return and a newline.
const hostile = "a\x1b[2Jb\x07c\x00d\x1b]0;title\x07e\u009b31mf\x7fg\u202eh\ri\nj"

// TestControlCharactersEscaped: the human formats (text, markdown, github) show
// no control character of a path, a message or a related place's message (C0
// but their own newlines and tabs, DEL, C1, bidi overrides): they are shown
// escaped, one line each. The machine formats stay valid (JSON, SARIF, JUnit
// XML 1.0).
func TestControlCharactersEscaped(t *testing.T) {
	d := lint.Diagnostic{Rule: "GEN-JSON-002", Severity: lint.Error, Spec: "spec " + hostile, Line: 1, Column: 2, Message: "duplicate key " + hostile + " [link](http://example.invalid/x)",
		Related: []lint.Related{{Line: 1, Column: 1, Message: "first " + hostile}}}
	rep := &Report{Files: []linter.FileResult{{Path: "f" + hostile + ".json", Protocol: "aop2", Messages: 1, Diagnostics: []lint.Diagnostic{d}}}}
	escaped := `a\x1b[2Jb\ac\x00d\x1b]0;title\ae\u009b31mf\x7fg\u202eh\ri\nj`
	for _, format := range Formats {
		var b bytes.Buffer
		if err := Write(&b, format, rep); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := b.String()
		switch format {
		case "json", "jsonl", "sarif":
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if format == "jsonl" && !json.Valid([]byte(l)) || format != "jsonl" && !json.Valid(b.Bytes()) {
					t.Errorf("%s: not JSON:\n%q", format, out)
					break
				}
			}
			continue
		case "junit":
			dec := xml.NewDecoder(&b)
			for {
				if _, err := dec.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("junit: not XML 1.0: %v\n%q", err, out)
				}
			}
			continue
		}
		if !utf8.ValidString(out) {
			t.Errorf("%s: not UTF-8", format)
		}
		for i, c := range out {
			if c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f || c == 0x202e {
				t.Errorf("%s: %U at byte %d: %q", format, c, i, out[max(0, i-20):min(len(out), i+20)])
				break
			}
		}
		if !strings.Contains(out, escaped) {
			t.Errorf("%s: the message is not shown escaped (%s):\n%s", format, escaped, out)
		}
		if format == "markdown" && strings.Contains(out, "[link](http") {
			t.Errorf("markdown: the message makes a link:\n%s", out)
		}
		lines := strings.Count(strings.TrimSuffix(out, "\n"), "\n") + 1
		if format == "github" && lines != 1 || format == "text" && lines != 2 {
			t.Errorf("%s: %d lines, a forged one among them:\n%s", format, lines, out)
		}
	}
}
