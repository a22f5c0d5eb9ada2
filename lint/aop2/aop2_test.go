package aop2_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/aop2"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
)

func parse(t *testing.T, s string) *jsonread.Node {
	t.Helper()
	n, _, err := jsonread.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return n
}

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		kind     string
		dialect  string
		minConf  int
		maxConf  int
		protocol bool
	}{
		{`{"aop_version":"2.0.2-C","message_type":"TASK"}`, "TASK", "", 100, 100, true},
		{`{"aop_version":"2.1","message_type":"RESPONSE"}`, "RESPONSE", "", 100, 100, true},
		{`{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT"}`, "EVENT:HEARTBEAT", "", 100, 100, true},
		{`{"aop_version":"2.0.2-C","message_type":"EVENT","event":"NOPE"}`, "EVENT", "", 100, 100, true},
		{`{"aop_version":"2.0.2-C","message_type":"STATUS"}`, "", "", 100, 100, true},
		{`{"aop_version":"3.0.0","message_type":"TASK"}`, "TASK", "", 90, 90, true},
		{`{"aop_version":"1.0","message_type":"TASK"}`, "TASK", aop2.DialectV1, 90, 90, true},
		{`{"protocol_family":"AOP","message_type":"TASK"}`, "TASK", aop2.DialectUnversioned, 80, 80, true},
		{`{"message_type":"RESPONSE","task_id":"T"}`, "RESPONSE", aop2.DialectUnversioned, 60, 60, true},
		{`{"event":"HEARTBEAT","session_id":"S"}`, "EVENT:HEARTBEAT", aop2.DialectUnversioned, 40, 40, true},
		{`{"type":"request:task","id":"req-1"}`, "", "", 0, 0, false},
		{`{"protocol":"aof","version":1}`, "", "", 0, 0, false},
		{`[1,2]`, "", "", 0, 0, false},
		{`"TASK"`, "", "", 0, 0, false},
	}
	for _, tt := range tests {
		kind, dialect, conf := aop2.Detect(parse(t, tt.in), "")
		if (conf > 0) != tt.protocol || conf < tt.minConf || conf > tt.maxConf || kind != tt.kind || dialect != tt.dialect {
			t.Errorf("Detect(%s) = %q, %q, %d; want %q, %q, %d..%d", tt.in, kind, dialect, conf, tt.kind, tt.dialect, tt.minConf, tt.maxConf)
		}
	}
}

func TestSchemaFile(t *testing.T) {
	t.Parallel()
	p := lint.LookupProtocol(aop2.ID)
	if p == nil {
		t.Fatal("aop2 is not registered")
	}
	for _, k := range p.Kinds {
		if aop2.SchemaFile(k) == "" {
			t.Errorf("kind %s has no schema", k)
		}
	}
	if aop2.SchemaFile("HEARTBEAT") != aop2.SchemaFile("EVENT:HEARTBEAT") {
		t.Error("an event name alone selects its EVENT schema")
	}
	if aop2.SchemaFile("EVENT:NOPE") != "" || aop2.SchemaFile("") != "" {
		t.Error("unknown kinds must have no schema")
	}
}

// lintText lints data as one input and returns "RULE severity" lines.
func lintText(t *testing.T, data string) []string {
	t.Helper()
	var out []string
	for _, d := range lintAll(data) {
		if d.Rule == aop2.UpstreamRefuses.ID {
			continue // the upstream dialect's infos: TestUpstreamRefuses
		}
		out = append(out, d.Rule+" "+d.Severity.String()+": "+d.Message)
	}
	return out
}

func lintAll(data string) []lint.Diagnostic {
	return linter.LintBytes("test.jsonl", []byte(data), linter.Options{}).Diagnostics
}

func has(ds []string, rule string) bool {
	for _, d := range ds {
		if strings.HasPrefix(d, rule+" ") {
			return true
		}
	}
	return false
}

