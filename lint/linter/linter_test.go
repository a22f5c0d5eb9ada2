package linter

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
)

// A toy protocol proves the driver: detection, positions, claims, sequence state.
func init() {
	lint.RegisterProtocol(&lint.Protocol{ID: "toy", Name: "toy", Kinds: []string{"ping", "pong"},
		Detect: func(root *jsonread.Node, name string) (string, string, int) {
			if root.Get("toy") == nil {
				return "", "", 0
			}
			return root.Get("toy").String(), "", 90
		},
		Schema: func(kind string) string { return "transcript/record.schema.json" },
	})
	lint.Register(&lint.Rule{ID: "TOY-001", Protocol: "toy", Kinds: []string{"ping"}, Severity: lint.Warning, Spec: "toy §1",
		Run: func(p *lint.Pass) {
			if n := p.Node("/n"); n != nil {
				if v, _ := n.Int(); v > 3 {
					p.Reportf("/n", "n is %d, over 3", v)
				}
			}
		}})
	lint.Register(&lint.Rule{ID: "TOY-SCHEMA", Protocol: "toy", Kinds: []string{"schema"}, Severity: lint.Error, Spec: "toy §0", Schema: true, Run: schema.Run})
	lint.Register(&lint.Rule{ID: "TOY-CLAIM", Protocol: "toy", Kinds: []string{"schema"}, Severity: lint.Error, Spec: "toy §0",
		Run: func(p *lint.Pass) {
			if p.Node("/from") != nil {
				p.Reportf("/from", "precise")
				p.Claim("/from")
			}
		}})
	lint.Register(&lint.Rule{ID: "TOY-SEQ", Protocol: "toy", Severity: lint.Error, Spec: "toy §2",
		NewChecker: func() lint.Checker { return &pairs{} }})
}

type pairs struct {
	open []lint.Related
}

func (c *pairs) Observe(p *lint.Pass) {
	switch p.Msg.Kind {
	case "ping":
		c.open = append(c.open, lint.Witness(p.Msg, "", "ping here"))
	case "pong":
		if len(c.open) == 0 {
			p.Reportf("", "pong without ping")
			return
		}
		c.open = c.open[1:]
	}
}

func (c *pairs) Finish(p *lint.Pass) {
	for _, w := range c.open {
		p.ReportAtf(lint.Error, w, nil, "ping never answered")
	}
}

func diagString(r FileResult) string {
	var b strings.Builder
	for _, d := range r.Diagnostics {
		b.WriteString(d.Rule + "@" + itoa(d.Line) + ":" + itoa(d.Column) + " " + d.Pointer + " " + d.Message + "\n")
	}
	return b.String()
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		s = string(rune('0'+i%10)) + s
		i /= 10
	}
	if neg {
		s = "-" + s
	}
	return s
}

func TestDriver(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string // substrings of the diagnostics, in order
		proto    string
	}{
		{"single ok", `{"toy":"pong","n":1}`, []string{"TOY-SEQ@1:1  pong without ping"}, "toy"},
		{"rule position", "{\n  \"toy\": \"ping\",\n  \"n\": 7\n}", []string{"TOY-SEQ@1:1  ping never answered", "TOY-001@3:8 /n n is 7"}, "toy"},
		{"duplicate key", `{"toy":"pong","toy":"pong"}`, []string{"TOY-SEQ@1:1  pong without ping", "GEN-JSON-002@1:15 /toy"}, "toy"},
		{"syntax", `{"toy":"ping",}`, []string{"GEN-JSON-001@1:15"}, ""},
		{"trailing", `{"toy":"ping"} x`, []string{"GEN-JSON-003@1:16"}, "toy"},
		{"unstructured", `{"hello":1}`, []string{"GEN-DETECT-001@1:1"}, ""},
		{"text", `hello world`, []string{"GEN-DETECT-001@1:1"}, ""},
		{"empty", "  \n", []string{"GEN-INPUT-001"}, ""},
		{"stream", "{\"toy\":\"ping\"}\n{\"toy\":\"pong\"}\n{\"toy\":\"pong\"}\n", []string{"TOY-SEQ@3:1  pong without ping"}, "toy"},
		{"stream log line", "{\"toy\":\"ping\"}\nlog\n{\"toy\":\"pong\"}\n", []string{"GEN-DETECT-002@2:1"}, "toy"},
		{"aof prefix", "AOF/1 {\"x\":1}", []string{"@1:7"}, "aof"},
		{"record", `{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T00:00:00Z","from":"agent","msg":{"toy":"ping","n":9}}` + "\n" + `{"aopkit":"transcript/1","seq":2,"at":"2026-01-01T00:00:01Z","from":"agent","msg":{"toy":"pong"}}` + "\n",
			[]string{"TOY-001@1:101 /n n is 9"}, "toy"},
		{"bad record", `{"aopkit":"transcript/1","from":"x","msg":{"toy":"pong"}}` + "\n" + `{"toy":"pong"}` + "\n", []string{"GEN-TRANSCRIPT-001@1:1 /at", "GEN-TRANSCRIPT-001@1:1 /seq", "GEN-TRANSCRIPT-001@1:33 /from"}, "toy"},
		{"schema and claim", `{"toy":"schema","from":"nobody"}`, []string{"TOY-SCHEMA@1:1 /aopkit \"aopkit\" is required", "TOY-CLAIM@1:24 /from precise"}, "toy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := LintBytes("in.json", []byte(tc.in), Options{})
			got := diagString(r)
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("want %q in order in:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(got, "TOY-SCHEMA@1:24 /from") {
				t.Fatalf("claimed pointer still has a schema diagnostic:\n%s", got)
			}
			if tc.want == nil && got != "" {
				t.Fatalf("want no diagnostics, got:\n%s", got)
			}
			if r.Protocol != tc.proto {
				t.Errorf("protocol %q, want %q", r.Protocol, tc.proto)
			}
		})
	}
}

