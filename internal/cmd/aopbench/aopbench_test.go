package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/schemas"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	d := summarize([]float64{5, 1, 4, 2, 3})
	if d.N != 5 || d.Median != 3 || d.Min != 1 || d.Max != 5 || d.P25 != 2 || d.P75 != 4 {
		t.Errorf("summarize = %+v", d)
	}
	if got := summarize([]float64{1, 2}).Median; got != 1.5 {
		t.Errorf("median of 1, 2 = %v", got)
	}
	if got := (dist{Median: 4, P25: 3, P75: 5}).spread(); got != 50 {
		t.Errorf("spread = %v, want 50", got)
	}
	if d := summarize(nil); d.N != 0 {
		t.Errorf("summarize(nil) = %+v", d)
	}
}

func TestParseBench(t *testing.T) {
	t.Parallel()
	out := `goos: linux
BenchmarkLintStream     	       1	7012345678 ns/op	   9.57 MB/s	     14133 lines/cpu-s	      4851 lines/s	565976952 B/op	12746508 allocs/op
BenchmarkLintStream-2   	       1	3000000000 ns/op	  20.00 MB/s	      9000 lines/s
PASS`
	rows := parseBench(out)
	if len(rows) != 2 {
		t.Fatalf("parsed %d rows: %+v", len(rows), rows)
	}
	if r := rows[0]; r.Name != "LintStream" || r.CPU != 1 || r.Metrics["ns/op"][0] != 7012345678 || r.Metrics["lines/cpu-s"][0] != 14133 || r.Metrics["allocs/op"][0] != 12746508 {
		t.Errorf("row 0 = %+v", r)
	}
	if r := rows[1]; r.CPU != 2 || r.Metrics["lines/s"][0] != 9000 {
		t.Errorf("row 1 = %+v", r)
	}
}

func TestParseInitTrace(t *testing.T) {
	t.Parallel()
	it := parseInitTrace("init runtime @0.008 ms, 0.12 ms clock, 0 bytes, 0 allocs\n" +
		"init github.com/xeipuuv/gojsonschema @1.2 ms, 0.46 ms clock, 127488 bytes, 905 allocs\nother line\n")
	if len(it.Top) != 2 || it.Top[0].Pkg != "github.com/xeipuuv/gojsonschema" || it.Top[0].Allocs != 905 {
		t.Errorf("parseInitTrace = %+v", it)
	}
	if it.TotalMS < 0.579 || it.TotalMS > 0.581 {
		t.Errorf("total = %v ms, want 0.58", it.TotalMS)
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"100MB": 100e6, "1GB": 1e9, "1.5kb": 1500, "42": 42} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MB", "-1GB", "x"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q): want an error", in)
		}
	}
}

// TestBundle: every schema bundles into one document without references to other
// files, and every reference points at a definition that exists.
func TestBundle(t *testing.T) {
	t.Parallel()
	files, err := fs.Glob(schemas.FS, "*/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	for _, f := range files {
		data, err := bundle(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Errorf("%s: bundled schema is not JSON: %v", f, err)
			continue
		}
		root, _, err := jsonread.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		walkRefs(v, func(ref string) string {
			if !strings.HasPrefix(ref, "#") {
				t.Errorf("%s: reference %q left outside the bundle", f, ref)
			} else if root.Lookup(strings.TrimPrefix(ref, "#")) == nil {
				t.Errorf("%s: reference %q points at nothing", f, ref)
			}
			return ref
		})
	}
}

