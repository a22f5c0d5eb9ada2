package suppress

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/config"
	"github.com/aopkit/aopkit/lint/jsonread"
)

func diag(rule string, line int, ptr string) lint.Diagnostic {
	return lint.Diagnostic{Path: "f", Rule: rule, Severity: lint.Error, Line: line, Pointer: ptr, Message: "m"}
}

func rules(ds []lint.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Rule+"@"+d.Pointer)
	}
	return strings.Join(out, " ")
}

func TestStreamDirectivesCoverTheirLine(t *testing.T) {
	// aos: _meta in params; orchmsg: payload metadata; aop2 root extensions; a
	// member outside an extension object is no directive.
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"x_aoplint_ignore":["AOS-RPC-001"]}}}
{"type":"response:success","id":"r","correlationId":"q","timestamp":"2026-01-01T00:00:00Z","payload":{"metadata":{"x_aoplint_ignore":"ORCH-BASE-002"}}}
{"aop_version":"2.0.2-C","message_type":"TASK","x_aoplint_ignore":["AOP2-SCHEMA-001"]}
{"protocol":"aof","version":1,"type":"status.update","extensions":{"x_aoplint_ignore":["AOF-ENV-001"]}}
`
	dirs, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 2 || dirs[0].Line != 1 || dirs[0].Pointer != "/params" || dirs[1].Line != 2 || dirs[1].Pointer != "/payload" {
		for _, d := range dirs {
			t.Logf("%+v", *d)
		}
		t.Fatalf("want the aos and orchmsg directives only")
	}
	ds := []lint.Diagnostic{
		diag("AOS-RPC-001", 1, "/params/name"),
		diag("AOS-RPC-001", 1, "/id"),          // outside /params
		diag("ORCH-BASE-002", 2, "/payload/x"), // covered
		diag("ORCH-BASE-002", 3, "/payload/x"), // another line
		diag("AOP2-SCHEMA-001", 3, ""),         // root x_ member: not an extension object
	}
	got, _ := ApplyInline("f", ds, dirs, 100)
	if r := rules(got); r != "AOS-RPC-001@/id ORCH-BASE-002@/payload/x AOP2-SCHEMA-001@" {
		t.Errorf("kept %s", r)
	}
}

func TestWholeFileAndUnused(t *testing.T) {
	in := `{
  "aop_version": "2.0.2-C", "message_type": "TASK",
  "task": {"category": "POETRY", "extensions": {"x_aoplint_ignore": ["AOP2-SCHEMA-001", "aop2-limit-001", "NOPE-X-001"]}},
  "extensions": {"x_aoplint_ignore": []}
}`
	dirs, err := Read(strings.NewReader(in))
	if err != nil || len(dirs) != 2 {
		t.Fatalf("%v %v", dirs, err)
	}
	got, _ := ApplyInline("f", []lint.Diagnostic{diag("AOP2-SCHEMA-001", 3, "/task/category"), diag("AOP2-SCHEMA-001", 2, "/target")}, dirs, 100)
	var msgs []string
	for _, d := range got {
		msgs = append(msgs, d.Rule+": "+d.Message)
	}
	want := []string{
		"AOP2-SCHEMA-001: m",
		"GEN-IGNORE-001: suppression of AOP2-LIMIT-001 matches no finding: remove it",
		"GEN-IGNORE-001: suppression of NOPE-X-001: no such rule (aoplint rules lists them)",
		"GEN-IGNORE-001: x_aoplint_ignore names no rule: give rule IDs, such as [\"AOP2-LIMIT-001\"]",
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	if got[1].Line != 3 || got[3].Line != 4 {
		t.Errorf("unused reported at the directive's line: %+v", got)
	}
}

func TestTextMarker(t *testing.T) {
	in := "[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] t\n  aoplint:ignore AOPOUT-STATUS-001,AOPOUT-TIME-001 -- reason\naoplint:ignored nothing\n"
	dirs, err := Read(strings.NewReader(in))
	if err != nil || len(dirs) != 1 || dirs[0].Line != 3 || dirs[0].Column != 3 || strings.Join(dirs[0].Rules, ",") != "AOPOUT-STATUS-001,AOPOUT-TIME-001" {
		t.Fatalf("%+v %v", dirs, err)
	}
}

func TestConfigIgnores(t *testing.T) {
	cfg, err := config.Parse("c.yaml", []byte("ignore:\n  - {path: 'a/*.json', rule: AOP2-SCHEMA-001, pointer: /task}\n  - {path: b.json, rule: AOP2-SCHEMA-001}\n  - {path: c.json, rule: AOP2-SCHEMA-001}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = "/p"
	ig := NewIgnores(cfg)
	got := ig.Apply("/p/a/x.json", []lint.Diagnostic{diag("AOP2-SCHEMA-001", 1, "/task/x"), diag("AOP2-SCHEMA-001", 1, "/taskforce"), diag("AOP2-LIMIT-001", 1, "/task")})
	if r := rules(got); r != "AOP2-SCHEMA-001@/taskforce AOP2-LIMIT-001@/task" {
		t.Errorf("kept %s", r)
	}
	ig.Apply("/p/b.json", nil) // linted, nothing to drop: unused
	un := ig.Unused()
	if len(un) != 1 || un[0].Line != 3 || un[0].Column != 5 || un[0].Path != "c.yaml" || !strings.Contains(un[0].Message, "b.json") {
		t.Errorf("unused: %+v (c.json was not linted: not judged)", un)
	}
}

// FuzzRead: any input is read without a panic, and every directive lies within
// its message's lines.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"aop_version":"2.0.2-C","message_type":"TASK","extensions":{"x_aoplint_ignore":["AOP2-LIMIT-001"]}}`))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"x_aoplint_ignore\":\"AOS-RPC-001\"}}}\n{}\n"))
	f.Add([]byte("[AOP:START] x\naoplint:ignore AOPOUT-STATUS-001 -- why\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dirs, err := Read(strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := collectBlocks(bytes.NewReader(data), 16, lint.MaxMessage)
		if err != nil {
			t.Fatal(err)
		}
		sameDirectives(t, "blocks of 16", got, readEachLine(data, lint.MaxMessage))
		got, err = collectBlocks(bytes.NewReader(data), 16, 40)
		if err != nil {
			t.Fatal(err)
		}
		sameDirectives(t, "blocks of 16, lines of 40", got, readEachLine(data, 40))
		for _, d := range dirs {
			if d.Line < d.FromLine || d.Line > d.ToLine || d.Line < 1 {
				t.Fatalf("directive at line %d outside %d..%d", d.Line, d.FromLine, d.ToLine)
			}
		}
	})
}

