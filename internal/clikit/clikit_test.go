package clikit

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
	"github.com/urfave/cli/v2"
)

func TestTableFitsWidth(t *testing.T) {
	long := strings.Repeat("a fairly long title word ", 10)
	tb := Table{Header: []string{"RULE", "SEVERITY", "TITLE", "SPEC"}, Wrap: []int{2}, Rows: [][]string{
		{"AOP2-ENVELOPE-001", "error", long, "aop2 §1.1"},
		{"GEN-JSON-002", "warning", "short", "RFC 8259 §4"},
		{"X", "info", strings.Repeat("x", 150), "s"},
	}}
	var b bytes.Buffer
	if err := tb.Render(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for _, l := range lines {
		if w := runewidth.StringWidth(l); w > Width {
			t.Errorf("line of %d columns: %q", w, l)
		}
	}
	if !strings.HasPrefix(lines[0], "RULE") || !strings.Contains(lines[1], "AOP2-ENVELOPE-001") || !strings.Contains(lines[1], "aop2 §1.1") {
		t.Errorf("table:\n%s", b.String())
	}
	// Every word of the wrapped title survives, in order.
	col := strings.Index(lines[0], "TITLE")
	end := strings.Index(lines[0], "SPEC")
	var got []string
	for _, l := range lines[1:] {
		if strings.Contains(l, "GEN-JSON-002") {
			break
		}
		got = append(got, strings.Fields(l[col:min(end, len(l))])...)
	}
	if joined := strings.Join(got, " "); !strings.Contains(joined, strings.TrimSpace(long)) {
		t.Errorf("wrapped title lost words:\n%s", b.String())
	}
}

func TestColor(t *testing.T) {
	var b bytes.Buffer
	if Color(&b) {
		t.Error("a buffer is not a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if Color(f) {
		t.Error("a file is not a terminal")
	}
	t.Setenv("NO_COLOR", "")
	if Color(os.Stdout) {
		t.Error("NO_COLOR set (even empty) must turn colour off")
	}
}

func TestCompletionScripts(t *testing.T) {
	app := &cli.App{Name: "aoplint", Commands: []*cli.Command{{Name: "rules"}}}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		s, err := CompletionScript(app, sh)
		if err != nil || !strings.Contains(s, "aoplint") {
			t.Errorf("%s: %v\n%s", sh, err, s)
		}
	}
	if _, err := CompletionScript(app, "tcsh"); err == nil {
		t.Error("tcsh: want an error")
	}
}