func TestSignature(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT"}`: "aop2|EVENT|HEARTBEAT",
		`{"aop_version":"2.0.2-C","message_type":"RESPONSE"}`:                  "aop2|RESPONSE",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:                             "aos|request|ping",
		`{"jsonrpc":"2.0","id":1,"result":{"status":"connected"}}`:             "aos|ping-result",
		`{"jsonrpc":"2.0","id":1,"result":{"decision":"allow"}}`:               "aos|result",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}`:                     "aos|error",
		`{"protocol":"aof","version":1,"type":"status.update"}`:                "aof|status.update",
		`{"type":"event:log","id":"evt-1"}`:                                    "orchmsg|event:log",
		`{"type":1}`:                                                           "",
		`[1,2]`:                                                                "",
	} {
		root, _, err := jsonread.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := signature(root); got != want {
			t.Errorf("signature(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "t.jsonl")
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		b.WriteString(`{"line":` + strings.Repeat("1", i%7+1) + "}\n")
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	parts, err := split(file, 3)
	if err != nil {
		t.Fatal(err)
	}
	var joined strings.Builder
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 || data[len(data)-1] != '\n' {
			t.Errorf("%s does not end at a line boundary", p)
		}
		joined.Write(data)
	}
	if len(parts) != 3 || joined.String() != b.String() {
		t.Errorf("split into %d parts that do not add up to the file", len(parts))
	}
}

// TestAjvLines runs .ci/bench/ajv-lines.js over the single-message JSON fixtures
// that aoplint accepts: the script must find a schema for every message (its
// signature agrees with the Go one) and ajv must accept the messages too. Skipped
// without node and the bench's node_modules (.ci/bench/run installs them).
func TestAjvLines(t *testing.T) {
	nodeModules, _ := filepath.Abs("../../../.ci/bench/node_modules")
	if _, err := os.Stat(filepath.Join(nodeModules, "ajv-formats")); err != nil {
		t.Skip("ajv is not installed under .ci/bench/node_modules (run .ci/bench/run)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	dir := t.TempDir()
	var lines []string
	for _, p := range []string{"aop2", "aos", "aof", "orchmsg"} {
		files, _ := filepath.Glob(filepath.Join("../../../fixtures", p, "valid", "spec_*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if json.Compact(&buf, data) != nil || buf.Len() == 0 || buf.Bytes()[0] != '{' {
				continue
			}
			if root, _, err := jsonread.Parse(buf.Bytes()); err != nil || signature(root) == "" {
				continue // not a stream message (AOF run artifacts)
			}
			lines = append(lines, buf.String())
		}
	}
	if len(lines) == 0 {
		t.Skip("no fixtures")
	}
	transcript := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(transcript, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	schemaDir := filepath.Join(dir, "schemas")
	if err := exportSchemas(schemaDir); err != nil {
		t.Fatal(err)
	}
	m, err := schemaMap(transcript, 1000)
	if err != nil {
		t.Fatal(err)
	}
	mapFile := filepath.Join(dir, "map.json")
	data, _ := json.Marshal(m)
	if err := os.WriteFile(mapFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "../../../.ci/bench/ajv-lines.js", schemaDir, mapFile, transcript)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ajv-lines.js: %v", err)
	}
	var got ajvSummary
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if got.Lines != int64(len(lines)) || got.NotJSON != 0 || got.Unknown != 0 {
		t.Errorf("ajv-lines over %d fixtures: %s", len(lines), out)
	}
	if got.Invalid != 0 {
		t.Errorf("ajv rejects %d of the %d spec fixtures aoplint accepts: %s", got.Invalid, len(lines), out)
	}
}

// inspectBinary reads this test's own executable.
func TestInspectBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	f, err := inspectBinary(exe)
	if err != nil {
		t.Fatal(err)
	}
	if f.Size <= 0 || f.Go != runtime.Version() {
		t.Errorf("facts %+v", f)
	}
	if f.links("no-such-module.example") {
		t.Error("links a module it cannot link")
	}
	if len(f.Modules) > 0 && !f.links(f.Modules[0]) {
		t.Errorf("does not link %s, which it lists", f.Modules[0])
	}
}

// medianInit takes each package's median clock over the runs, and the median total.
func TestMedianInit(t *testing.T) {
	run := func(a, b float64) initTrace {
		return parseInitTrace(fmt.Sprintf("init a @0 ms, %g ms clock, 10 bytes, 1 allocs\ninit b @0 ms, %g ms clock, 0 bytes, 0 allocs\n", a, b))
	}
	it := medianInit([]initTrace{run(1, 0.1), run(3, 0.5), run(2, 9)}, 1)
	if it.Runs != 3 || it.Packages != 2 || len(it.Top) != 1 || it.Top[0].Pkg != "a" || it.Top[0].ClockMS != 2 || it.Top[0].Bytes != 10 {
		t.Errorf("medianInit = %+v", it)
	}
	if it.TotalMS != 3.5 {
		t.Errorf("total = %v, want the median of 1.1, 3.5, 11", it.TotalMS)
	}
	if it.StdMS != 3.5 || it.AopkitMS != 0 || it.ModulesMS != 0 {
		t.Errorf("by origin: %+v", it)
	}
	if origin("github.com/aopkit/aopkit/lint/aof") != "aopkit" || origin("gopkg.in/yaml%2ev3") != "module" || origin("net/url") != "std" {
		t.Error("origin")
	}
}

func TestInstrPerLine(t *testing.T) {
	if got := median([]int64{5, 1, 3}); got != 3 {
		t.Errorf("medianInt odd = %v", got)
	}
	if got := median([]int64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("medianInt even = %v", got)
	}
	row := instrRow{Full: []int64{1_200, 1_000, 1_100}, Empty: []int64{100, 100, 100}}
	if got := row.perLine(10); got != 100 {
		t.Errorf("perLine = %v, want (1100-100)/10", got)
	}
	var b bench
	b.r.Instr = instrResult{Valgrind: "valgrind-3.19.0", Transcript: genStats{Messages: 10, Lines: 10, Bytes: 1000},
		Rows: []instrRow{row, {Name: "floor", Full: []int64{600}, Empty: []int64{100}, Floor: true}}}
	var r report
	b.reportInstr(&r)
	if !strings.Contains(r.String(), "| 100 | 2.00× |") || !strings.Contains(r.String(), "| 50 | 1.00× |") {
		t.Errorf("report:\n%s", r.String())
	}
	var none bench
	var r2 report
	none.reportInstr(&r2)
	if r2.String() != "" {
		t.Errorf("no measurement, yet a section: %q", r2.String())
	}
}

func TestCallgrindCount(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not installed")
	}
	n, err := callgrind(nil, []string{"/bin/true"})
	if err != nil || n <= 0 {
		t.Fatalf("callgrind /bin/true = %d, %v", n, err)
	}
}

// TestRoundRows: each round's two-worker figures are taken against the
// one-worker run of the same round, not the medians.
func TestRoundRows(t *testing.T) {
	s := func(wall, cpu float64) sample {
		return sample{Wall: time.Duration(wall * float64(time.Second)), CPU: time.Duration(cpu * float64(time.Second))}
	}
	b := &bench{}
	b.r.Large.Configs = []largeConfig{
		{Name: "aoplint", Workers: "1 (GOMAXPROCS=1)", Samples: []sample{s(4, 4), s(4, 4.4)}},
		{Name: "aoplint", Workers: "all (2 cores)", Samples: []sample{s(2, 4.2), s(2.5, 5.5)}},
		{Name: "aoplint's linter, 2 lints in one process, one file each", Workers: "2 goroutines, one worker each", Samples: []sample{s(2, 4), s(2.2, 4.84)}},
	}
	got := fmt.Sprint(b.roundRows())
	want := "[[1 4.00 s 1.05×, 2.00× 1.00×] [2 4.40 s 1.25×, 1.60× 1.10×]]"
	if got != want {
		t.Errorf("roundRows = %s, want %s", got, want)
	}
	b.r.Large.Configs = b.r.Large.Configs[:2]
	if rows := b.roundRows(); rows != nil {
		t.Errorf("without the two lints: %v, want none", rows)
	}
}