func TestTimestamps(t *testing.T) {
	t.Parallel()
	base := `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","session_id":"S","task_id":"T","timestamp":%q}`
	tests := []struct {
		ts   string
		want string // "" clean, else severity of AOP2-TIME-001
	}{
		{"2026-02-26T12:37:01Z", ""},
		{"2026-02-26T12:37:01.123Z", ""},
		{"2026-02-26T12:37:01+02:00", ""},
		{"2026-02-26T12:37:01+0200", ""},
		{"2026-02-26T12:37Z", ""},
		{"2026-02-26T12:37:01", "warning"},
		{"22/11/2026 10:00", "error"},
		{"2026-02-26", "error"},
		{"2026-02-26 12:37:01Z", "error"},
		{"2026-13-26T12:37:01Z", "error"},
		{"1700000000", "error"},
	}
	for _, tt := range tests {
		ds := lintText(t, fmt.Sprintf(base, tt.ts))
		got := ""
		for _, d := range ds {
			if strings.HasPrefix(d, "AOP2-TIME-001 ") {
				got = strings.Fields(d)[1]
				got = strings.TrimSuffix(got, ":")
			}
		}
		if got != tt.want {
			t.Errorf("timestamp %q: got %q, want %q (%v)", tt.ts, got, tt.want, ds)
		}
	}
}

