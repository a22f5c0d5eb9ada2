// Package difftest holds the differential tests of aoplint and aopconform: for
// the same input, a lint rule and the conformance check backed by it give one
// answer. It lives in its own package so that neither side depends on the
// other.
package difftest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks"
	aofengine "github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/linter"
)

// timeCase is one protocol's timestamp in a message: the lint rule that judges
// it (its error at pointer) and the conformance check that restates it.
type timeCase struct {
	proto, rule, pointer, check string
	msg                         func(ts string) string // the message (aop-output: the report) with ts in place
	session                     func(b *builder, msg string)
	// engine, when set, is the reference engine's verdict on the message (the
	// aof router rejects an envelope whose sentAt it cannot read).
	engine func(msg string) (bad bool, why string)
}

var timeCases = []timeCase{
	{
		proto: "aop2", rule: "AOP2-TIME-001", pointer: "/timestamp", check: "aop2/6/event-format",
		msg: func(ts string) string {
			return `{"message_type":"EVENT","event":"HEARTBEAT","session_id":"AOP-SESSION-1","task_id":"T-1","timestamp":` + quote(ts) + `}`
		},
		session: func(b *builder, msg string) {
			b.s.Attempts[0].Input = json.RawMessage(`{"session":{"session_id":"AOP-SESSION-1"},"task":{"task_id":"T-1"}}`)
			b.msg("stdout", "EVENT/HEARTBEAT", msg)
		},
	},
	{
		proto: "aof", rule: "AOF-TIME-001", pointer: "/sentAt", check: "aof/envelope/fields",
		msg: func(ts string) string {
			return `{"protocol":"aof","version":1,"projectId":"aof","taskId":"TASK-2026-02-09-057","fromAgent":"swe-backend","toAgent":"swe-qa","sentAt":` + quote(ts) +
				`,"type":"status.update","payload":{"taskId":"TASK-2026-02-09-057","agentId":"swe-backend","status":"in-progress","progress":"half"}}`
		},
		session: func(b *builder, msg string) { b.text("stdout", msg) },
		engine: func(msg string) (bool, string) {
			p := aofengine.EnvelopeProblem([]byte(msg))
			return strings.Contains(p, "/sentAt"), p
		},
	},
	{
		proto: "orchmsg", rule: "ORCH-BASE-002", pointer: "/timestamp", check: "orchmsg/format/base-fields",
		msg: func(ts string) string {
			return `{"type":"event:progress","id":"evt-123e4567-e89b-12d3-a456-426614174000","timestamp":` + quote(ts) + `,"payload":{"taskId":"task-1","progress":50}}`
		},
		session: func(b *builder, msg string) { b.msg("stdout", "event:progress", msg) },
	},
	{
		proto: "aop-output", rule: "AOPOUT-TIME-001", check: "aop-output/format/timestamps",
		msg: func(ts string) string {
			return "[AOP:START] " + ts + "\n[AOP:TASK] Fix the login bug\n[AOP:SUMMARY]\n- Fixed the null check in login\n[AOP:DETAILS_FILE] none\n[AOP:STATUS] COMPLETE\n[AOP:END] " + ts + "\n"
		},
		session: func(b *builder, report string) {
			for _, l := range strings.Split(strings.TrimSuffix(report, "\n"), "\n") {
				b.text("stdout", l)
			}
		},
	},
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// builder makes a recorded session of one attempt.
type builder struct{ s *conform.Session }

func newBuilder() *builder {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	a := &conform.Attempt{N: 1, Start: t0}
	return &builder{s: &conform.Session{Scenario: &conform.Scenario{ID: "difftest"}, Scale: 1, Attempts: []*conform.Attempt{a}}}
}

func (b *builder) add(r conform.Record) {
	r.Seq, r.From, r.Attempt = len(b.s.Records)+1, "agent", 1
	r.Time = b.s.Attempts[0].Start.Add(time.Duration(r.Seq) * time.Millisecond)
	b.s.Records = append(b.s.Records, r)
}

func (b *builder) msg(stream, key, msg string) {
	b.add(conform.Record{Stream: stream, Key: key, Msg: json.RawMessage(msg)})
}

func (b *builder) text(stream, text string) { b.add(conform.Record{Stream: stream, Text: &text}) }

// lintSays reports whether aoplint finds the timestamp ts of c wrong: an error of
// c.rule (at c.pointer).
func (c timeCase) lintSays(ts string) (bad bool, why string) {
	name := "message.json"
	if c.proto == "aop-output" {
		name = "report.txt"
	}
	res := linter.LintBytes(name, []byte(c.msg(ts)), linter.Options{Protocol: c.proto})
	for _, d := range res.Diagnostics {
		if d.Rule == c.rule && d.Severity == lint.Error && (c.pointer == "" || d.Pointer == c.pointer) {
			return true, d.Message
		}
	}
	return false, ""
}

// conformSays reports whether the conformance check fails the same message.
func (c timeCase) conformSays(ts string) (bad bool, why string) {
	b := newBuilder()
	c.session(b, c.msg(ts))
	o := conform.LookupCheck(c.check).Run(b.s)
	return o.Verdict == conform.Fail, fmt.Sprintf("%v: %s %s %s", o.Verdict, o.Message, o.Expected, o.Actual)
}

// agree checks that lint and conform give one answer on ts, for every protocol.
func agree(t *testing.T, ts string) {
	t.Helper()
	for _, c := range timeCases {
		l, lwhy := c.lintSays(ts)
		k, kwhy := c.conformSays(ts)
		if l != k {
			t.Errorf("%s timestamp %q: %s says bad=%v (%s), %s says bad=%v (%s)", c.proto, ts, c.rule, l, lwhy, c.check, k, kwhy)
		}
		if c.engine != nil {
			if e, ewhy := c.engine(c.msg(ts)); e != l {
				t.Errorf("%s timestamp %q: %s says bad=%v (%s), the reference engine says bad=%v (%s)", c.proto, ts, c.rule, l, lwhy, e, ewhy)
			}
		}
	}
}

// seeds are the timestamps of the brief: hour 24, missing seconds, lower-case t
// and z, the offsets +00:00, -00:00 and +0000, fractions of 0 to 10 digits, the
// leap second, dates out of range, years before 1000, blanks around.
var seeds = func() []string {
	s := []string{
		"2026-02-09T21:00:00Z", "2026-02-09T21:00Z", "2026-02-09T21:00", "2026-02-09T21:00:00",
		"2026-02-09T24:00:00Z", "2026-02-09T24:00Z", "2026-02-09T24:00:00.000Z", "2026-02-09T24:00:01Z", "2026-02-09T24:30:00Z",
		"2026-02-09t21:00:00Z", "2026-02-09T21:00:00z", "2026-02-09t21:00z", "2026-02-09 21:00:00Z",
		"2026-02-09T21:00:00+00:00", "2026-02-09T21:00:00-00:00", "2026-02-09T21:00:00+0000", "2026-02-09T21:00:00+00",
		"2026-02-09T21:00:00+05:30", "2026-02-09T21:00:00+24:00", "2026-02-09T21:00:00+02:60", "2026-02-09T21:00:00+2:00",
		"2016-12-31T23:59:60Z", "2026-02-09T23:59:60Z", "2026-02-09T21:00:60Z", "2026-02-09T21:60:00Z", "2026-02-09T25:00:00Z",
		"2026-02-29T21:00:00Z", "2024-02-29T21:00:00Z", "2026-04-31T21:00:00Z", "2026-13-01T21:00:00Z", "2026-00-01T21:00:00Z", "2026-01-00T21:00:00Z",
		"0999-02-09T21:00:00Z", "0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "999-02-09T21:00:00Z", "+2026-02-09T21:00:00Z", "9999-12-31T23:59:59.999999999Z",
		"2026-02-09T21:00:00Z ", " 2026-02-09T21:00:00Z", "2026-02-09T21:00:00Z\t", "2026-02-09T21:00:00,5Z",
		"2026-02-09", "22/11/2026 10:00", "soon", "", "{timestamp}", "1770670800",
	}
	frac := ""
	for n := 0; n <= 10; n++ {
		s = append(s, "2026-02-09T21:00:00."+frac+"Z", "2026-02-09T21:00:00."+frac+"+01:00")
		frac += fmt.Sprint(n % 10)
	}
	return s
}()

func TestTimestampSeeds(t *testing.T) {
	// The messages are otherwise valid: a good timestamp passes both sides, a
	// bad one fails both (else agree would compare nothing).
	for _, c := range timeCases {
		for ts, want := range map[string]bool{"2026-02-09T21:00:00Z": false, "soon": true} {
			if l, why := c.lintSays(ts); l != want {
				t.Errorf("%s: lint on %q says bad=%v (%s)", c.proto, ts, l, why)
			}
			if k, why := c.conformSays(ts); k != want {
				t.Errorf("%s: %s on %q says bad=%v (%s)", c.proto, c.check, ts, k, why)
			}
			if c.engine != nil {
				if e, why := c.engine(c.msg(ts)); e != want {
					t.Errorf("%s: the engine on %q says bad=%v (%s)", c.proto, ts, e, why)
				}
			}
		}
	}
	for _, ts := range seeds {
		agree(t, ts)
	}
}

func FuzzTimestamps(f *testing.F) {
	for _, ts := range seeds {
		f.Add(ts)
	}
	f.Fuzz(func(t *testing.T, ts string) {
		if strings.ContainsAny(ts, "\n\r") {
			return // a line break ends an aop-output marker: another report
		}
		agree(t, ts)
	})
}

// dateLike finds the strings of the corpus that are meant as date-times.
var dateLike = regexp.MustCompile(`^\s*[0-9+-]?\d{3,4}-\d`)

// TestTimestampCorpus: every date-time string of every fixture, corpus message
// and reference transcript gets one answer from lint and conform, in every
// protocol.
func TestTimestampCorpus(t *testing.T) {
	seen := map[string]bool{}
	for _, root := range []string{"../../fixtures", "../../testdata/speccorpus", "../../testdata/agents", "../../testdata/orchestrators", "/work/shared/reference/upstream"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			collect(data, seen)
			return nil
		})
		if err != nil && !(os.IsNotExist(err) && strings.HasPrefix(root, "/work/")) {
			t.Fatal(err)
		}
	}
	values := make([]string, 0, len(seen))
	for v := range seen {
		values = append(values, v)
	}
	sort.Strings(values)
	if len(values) < 50 {
		t.Fatalf("only %d date-times in the corpus: the walk is broken", len(values))
	}
	for _, v := range values {
		agree(t, v)
	}
	t.Logf("%d distinct date-times", len(values))
}

// collect adds the date-like strings of data: every JSON string value of each
// JSON document or JSON line, and the value of each [AOP:START]/[AOP:END] line.
func collect(data []byte, seen map[string]bool) {
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if dateLike.MatchString(v) && len(v) < 64 {
				seen[v] = true
			}
			if strings.Contains(v, "[AOP:") { // a report inside a transcript record
				collect([]byte(v), seen)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var v any
	if json.Unmarshal(data, &v) == nil {
		walk(v)
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(line), "AOF/1 ")), &v) == nil {
			walk(v)
			continue
		}
		for _, m := range []string{"[AOP:START]", "[AOP:END]"} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), m); ok {
				seen[strings.TrimSpace(rest)] = true
			}
		}
	}
}