// readEachLine is the reading readBlocks replaced: line by line, each line with a
// member parsed but one longer than maxLine+1 bytes with its newline (the linter
// skips it). The differential tests hold readBlocks to it.
func readEachLine(data []byte, maxLine int) []*Directive {
	var out []*Directive
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i, line := range lines {
		if len(line) == 0 || len(line) > maxLine+1 || !bytes.Contains(line, []byte(Member)) {
			continue
		}
		body := bytes.TrimRight(line, "\r\n")
		if root, _, err := jsonread.Parse(body); err == nil {
			out = append(out, fromJSON(root, lint.NewLineIndex(body, i+1, 1), i+1, i+1)...)
		}
	}
	return out
}

func sameDirectives(t *testing.T, what string, got, want []*Directive) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d directives, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := *got[i], *want[i]
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Fatalf("%s: directive %d is %+v, want %+v", what, i, g, w)
		}
	}
}

// TestReadBlocksAgrees: directives and their lines do not depend on where block
// boundaries fall, on CRLF, blank lines, a last line without a newline, or lines
// longer than a block.
func TestReadBlocksAgrees(t *testing.T) {
	hit := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x_aoplint_ignore":"AOS-RPC-001"}}}`
	two := `{"type":"response:success","id":"r","correlationId":"q","timestamp":"2026-01-01T00:00:00Z","payload":{"metadata":{"x_aoplint_ignore":["ORCH-BASE-002"],"n":"x_aoplint_ignore"}}}`
	plain := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		var b bytes.Buffer
		for n := rng.IntN(12); n >= 0; n-- {
			switch rng.IntN(6) {
			case 0:
				b.WriteString(hit)
			case 1:
				b.WriteString(two)
			case 2:
				b.WriteString("x_aoplint_ignore not json")
			case 3:
				b.WriteString(strings.Repeat(" ", rng.IntN(300)) + plain)
			}
			if rng.IntN(4) == 0 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
		if rng.IntN(2) == 0 {
			b.WriteString(hit) // no final newline
		}
		data := b.Bytes()
		want := readEachLine(data, lint.MaxMessage)
		for _, size := range []int{1, 2, 7, 64, 333, linesBlock} {
			got, err := collectBlocks(bytes.NewReader(data), size, lint.MaxMessage)
			if err != nil {
				t.Fatal(err)
			}
			sameDirectives(t, fmt.Sprintf("round %d, blocks of %d", round, size), got, want)
		}
		// Lines too long to lint (as short as some lines here) are skipped.
		for _, maxLine := range []int{0, 30, 90} {
			want := readEachLine(data, maxLine)
			for _, size := range []int{1, 7, 64} {
				got, err := collectBlocks(bytes.NewReader(data), size, maxLine)
				if err != nil {
					t.Fatal(err)
				}
				sameDirectives(t, fmt.Sprintf("round %d, blocks of %d, lines of %d", round, size, maxLine), got, want)
			}
		}
	}
}