// TestParallelMatchesSerial: the worker pool gives exactly the serial result.
func TestParallelMatchesSerial(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		switch i % 7 {
		case 0:
			b.WriteString(`{"toy":"pong"}` + "\n")
		case 3:
			b.WriteString("not json\n")
		case 5:
			b.WriteString(`{"toy":"ping","n":9,"n":1}` + "\n")
		default:
			b.WriteString(`{"toy":"ping","n":` + fmtInt(i%5) + `}` + "\n")
		}
	}
	in := b.String()
	serial, err := LintStream("s.jsonl", strings.NewReader(in), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 8} {
		par, err := LintStream("s.jsonl", strings.NewReader(in), Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if diagString(par) != diagString(serial) || par.Messages != serial.Messages {
			t.Fatalf("workers=%d differs from serial", w)
		}
	}
	if serial.Messages != 3000 || len(serial.Diagnostics) == 0 {
		t.Fatalf("unexpected serial result: %d messages, %d diagnostics", serial.Messages, len(serial.Diagnostics))
	}
}

// TestParallelBatchesMatchSerial: lines of mixed sizes under a small in-flight
// budget (batches closed by bytes, a line held over to the next batch, workers
// waiting for the budget), a line longer than a batch, one over MaxMessage and
// a read error part way give the serial result, the error included.
func TestParallelBatchesMatchSerial(t *testing.T) {
	defer func(v int) { inflightBytes = v }(inflightBytes)
	inflightBytes = 1 << 10
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		pad := strings.Repeat("x", (i*7919)%512)
		b.WriteString(`{"toy":"ping","n":` + fmtInt(i%5) + `,"pad":"` + pad + `"}` + "\n")
		if i%11 == 0 {
			b.WriteString("\n  \n")
		}
		switch i {
		case 500: // longer than a batch and than the line reader's buffer
			b.WriteString(`{"toy":"ping","n":1,"pad":"` + strings.Repeat("y", 300<<10) + `"}` + "\n")
		case 1000: // over MaxMessage: skipped by the reader, reported with GEN-SIZE-001
			b.WriteString(strings.Repeat("z", MaxMessage+2) + "\n")
		}
	}
	in := b.String()
	failAt := len(in) * 2 / 3
	run := func(workers int, r io.Reader) (FileResult, error) {
		return LintStream("s.jsonl", r, Options{Workers: workers})
	}
	serial, err := run(1, strings.NewReader(in))
	if err != nil || serial.Messages != 2001 || !strings.Contains(diagString(serial), "GEN-SIZE-001") {
		t.Fatalf("serial: %d messages, err %v", serial.Messages, err)
	}
	serialCut, cutErr := run(1, io.MultiReader(strings.NewReader(in[:failAt]), iotest.ErrReader(errBroken)))
	if cutErr != errBroken {
		t.Fatalf("serial: err %v, want %v", cutErr, errBroken)
	}
	// On one thread too: a worker waiting for the budget or for its batch to
	// fall due must let the one whose batch is due run.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, max(2, runtime.NumCPU())} {
		runtime.GOMAXPROCS(procs)
		for _, w := range []int{2, 3, 8} {
			par, err := run(w, strings.NewReader(in))
			if err != nil || diagString(par) != diagString(serial) || par.Messages != serial.Messages {
				t.Fatalf("GOMAXPROCS=%d workers=%d differs from serial (err %v, %d messages)", procs, w, err, par.Messages)
			}
			par, err = run(w, io.MultiReader(strings.NewReader(in[:failAt]), iotest.ErrReader(errBroken)))
			if err != errBroken || diagString(par) != diagString(serialCut) || par.Messages != serialCut.Messages {
				t.Fatalf("GOMAXPROCS=%d workers=%d, read error: err %v, %d messages, want the serial %d", procs, w, err, par.Messages, serialCut.Messages)
			}
			// Cores shared with other files: the stream starts with one
			// worker and adds the others only when no file is left to
			// start; the cores it added are given back.
			for _, toStart := range []int{0, 1} {
				cores := NewCores(w, toStart)
				var grew atomic.Int32
				testHookGrew = func() { grew.Add(1) }
				par, err := LintStream("s.jsonl", strings.NewReader(in), Options{Workers: w, Cores: cores})
				testHookGrew = nil
				if err != nil || diagString(par) != diagString(serial) || par.Messages != serial.Messages {
					t.Fatalf("GOMAXPROCS=%d workers=%d, shared cores (%d files to start): differs from serial (err %v, %d messages)", procs, w, toStart, err, par.Messages)
				}
				want := int32(w - 1)
				if toStart > 0 {
					want = 0
				}
				if grew.Load() != want {
					t.Fatalf("GOMAXPROCS=%d workers=%d, shared cores (%d files to start): added %d workers, want %d", procs, w, toStart, grew.Load(), want)
				}
				if toStart == 0 {
					for k := range w {
						if !cores.tryExtra() {
							t.Fatalf("workers=%d: core %d of the stream's not given back", w, k)
						}
					}
				}
			}
		}
	}
}