// session builds a transcript: a TASK with heartbeats every interval, then agent
// messages at the given offsets (HEARTBEAT unless noted), then a RESPONSE.
type rec struct {
	at  time.Duration
	msg map[string]any
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func transcript(recs []rec) string {
	var b strings.Builder
	for i, r := range recs {
		from := "agent"
		if r.msg["message_type"] == "TASK" {
			from = "orchestrator"
		}
		line, _ := json.Marshal(map[string]any{"aopkit": "transcript/1", "seq": i + 1, "at": t0.Add(r.at).Format(time.RFC3339Nano), "from": from, "msg": r.msg})
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func taskMsg(interval float64, timeout float64) map[string]any {
	return map[string]any{
		"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "TASK",
		"session": map[string]any{"session_id": "S", "created_at": "2026-11-22T10:00:00Z", "orchestrator": "o", "origin": "CLI"},
		"target":  map[string]any{"agent_name": "a", "role": "EXECUTOR", "provider": "OTHER", "model": "m"},
		"task":    map[string]any{"task_id": "T", "objective": "o", "category": "OTHER", "complexity": "LOW", "environment": map[string]any{"workspace_root": "."}},
		"execution_policy": map[string]any{"timeout_seconds": timeout,
			"heartbeat": map[string]any{"enabled": true, "interval_seconds": interval, "max_missed_beats": 3}},
	}
}

func beatMsg(at time.Duration, pct int) map[string]any {
	return map[string]any{"aop_version": "2.0.2-C", "message_type": "EVENT", "event": "HEARTBEAT", "session_id": "S", "task_id": "T",
		"timestamp": t0.Add(at).Format(time.RFC3339), "progress_percentage": pct}
}

func respMsg(at time.Duration) map[string]any {
	return map[string]any{"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "RESPONSE",
		"session_id": "S", "task_id": "T", "agent": map[string]any{"name": "a", "provider": "OTHER", "model": "m"},
		"task_status":       map[string]any{"state": "COMPLETED", "final_signal": "SUCCESS", "message": "ok"},
		"execution_summary": map[string]any{"summary": "done", "actions": []string{"did it"}},
		"timing":            map[string]any{"started_at": t0.Format(time.RFC3339), "completed_at": t0.Add(at).Format(time.RFC3339), "duration_seconds": int(at / time.Second)}}
}

// beats simulates an agent beating every `every` on an absolute schedule with the
// given receive jitter pattern (as a fraction of the interval).
func beats(interval, every time.Duration, n int, jitter []float64) []rec {
	recs := []rec{{0, taskMsg(interval.Seconds(), 3600)}}
	for k := 1; k <= n; k++ {
		j := time.Duration(jitter[k%len(jitter)] * float64(interval))
		at := time.Duration(k)*every + j
		recs = append(recs, rec{at, beatMsg(at, k)})
	}
	end := time.Duration(n)*every + every/2
	return append(recs, rec{end, respMsg(end)})
}

func TestHeartbeatNoiseIsNotLate(t *testing.T) {
	t.Parallel()
	for _, iv := range []time.Duration{500 * time.Millisecond, time.Second, 4 * time.Second, 120 * time.Second} {
		ds := lintText(t, transcript(beats(iv, iv, 12, []float64{0, 0.15, -0.1, 0.18, 0.05, 0})))
		if has(ds, "AOP2-SEQ-005") || has(ds, "AOP2-SEQ-006") {
			t.Errorf("interval %v with receive jitter: %v", iv, ds)
		}
	}
}

func TestHeartbeatLateIsCaught(t *testing.T) {
	t.Parallel()
	for _, iv := range []time.Duration{500 * time.Millisecond, time.Second, 120 * time.Second} {
		ds := lintText(t, transcript(beats(iv, iv*3/2, 3, []float64{0, 0.05, -0.05})))
		if !has(ds, "AOP2-SEQ-006") {
			t.Errorf("interval %v, beats every 1.5 intervals: no AOP2-SEQ-006 in %v", iv, ds)
		}
		if has(ds, "AOP2-SEQ-005") {
			t.Errorf("interval %v, beats every 1.5 intervals: AOP2-SEQ-005 is for silences over max_missed_beats: %v", iv, ds)
		}
	}
}

func TestHeartbeatStopIsFailure(t *testing.T) {
	t.Parallel()
	iv := time.Second
	recs := []rec{{0, taskMsg(1, 3600)}, {iv, beatMsg(iv, 10)}, {2 * iv, beatMsg(2*iv, 20)}, {7 * iv, respMsg(7 * iv)}}
	ds := lintText(t, transcript(recs))
	if !has(ds, "AOP2-SEQ-005") || has(ds, "AOP2-SEQ-006") {
		t.Errorf("5 s of silence with interval 1 s × 3: %v", ds)
	}
	// Silence until the scenario deadline, no RESPONSE: the agent hung.
	ds = lintText(t, transcript(recs[:3])+`{"aopkit":"transcript/1","seq":8,"at":"2026-11-22T10:00:08Z","from":"harness","event":"timeout"}`+"\n"+
		`{"aopkit":"transcript/1","seq":9,"at":"2026-11-22T10:00:09Z","from":"harness","event":"kill"}`+"\n")
	if !has(ds, "AOP2-SEQ-005") || !has(ds, "AOP2-SEQ-004") {
		t.Errorf("silence until the deadline: %v", ds)
	}
	// The orchestrator cancelled the task (a kill that is no deadline): no RESPONSE is
	// owed, the silence before it still is a heartbeat failure.
	ds = lintText(t, transcript(recs[:3])+`{"aopkit":"transcript/1","seq":9,"at":"2026-11-22T10:00:09Z","from":"harness","event":"kill"}`+"\n")
	if !has(ds, "AOP2-SEQ-005") || has(ds, "AOP2-SEQ-004") {
		t.Errorf("silence until the cancelling kill: %v", ds)
	}
}

// TestTimersStart: a harness transcript's timers-start event moves the start of the
// heartbeat and timeout limits to the agent's first sign of life and its
// timeout_scale stretches them, as the harness did.
func TestTimersStart(t *testing.T) {
	t.Parallel()
	iv := time.Second
	start := func(at time.Duration, scale float64) string {
		return fmt.Sprintf(`{"aopkit":"transcript/1","seq":1,"at":%q,"from":"harness","event":"timers-start","detail":{"timeout_scale":%g}}`+"\n",
			time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC).Add(at).Format(time.RFC3339Nano), scale)
	}
	// 4 s of start-up, then beats every second: no failure once timers start at 4 s.
	recs := []rec{{0, taskMsg(1, 3600)}, {4 * iv, beatMsg(4*iv, 10)}, {5 * iv, beatMsg(5*iv, 20)}, {6 * iv, respMsg(6 * iv)}}
	tr := transcript(recs)
	lines := strings.SplitAfterN(tr, "\n", 2)
	if ds := lintText(t, lines[0]+start(4*iv, 1)+lines[1]); has(ds, "AOP2-SEQ-005") || has(ds, "AOP2-SEQ-006") {
		t.Errorf("start-up before timers-start counted: %v", ds)
	}
	if ds := lintText(t, tr); !has(ds, "AOP2-SEQ-005") {
		t.Errorf("without timers-start the 4 s silence is a failure: %v", ds)
	}
	// Beats every 4 s with interval 1 s × 3: a failure at scale 1, none at scale 2.
	slow := []rec{{0, taskMsg(1, 3600)}, {4 * iv, beatMsg(4*iv, 10)}, {8 * iv, beatMsg(8*iv, 20)}, {9 * iv, respMsg(9 * iv)}}
	tr = transcript(slow)
	lines = strings.SplitAfterN(tr, "\n", 2)
	if ds := lintText(t, lines[0]+start(0, 1)+lines[1]); !has(ds, "AOP2-SEQ-005") {
		t.Errorf("4 s gaps at scale 1: %v", ds)
	}
	if ds := lintText(t, lines[0]+start(0, 2)+lines[1]); has(ds, "AOP2-SEQ-005") {
		t.Errorf("4 s gaps at scale 2 (limit 6 s): %v", ds)
	}
	// timers-start before the first AOP2 message: the checkers start later and
	// are shown the harness record then (the driver keeps it past its line).
	for _, workers := range []int{1, 2} {
		res, err := linter.LintStream("test.jsonl", strings.NewReader(start(0, 2)+tr), linter.Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Diagnostics {
			if d.Rule == "AOP2-SEQ-005" {
				t.Errorf("workers %d: timers-start held for later checkers lost its scale: %s", workers, d.Message)
			}
		}
	}
}

func TestTimeoutPrecedence(t *testing.T) {
	t.Parallel()
	task := taskMsg(1, 3600)
	delete(task, "execution_policy")
	task["execution_policy"] = map[string]any{"timeout_seconds": 10}
	task["guard_rails"] = map[string]any{"timeout_seconds": 100}
	ds := lintText(t, transcript([]rec{{0, task}, {50 * time.Second, respMsg(50 * time.Second)}}))
	if has(ds, "AOP2-SEQ-010") {
		t.Errorf("guard_rails.timeout_seconds 100 overrides 10: a RESPONSE at 50 s is in time: %v", ds)
	}
	task["guard_rails"] = map[string]any{"timeout_seconds": 20}
	ds = lintText(t, transcript([]rec{{0, task}, {50 * time.Second, respMsg(50 * time.Second)}}))
	if !has(ds, "AOP2-SEQ-010") {
		t.Errorf("guard_rails.timeout_seconds 20: a RESPONSE at 50 s is late: %v", ds)
	}
}

// TestStateIsBounded: a stream of many distinct tasks keeps at most maxTracked per
// checker and says so once.
func TestStateIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		task := taskMsg(1, 3600)
		task["task"].(map[string]any)["task_id"] = fmt.Sprintf("T-%d", i)
		line, _ := json.Marshal(task)
		b.Write(line)
		b.WriteByte('\n')
	}
	res := linter.LintBytes("many.jsonl", []byte(b.String()), linter.Options{})
	capped := map[string]int{}
	for _, d := range res.Diagnostics {
		if d.Severity >= lint.Warning {
			t.Fatalf("unexpected finding: %s %s", d.Rule, d.Message)
		}
		if strings.Contains(d.Message, "no longer followed") {
			capped[d.Rule]++
		}
	}
	for rule, n := range capped {
		if n != 1 {
			t.Errorf("%s reported the cap %d times", rule, n)
		}
	}
	if len(capped) == 0 {
		t.Error("the cap was never reported")
	}
}
