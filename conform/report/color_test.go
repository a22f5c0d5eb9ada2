package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// coloured is a verdict word in colour as WriteText writes it.
var coloured = regexp.MustCompile(`\x1b\[[0-9;]+m(PASS|FAIL|WARN|SKIP|NOT-TESTED|NOT-APPLICABLE|FLAKY|NOT-JUDGED|KNOWN|HARNESS-ERROR)\x1b\[0m`)

// TestTextColor (issue 31): with Color the verdict words of the failures'
// heads and of the family rows are coloured, and nothing else: the colour
// codes are added after the implementation's text is escaped, so its own
// escape sequences stay visible escapes and its words (a message saying FAIL)
// are never coloured. Without Color there is no escape at all.
func TestTextColor(t *testing.T) {
	r := repeated()
	hostile := "\x1b[31mFAIL\x1b[0m and PASS\nFAIL at the start of a line"
	for i := range r.Results {
		r.Results[i].Message = hostile + " " + r.Results[i].Message
	}
	var plain, color bytes.Buffer
	if err := WriteText(&plain, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&color, r, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("an escape without Color:\n%q", plain.String())
	}
	if !strings.Contains(plain.String(), `\x1b[31mFAIL\x1b[0m and PASS`) {
		t.Errorf("the implementation's escape is not shown escaped:\n%s", plain.String())
	}
	out := color.String()
	for _, want := range []string{"\n\x1b[1;31mFAIL\x1b[0m aop2/bind/exit-zero", "\n  \x1b[32mPASS\x1b[0m ", "\n\x1b[1;33mFLAKY\x1b[0m aop2/"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the coloured report:\n%s", want, out)
		}
	}
	// Every escape is one of the colours around a verdict word; taken away,
	// the text is the uncoloured report byte for byte.
	if rest := coloured.ReplaceAllString(out, "$1"); rest != plain.String() {
		t.Errorf("colour changed more than the verdict words:\n%s", firstDiff(plain.String(), rest))
	}
	// Colour is only at the head of a line (a failure's head, a family row):
	// the words of the implementation's messages are never coloured.
	for _, line := range strings.Split(out, "\n") {
		rest := line
		if loc := coloured.FindStringIndex(line); loc != nil && loc[0] <= 2 {
			rest = line[loc[1]:]
		}
		if strings.Contains(rest, "\x1b") {
			t.Errorf("colour past a line's verdict: %q", line)
		}
	}
	n := len(coloured.FindAllString(out, -1))
	if heads, rows := strings.Count(plain.String(), "\nFAIL aop2/"), strings.Count(plain.String(), "\n  PASS "); n < heads+rows || heads == 0 || rows == 0 {
		t.Errorf("%d coloured verdicts, want at least %d heads and %d PASS rows", n, heads, rows)
	}
}

// TestTextColorIsOnlyForVerdicts: a report without failures or rows has no
// colour to add, and Color changes nothing.
func TestTextColorIsOnlyForVerdicts(t *testing.T) {
	r := &conform.Report{Protocol: "aop2"}
	var a, b bytes.Buffer
	if err := WriteText(&a, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&b, r, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("Color changed a report with no verdict:\n%q\n%q", a.String(), b.String())
	}
}