var errBroken = errors.New("broken reader")

// TestScenarioEndFinishesSession: a harness scenario-end record finishes the
// session's sequence rules at once and drops their state.
func TestScenarioEndFinishesSession(t *testing.T) {
	rec := func(seq int, body string) string {
		return `{"aopkit":"transcript/1","seq":` + fmtInt(seq) + `,"at":"2026-01-01T00:00:0` + fmtInt(seq) + `Z","session":"s1",` + body + "}\n"
	}
	in := rec(1, `"from":"agent","msg":{"toy":"ping"}`) +
		rec(2, `"from":"harness","event":"scenario-end"`) +
		rec(3, `"from":"agent","msg":{"toy":"pong"}`)
	r := LintBytes("t.jsonl", []byte(in), Options{Workers: 1})
	got := diagString(r)
	// The ping is reported unanswered when its session ends; the pong after the
	// end starts a new session, in which it answers nothing.
	if !strings.Contains(got, "TOY-SEQ@1:98  ping never answered") || !strings.Contains(got, "pong without ping") {
		t.Fatalf("got:\n%s", got)
	}
	// A finished session's emptied struct and checker lists serve the next
	// session (stream.recycle): its state is new each time.
	in += rec(4, `"from":"agent","msg":{"toy":"ping"}`) +
		rec(5, `"from":"harness","event":"scenario-end"`) +
		rec(6, `"from":"agent","msg":{"toy":"ping"}`) +
		rec(7, `"from":"agent","msg":{"toy":"pong"}`) +
		rec(8, `"from":"harness","event":"scenario-end"`)
	got = diagString(LintBytes("t.jsonl", []byte(in), Options{Workers: 1}))
	if strings.Count(got, "ping never answered") != 2 || !strings.Contains(got, "TOY-SEQ@4:98  ping never answered") || strings.Count(got, "pong without ping") != 1 {
		t.Fatalf("after reuse, got:\n%s", got)
	}
}

// Rules of one Group share one checker, called once per message.
var groupCalls int

type groupChecker struct{ a, b *lint.Rule }

func (g *groupChecker) Observe(p *lint.Pass) {
	groupCalls++
	if p.Msg.Kind == "grp" {
		p.As(g.b).Reportf("", "b says")
		p.As(g.a).Reportf("", "a says")
	}
}
func (g *groupChecker) Finish(p *lint.Pass) {}