// widestRead records the largest buffer a reader was asked to fill.
type widestRead struct {
	r      io.Reader
	widest int
}

func (w *widestRead) Read(p []byte) (int, error) {
	w.widest = max(w.widest, len(p))
	return w.r.Read(p)
}

// TestReadBlocksBoundsLongLines: a line too long to lint is skipped without being
// held: the buffer stays within maxLine+2 bytes however long the line, and the
// lines after it keep their numbers.
func TestReadBlocksBoundsLongLines(t *testing.T) {
	hit := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x_aoplint_ignore":"AOS-RPC-001"}}}`
	long := `{"pad":"` + strings.Repeat("x", 5000) + `","x_aoplint_ignore":"AOS-RPC-002"}`
	for _, tail := range []string{hit + "\n", long} { // a long last line without a newline too
		data := hit + "\n" + long + "\n" + hit + "\n" + tail
		w := &widestRead{r: strings.NewReader(data)}
		got, err := collectBlocks(w, 16, 200)
		if err != nil {
			t.Fatal(err)
		}
		if w.widest > 202 {
			t.Errorf("a read of %d bytes: the buffer grew past maxLine+2 = 202", w.widest)
		}
		sameDirectives(t, "lines of 200", got, readEachLine([]byte(data), 200))
		var lines []int
		for _, d := range got {
			lines = append(lines, d.FromLine)
		}
		want := []int{1, 3}
		if tail == hit+"\n" {
			want = append(want, 4)
		}
		if !slices.Equal(lines, want) {
			t.Errorf("directives on lines %v, want %v", lines, want)
		}
	}
}

