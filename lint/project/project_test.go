package project

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/config"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/suppress"
)

// TestSelect is the table of docs/configuration.md §Which files are protocol
// files: a file without a marker by --unrecognised and where it came from.
func TestSelect(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "package.json")
	msg := filepath.Join(dir, "m.json")
	other := filepath.Join(dir, "notes.md")
	os.WriteFile(plain, []byte(`{"name":"x"}`), 0o644)
	os.WriteFile(msg, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 0o644)
	os.WriteFile(other, []byte(`{"jsonrpc":"2.0"}`), 0o644)
	cases := []struct {
		mode                  string
		plainNamed, plainWalk bool
	}{
		{config.UnrecognisedAuto, true, false},
		{config.UnrecognisedSkip, false, false},
		{config.UnrecognisedError, true, true},
	}
	for _, tc := range cases {
		p, err := Open(Options{NoConfig: true, Unrecognised: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Select(plain, true); got != tc.plainNamed {
			t.Errorf("%s: named package.json selected = %v", tc.mode, got)
		}
		if got := p.Select(plain, false); got != tc.plainWalk {
			t.Errorf("%s: walked package.json selected = %v", tc.mode, got)
		}
		if !p.Select(msg, true) || !p.Select(msg, false) {
			t.Errorf("%s: a message is always selected", tc.mode)
		}
		if p.Select(other, false) {
			t.Errorf("%s: a walk picks up a .md file", tc.mode)
		}
		if !p.Select(other, true) {
			t.Errorf("%s: a file named on the command line is linted whatever its name", tc.mode)
		}
	}
	p, _ := Open(Options{NoConfig: true})
	p.Select(plain, false)
	if len(p.Skipped) != 1 || p.SkippedLine() != "1 file skipped: no protocol detected (--verbose lists it)" {
		t.Errorf("skipped: %v %q", p.Skipped, p.SkippedLine())
	}
}

// TestMarkedLinesOfLargeFile: for a file over suppress.MaxWhole read as JSON lines,
// the directives come from the lines the linter kept (FileResult.Marked), and an
// unused one is reported even when the file has no other finding.
func TestMarkedLinesOfLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(suppress.MaxWhole + 1); err != nil { // sparse: only its size is read
		t.Fatal(err)
	}
	f.Close()
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x_aoplint_ignore":["AOS-RPC-001"]}}}` + "\n")
	p, err := Open(Options{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	res := p.File(linter.FileResult{Path: path, Diagnostics: []lint.Diagnostic{}, Marked: &linter.MarkedLines{Lines: []linter.MarkedLine{{Line: 7, Text: line}}}}, "-")
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Rule != suppress.Unused.ID || res.Diagnostics[0].Line != 7 {
		t.Fatalf("want one %s at line 7, got %+v", suppress.Unused.ID, res.Diagnostics)
	}
	d := lint.Diagnostic{Path: path, Rule: "AOS-RPC-001", Severity: lint.Error, Line: 7, Pointer: "/params/name", Message: "m"}
	res = p.File(linter.FileResult{Path: path, Diagnostics: []lint.Diagnostic{d}, Marked: &linter.MarkedLines{Lines: []linter.MarkedLine{{Line: 7, Text: line}}}}, "-")
	if len(res.Diagnostics) != 0 {
		t.Fatalf("the directive on line 7 should drop its finding: %+v", res.Diagnostics)
	}
}

// TestMarkedLinesAgreeWithRead: the directives found in the lines the linter kept
// for suppress.Member are those suppress.Read finds reading the input again, over
// records, bare messages of each protocol, the member as a value, in a record's
// text, in broken JSON, with CRLF, serial and parallel.
func TestMarkedLinesAgreeWithRead(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x_aoplint_ignore":["AOS-RPC-001"]}}}`,
		`{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T00:00:00Z","from":"agent","session":"s","msg":{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"x_aoplint_ignore":"AOS-RPC-002"}}}}`,
		`{"aopkit":"transcript/1","seq":2,"at":"2026-01-01T00:00:01Z","from":"agent","session":"s","text":"{\"x_aoplint_ignore\":1}"}`,
		`{"type":"response:success","id":"r","correlationId":"q","timestamp":"2026-01-01T00:00:00Z","payload":{"metadata":{"x_aoplint_ignore":["ORCH-BASE-002"]}}}`,
		`{"aop_version":"2.0.2-C","message_type":"TASK","extensions":{"x_aoplint_ignore":["AOP2-SCHEMA-001"]},"note":"x_aoplint_ignore"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"note":"x_aoplint_ignore"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"x_aoplint_ignore":["AOS-RPC-001"]}}`, // broken
		`not json x_aoplint_ignore`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
		``,
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 50; round++ {
		var b strings.Builder
		b.WriteString(lines[8] + "\n") // JSON lines from the first line on
		for n := rng.IntN(30); n >= 0; n-- {
			b.WriteString(lines[rng.IntN(len(lines))])
			if rng.IntN(3) == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		in := b.String()
		want, err := suppress.Read(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			res, err := linter.LintStream("t", strings.NewReader(in), linter.Options{Workers: workers, Marker: suppress.Member})
			if err != nil || res.Marked == nil {
				t.Fatalf("workers %d: %v, marked %v", workers, err, res.Marked)
			}
			var got []*suppress.Directive
			for _, l := range res.Marked.Lines {
				got = append(got, suppress.Line(l.Text, l.Line)...)
			}
			if fmt.Sprint(derefs(got)) != fmt.Sprint(derefs(want)) {
				t.Fatalf("round %d, workers %d:\ngot  %v\nwant %v\ninput:\n%s", round, workers, derefs(got), derefs(want), in)
			}
		}
	}
}

func derefs(ds []*suppress.Directive) []suppress.Directive {
	out := make([]suppress.Directive, len(ds))
	for i, d := range ds {
		out[i] = *d
	}
	return out
}

// TestTranscriptCannotSuppress: aoplint on a transcript aopconform wrote reports
// the errors of an agent message whose metadata names them in x_aoplint_ignore
// (at the top level and in the payload): the verdict is aopconform's.
func TestTranscriptCannotSuppress(t *testing.T) {
	ign := `{"x_aoplint_ignore":["ORCH-BASE-002","ORCH-SCHEMA-001"]}`
	msg := `{"type":"event:progress","id":"e1","timestamp":"not a time","payload":{"percent":1,"metadata":` + ign + `},"metadata":` + ign + `}`
	in := `{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T00:00:00.000Z","from":"agent","protocol":"orchmsg","stream":"stdout","session":"s","msg":` + msg + "}\n" +
		`{"aopkit":"transcript/1","seq":2,"at":"2026-01-01T00:00:01.000Z","from":"harness","session":"s","event":"agent-exit","detail":{"code":0}}` + "\n"
	for _, name := range []string{"t.jsonl", "big.jsonl"} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := Open(Options{NoConfig: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := linter.LintFile(path, p.Options(path, linter.Options{Workers: 1}))
		if err != nil {
			t.Fatal(err)
		}
		if name == "big.jsonl" {
			if res.Marked == nil {
				t.Fatal("the stream kept no marked lines")
			}
			if err := os.Truncate(path, suppress.MaxWhole+1); err != nil { // read the marked lines, not the file
				t.Fatal(err)
			}
		}
		res = p.File(res, "-")
		seen := map[string]bool{}
		for _, d := range res.Diagnostics {
			seen[d.Rule] = true
		}
		if !seen["ORCH-BASE-002"] || !seen["ORCH-SCHEMA-001"] || seen[suppress.Unused.ID] {
			t.Errorf("%s: want ORCH-BASE-002 and ORCH-SCHEMA-001 reported, no GEN-IGNORE-001: %+v", name, res.Diagnostics)
		}
	}
}

// TestUnusedSuppressionsAreCapped: a directive naming more unknown rules than
// an input keeps findings gives at most linter.MaxDiagnostics findings and a
// note that the others were not kept; they count, at the severity the
// configuration gives GEN-IGNORE-001 (none when it is off). With a stream that
// already filled the cap, the linter's note and the count grow.
func TestUnusedSuppressionsAreCapped(t *testing.T) {
	const names = 3 * linter.MaxDiagnostics
	var b strings.Builder
	b.WriteString(`{"aop_version":"2.0.2-C","message_type":"TASK","extensions":{"x_aoplint_ignore":"`)
	for i := range names {
		fmt.Fprintf(&b, "NOPE-%d ", i)
	}
	b.WriteString(`"}}`)
	one := b.String()
	full := strings.Repeat(`{"type":"event:progress","id":"e1","timestamp":"not a time","payload":{}}`+"\n", linter.MaxDiagnostics/2) +
		`{"type":"event:progress","id":"e1","timestamp":"2026-01-01T00:00:00Z","payload":{"metadata":{"x_aoplint_ignore":"` + strings.Repeat("NOPE ", names) + `"}}}` + "\n"
	for _, tc := range []struct {
		name, in, config string
		want             lint.Severity
		off              bool
		notes            int // notes that findings were not kept
	}{
		{"one message", one, "", lint.Warning, false, 1},
		{"graded", one, "rules: {GEN-IGNORE-001: error}\n", lint.Error, false, 1},
		{"off", one, "rules: {GEN-IGNORE-001: off}\n", 0, true, 0},
		{"stream past the cap", full, "", lint.Warning, false, 1},
		{"its note off", full, "rules: {GEN-SIZE-001: off}\n", lint.Warning, false, 0},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		o := Options{NoConfig: true}
		if tc.config != "" {
			o = Options{Config: filepath.Join(dir, ".aoplint.yaml")}
			if err := os.WriteFile(o.Config, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := linter.LintFile(path, p.Options(path, linter.Options{Workers: 1}))
		if err != nil {
			t.Fatal(err)
		}
		var before struct{ e, w int }
		before.e, before.w, _ = res.Counts()
		res = p.File(res, "-")
		if len(res.Diagnostics) > linter.MaxDiagnostics+1 {
			t.Errorf("%s: %d findings kept, want at most %d and the note", tc.name, len(res.Diagnostics), linter.MaxDiagnostics)
		}
		e, w, _ := res.Counts()
		notes := 0
		for _, d := range res.Diagnostics {
			if strings.Contains(d.Message, "were found and not kept") {
				notes++
				if res.NotKept == nil || !strings.HasPrefix(d.Message, fmt.Sprint(res.NotKept.Total())+" more") {
					t.Errorf("%s: note %q, not kept %+v", tc.name, d.Message, res.NotKept)
				}
			}
		}
		switch {
		case tc.off:
			if res.NotKept != nil || notes != 0 || e != before.e || w != before.w {
				t.Errorf("%s: GEN-IGNORE-001 is off: counts %d/%d (were %d/%d), not kept %+v, notes %d", tc.name, e, w, before.e, before.w, res.NotKept, notes)
			}
		case notes != tc.notes:
			t.Errorf("%s: %d notes that findings were not kept, want %d", tc.name, notes, tc.notes)
		case tc.want == lint.Error && e != before.e+names:
			t.Errorf("%s: %d errors, want %d", tc.name, e, before.e+names)
		case tc.want == lint.Warning && w != before.w+names:
			t.Errorf("%s: %d warnings, want %d", tc.name, w, before.w+names)
		}
	}
}

// --baseline-write refuses a baseline that cannot list an input's errors past
// the per-input cap, and writes one when only infos were not kept.
func TestBaselineWriteNotKept(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		notKept linter.SeverityCounts
		refuse  bool
	}{
		{linter.SeverityCounts{Errors: 3}, true},
		{linter.SeverityCounts{Warnings: 1}, true},
		{linter.SeverityCounts{Infos: 5}, false},
	} {
		file := filepath.Join(dir, "base.json")
		os.Remove(file)
		p, err := Open(Options{NoConfig: true, BaselineWrite: file})
		if err != nil {
			t.Fatal(err)
		}
		nk := c.notKept
		p.File(linter.FileResult{Path: filepath.Join(dir, "big.jsonl"), NotKept: &nk}, "<stdin>")
		_, err = p.Close()
		_, statErr := os.Stat(file)
		if c.refuse != (err != nil) || c.refuse != os.IsNotExist(statErr) || (c.refuse && p.Written >= 0) {
			t.Errorf("not kept %+v: Close %v, file %v, written %d", c.notKept, err, statErr, p.Written)
		}
	}
}
