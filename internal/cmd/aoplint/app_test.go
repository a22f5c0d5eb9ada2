package aoplintcmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// commandNames, which keeps `aoplint FILE...` off the cli.App, lists exactly the
// App's commands and aliases.
func TestCommandNames(t *testing.T) {
	code := 0
	app := newApp(strings.NewReader(""), io.Discard, io.Discard, &code)
	app.Setup()
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Names()...)
	}
	want := append([]string(nil), commandNames...)
	sort.Strings(names)
	sort.Strings(want)
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("commandNames = %v, the App has %v", want, names)
	}
}

// `aoplint ARGS...` without flags (run without the cli.App) prints and exits
// exactly as `aoplint lint ARGS...` (run by the cli.App) does.
func TestPlainLintAsTheApp(t *testing.T) {
	const fx = "../../../fixtures/"
	for _, args := range [][]string{
		{fx + "aop2/invalid/code_error_code_not_in_taxonomy.json"},
		{fx + "aop2/invalid/detect_banner_line_in_aop2_stream.jsonl", fx + "aos/valid/a2a.json"},
		{fx + "aof/invalid/datadir_bad_events"},
		{"no-such-file.json"},
		{""},
		{fx + "aos/valid/a2a*.json"},
		{fx + "aos/valid/[.json"},
		{"-"},
		{"-", fx + "aos/valid/agentTrigger.json"},
	} {
		if !plainLint(append([]string{"aoplint"}, args...)) {
			t.Fatalf("%q is not a plain lint", args)
		}
		stdin := `{"protocol":"aop2","version":"2.0","type":"TASK"}` + "\n"
		var out1, err1, out2, err2 bytes.Buffer
		c1 := run(append([]string{"aoplint"}, args...), strings.NewReader(stdin), &out1, &err1)
		c2 := run(append([]string{"aoplint", "lint"}, args...), strings.NewReader(stdin), &out2, &err2)
		if c1 != c2 || out1.String() != out2.String() || err1.String() != err2.String() {
			t.Errorf("aoplint %q: exit %d, stdout %d bytes, stderr %q; with the App: exit %d, stdout %d bytes, stderr %q",
				args, c1, out1.Len(), err1.String(), c2, out2.Len(), err2.String())
		}
		if out1.Len()+err1.Len() == 0 {
			t.Errorf("aoplint %q printed nothing", args)
		}
	}
	for _, args := range [][]string{{"aoplint"}, {"aoplint", "rules"}, {"aoplint", "-v", "x"}, {"aoplint", "x", "--format", "json"}, {"aoplint", "x", "--"}, {"aoplint", "help"}} {
		if plainLint(args) {
			t.Errorf("%q is a plain lint", args)
		}
	}
}

// plainDefaults, what `aoplint FILE...` runs with, are the defaults of every lint
// flag, name and alias, as a *cli.Context gives them for a flag not given.
func TestPlainDefaults(t *testing.T) {
	flags := lintFlags()
	ref := flagDefaults(flags)
	var d flagValues = plainDefaults{}
	n := 0
	for _, f := range flags {
		for _, name := range f.Names() {
			n++
			if got, want := d.String(name), ref.String(name); got != want {
				t.Errorf("--%s: String %q, the flag's default %q", name, got, want)
			}
			if got, want := d.Bool(name), ref.Bool(name); got != want {
				t.Errorf("--%s: Bool %v, the flag's default %v", name, got, want)
			}
			if got, want := d.Int(name), ref.Int(name); got != want {
				t.Errorf("--%s: Int %d, the flag's default %d", name, got, want)
			}
			if d.IsSet(name) {
				t.Errorf("--%s: IsSet", name)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d flag names", n)
	}
}

// flagDefaults gives every flag of a list its default value, as a *cli.Context
// does for a flag not given: the reference plainDefaults is held to.
type flagDefaults []cli.Flag

func (d flagDefaults) lookup(name string) cli.Flag {
	for _, f := range d {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func (d flagDefaults) String(name string) string {
	if f, ok := d.lookup(name).(*cli.StringFlag); ok {
		return f.Value
	}
	return ""
}

func (d flagDefaults) Bool(name string) bool {
	if f, ok := d.lookup(name).(*cli.BoolFlag); ok {
		return f.Value
	}
	return false
}

func (d flagDefaults) Int(name string) int {
	if f, ok := d.lookup(name).(*cli.IntFlag); ok {
		return f.Value
	}
	return 0
}

func (d flagDefaults) IsSet(string) bool { return false }

// TestStderrEscapesNames: file names a walk found, and errors naming a path,
// reach the terminal escaped: no ESC, BEL or other control character of a name.
func TestStderrEscapesNames(t *testing.T) {
	dir := t.TempDir()
	name := "x\x1b]0;title\x07\x1b[2J.json"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"name":"no protocol"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	run([]string{"aoplint", "--no-config", "-v", dir, filepath.Join(dir, "missing\x1b[2J\x07.json")}, strings.NewReader(""), &out, &errb)
	all := out.String() + errb.String()
	if strings.ContainsAny(all, "\x1b\x07") {
		t.Errorf("a control character reached the terminal:\n%q", all)
	}
	if !strings.Contains(all, `x\x1b]0;title\a\x1b[2J.json`) || !strings.Contains(all, `missing\x1b[2J\a.json`) {
		t.Errorf("the names are not shown escaped:\n%s", all)
	}
}

// TestDetailsRootFlag: a stored report whose details file is not where aoplint
// runs lints with a warning (exit 0); --details-root names the directory the
// agent ran in, where a missing details file is an error (exit 1) and a present
// one is clean.
func TestDetailsRootFlag(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	report := filepath.Join(dir, "report.txt")
	text := "[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] Search auth code\n\n[AOP:SUMMARY]\n- Found 3 handlers\n\n" +
		"[AOP:DETAILS_FILE] out/search.md\n[AOP:STATUS] success\n[AOP:END] 2026-02-05T10:31:00Z\n"
	if err := os.WriteFile(report, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	lint := func(args ...string) (int, string) {
		var out, errb strings.Builder
		code := run(append([]string{"aoplint"}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := lint(report); code != 0 || !strings.Contains(out, "warning") || !strings.Contains(out, "AOPOUT-DETAILS-002") {
		t.Errorf("without a root: exit %d, want 0 and a AOPOUT-DETAILS-002 warning:\n%s", code, out)
	}
	if code, out := lint("--details-root", root, report); code != 1 || !strings.Contains(out, "error") || !strings.Contains(out, "AOPOUT-DETAILS-002") {
		t.Errorf("with --details-root, missing: exit %d, want 1 and a AOPOUT-DETAILS-002 error:\n%s", code, out)
	}
	os.MkdirAll(filepath.Join(root, "out"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "out", "search.md"), []byte("# Search\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := lint("--details-root", root, report); code != 0 || strings.Contains(out, "AOPOUT-DETAILS") {
		t.Errorf("with --details-root, present: exit %d, want 0, clean:\n%s", code, out)
	}
	if code, _ := lint("--details-root", filepath.Join(root, "nowhere"), report); code != 2 {
		t.Errorf("--details-root naming no directory: exit %d, want 2", code)
	}
}