// registerGroupRules registers the grp protocol and its two grouped rules, once
// per test binary (a rule ID is registered once: go test -count=N runs the test
// N times).
var registerGroupRules = sync.OnceFunc(func() {
	a := &lint.Rule{ID: "GRP-SEQ-001", Protocol: "grp", Severity: lint.Error, Spec: "grp §1", Group: "g"}
	b := &lint.Rule{ID: "GRP-SEQ-002", Protocol: "grp", Severity: lint.Warning, Spec: "grp §2", Group: "g"}
	mk := func() lint.Checker { return &groupChecker{a: a, b: b} }
	a.NewChecker, b.NewChecker = mk, mk
	lint.Register(a, b)
	lint.RegisterProtocol(&lint.Protocol{ID: "grp", Detect: detectBy("grp")})
})

// detectBy is the Detect of a test protocol named key: an object with a member
// key is its message of kind key.
func detectBy(key string) func(root *jsonread.Node, name string) (string, string, int) {
	return func(root *jsonread.Node, name string) (string, string, int) {
		if root.Get(key) != nil {
			return key, "", 95
		}
		return "", "", 0
	}
}

func TestRuleGroups(t *testing.T) {
	registerGroupRules()
	groupCalls = 0
	r := LintBytes("g.jsonl", []byte("{\"grp\":1}\n{\"grp\":2}\n"), Options{Workers: 1})
	if groupCalls != 2 {
		t.Errorf("group checker observed %d times, want 2 (once per message)", groupCalls)
	}
	got := diagString(r)
	if strings.Count(got, "GRP-SEQ-001@") != 2 || strings.Count(got, "GRP-SEQ-002@") != 2 {
		t.Fatalf("got:\n%s", got)
	}
	for _, d := range r.Diagnostics {
		if d.Rule == "GRP-SEQ-002" && (d.Severity != lint.Warning || d.Spec != "grp §2") {
			t.Errorf("As did not take the rule's severity and spec: %+v", d)
		}
	}
}

// registerPanicRules registers the boom protocol: single-message rules of which
// the second panics after reporting, and schema rules of which the first panics,
// the second reports at a pointer the first single rule claimed and the third
// at one nobody claimed.
var registerPanicRules = sync.OnceFunc(func() {
	single := func(id string, f func(p *lint.Pass)) *lint.Rule {
		return &lint.Rule{ID: id, Protocol: "boom", Severity: lint.Error, Spec: "boom §1", Run: f}
	}
	schema := func(id string, f func(p *lint.Pass)) *lint.Rule {
		r := single(id, f)
		r.Schema = true
		return r
	}
	lint.Register(
		single("BOOM-001", func(p *lint.Pass) {
			p.Reportf("/a", "one says")
			p.Claim("/a")
		}),
		single("BOOM-002", func(p *lint.Pass) {
			p.Reportf("", "two says")
			panic("two broke")
		}),
		single("BOOM-003", func(p *lint.Pass) { p.Reportf("", "third says") }),
		schema("BOOM-SCHEMA-001", func(p *lint.Pass) { panic("schema one broke") }),
		schema("BOOM-SCHEMA-002", func(p *lint.Pass) { p.Reportf("/a", "claimed, not shown") }),
		schema("BOOM-SCHEMA-003", func(p *lint.Pass) { p.Reportf("/b", "schema three says") }),
	)
	lint.RegisterProtocol(&lint.Protocol{ID: "boom", Detect: detectBy("boom")})
})

// TestRulePanics: a rule that panics is reported as an internal error with what
// it reported before, and the rules after it still run, in both loops, for
// every message.
func TestRulePanics(t *testing.T) {
	registerPanicRules()
	r := LintBytes("b.jsonl", []byte("{\"boom\":1,\"a\":1,\"b\":2}\n{\"boom\":2,\"a\":1,\"b\":2}\n"), Options{Workers: 1})
	got := diagString(r)
	for _, want := range []string{"one says", "two says", "internal error in rule BOOM-002: two broke", "third says",
		"internal error in rule BOOM-SCHEMA-001: schema one broke", "schema three says"} {
		if n := strings.Count(got, want); n != 2 {
			t.Errorf("%q %d times, want 2 (once per message):\n%s", want, n, got)
		}
	}
	if strings.Contains(got, "claimed, not shown") {
		t.Errorf("a schema diagnostic at a claimed pointer was kept:\n%s", got)
	}
}

// harnessKind's constants are "harness:" + the event.
func TestHarnessKind(t *testing.T) {
	for _, e := range []string{"agent-start", "timers-start", "agent-exit", "signal", "kill", "close-stdin", "timeout", "scenario-end", "decision", "x-custom", ""} {
		if got := harnessKind(e); got != "harness:"+e {
			t.Errorf("harnessKind(%q) = %q", e, got)
		}
	}
}