// TestOnlyTheRepositorySuppresses: a transcript record holds no directive,
// whoever sent its message and wherever its x_aoplint_ignore is; an orchmsg
// message's metadata counts only as the payload's; an "aoplint:ignore" log line
// of a JSON-lines file is no directive (only an aop-output report has them).
func TestOnlyTheRepositorySuppresses(t *testing.T) {
	ign := `{"x_aoplint_ignore":["ORCH-BASE-002","ORCH-SCHEMA-001"]}`
	bad := `{"type":"event:progress","id":"e1","timestamp":"not a time","payload":{"percent":1,"metadata":` + ign + `},"metadata":` + ign + `}`
	for _, tc := range []struct {
		name, in string
		want     []string // the directives' pointers
	}{
		{"agent record", `{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T00:00:00Z","from":"agent","session":"s","msg":` + bad + "}\n" +
			`{"aopkit":"transcript/1","seq":2,"at":"2026-01-01T00:00:01Z","from":"harness","session":"s","event":"agent-exit"}` + "\n", nil},
		{"orchestrator record", `{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T00:00:00Z","from":"orchestrator","session":"s","msg":` + bad + "}\n", nil},
		{"bare lines", bad + "\n" + bad + "\n", []string{"/payload", "/payload"}},
		{"one message", bad, []string{"/payload"}},
		{"log line", "aoplint:ignore ORCH-BASE-002,ORCH-SCHEMA-001\n" + `{"type":"event:progress","id":"e1","timestamp":"x","payload":{}}` + "\n", nil},
		{"log line first of records", "aoplint:ignore ORCH-BASE-002\n" + `{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T00:00:00Z","from":"agent","session":"s","msg":` + bad + "}\n", nil},
	} {
		dirs, err := Read(strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range dirs {
			got = append(got, d.Pointer)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: directives at %q, want %q", tc.name, got, tc.want)
		}
		var lines []string
		for i, l := range strings.Split(tc.in, "\n") {
			for _, d := range Line([]byte(l), i+1) {
				lines = append(lines, d.Pointer)
			}
		}
		if tc.name != "one message" && !slices.Equal(lines, tc.want) {
			t.Errorf("%s: Line finds directives at %q, want %q", tc.name, lines, tc.want)
		}
	}
}

// collectBlocks is readBlocks' directives in a slice.
func collectBlocks(r io.Reader, size, maxLine int) ([]*Directive, error) {
	var out []*Directive
	err := readBlocks(r, size, maxLine, func(d *Directive) { out = append(out, d) })
	return out, err
}

// plainApply is what ApplyInline did before its index: every finding against
// every directive. TestApplierAgreesWithPlainLoop holds the Applier to it.
func plainApply(path string, ds []lint.Diagnostic, dirs []*Directive) []lint.Diagnostic {
	used := make([]map[string]bool, len(dirs))
	var out []lint.Diagnostic
	for _, d := range ds {
		hit := false
		for k, dir := range dirs {
			if !dir.covers(&d) {
				continue
			}
			for _, r := range dir.Rules {
				if strings.EqualFold(r, d.Rule) {
					if used[k] == nil {
						used[k] = map[string]bool{}
					}
					used[k][d.Rule] = true
					hit = true
				}
			}
		}
		if !hit {
			out = append(out, d)
		}
	}
	for k, dir := range dirs {
		if len(dir.Rules) == 0 {
			out = append(out, unused(path, dir.Line, dir.Column, "%s names no rule: give rule IDs, such as [\"AOP2-LIMIT-001\"]", Member))
			continue
		}
		for _, r := range dir.Rules {
			switch {
			case lint.LookupRule(r) == nil:
				out = append(out, unused(path, dir.Line, dir.Column, "suppression of %s: no such rule (aoplint rules lists them)", r))
			case !used[k][canonical(r)]:
				out = append(out, unused(path, dir.Line, dir.Column, "suppression of %s matches no finding: remove it", canonical(r)))
			}
		}
	}
	return out
}

func TestApplierAgreesWithPlainLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ptrs := []string{"", "/a", "/a/b", "/ab", "/a/b/c", "/x", "/a/"}
	ruleIDs := []string{"AOP2-SCHEMA-001", "aop2-schema-001", "AOP2-LIMIT-001", "GEN-JSON-002", "NOPE-1"}
	for round := range 500 {
		var ds []lint.Diagnostic
		for range rng.IntN(12) {
			ds = append(ds, lint.Diagnostic{Path: "f", Rule: ruleIDs[rng.IntN(4)], Severity: lint.Error, Line: rng.IntN(4), Pointer: ptrs[rng.IntN(len(ptrs))], Message: fmt.Sprint(rng.IntN(9))})
		}
		for i := range ds {
			if ds[i].Rule == "aop2-schema-001" {
				ds[i].Rule = "AOP2-SCHEMA-001"
			}
		}
		var dirs []*Directive
		for range rng.IntN(6) {
			d := &Directive{Line: 1 + rng.IntN(3), Column: 1, Pointer: ptrs[rng.IntN(len(ptrs))]}
			if rng.IntN(2) == 0 {
				d.FromLine, d.ToLine = d.Line, d.Line
			} else {
				d.FromLine, d.ToLine = 1, 1<<31-1
			}
			for range rng.IntN(4) {
				d.Rules = append(d.Rules, ruleIDs[rng.IntN(len(ruleIDs))])
			}
			dirs = append(dirs, d)
		}
		want := plainApply("f", slices.Clone(ds), dirs)
		got, over := ApplyInline("f", slices.Clone(ds), dirs, 1000)
		if over != 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d:\ngot  %v (over %d)\nwant %v\nfindings %v\ndirectives %v", round, got, over, want, ds, derefDirs(dirs))
		}
	}
}

func derefDirs(ds []*Directive) []Directive {
	out := make([]Directive, len(ds))
	for i, d := range ds {
		out[i] = *d
	}
	return out
}

// TestContainersWhereTheSpecsPutThem: aof's and aop-output's metadata hold
// directives at the top level only (run.json's, the details file's), orchmsg's
// in the payload only; aop2's extensions anywhere.
func TestContainersWhereTheSpecsPutThem(t *testing.T) {
	ign := `{"x_aoplint_ignore":"AOF-ENV-001"}`
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`{"taskId":"TASK-2026-02-09-057","agentId":"swe-backend","startedAt":"2026-02-09T20:55:00.000Z","status":"running","artifactPaths":{"inputs":"inputs/","work":"work/","output":"output/"},"metadata":` + ign + `}`, []string{""}},
		{`{"taskId":"TASK-2026-02-09-057","agentId":"swe-backend","startedAt":"2026-02-09T20:55:00.000Z","status":"running","artifactPaths":{"inputs":"inputs/","work":"work/","output":"output/","metadata":` + ign + `},"metadata":{}}`, nil},
		{`{"type":"event:progress","id":"e","timestamp":"2026-01-01T00:00:00Z","payload":{"x":{"metadata":` + ign + `}}}`, nil},
		{`{"aop_version":"2.0.2-C","message_type":"TASK","task":{"extensions":` + ign + `}}`, []string{"/task"}},
	} {
		dirs, err := Read(strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range dirs {
			got = append(got, d.Pointer)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: directives at %q, want %q", tc.in, got, tc.want)
		}
	}
}
