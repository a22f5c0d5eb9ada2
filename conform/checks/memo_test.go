package checks

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// mixedSession has a little of every protocol: each check finds something of
// its own to decode in it.
func mixedSession() *conform.Session {
	task := `{"session":{"session_id":"S"},"task":{"task_id":"T","attempt":1},"target":{"model":"m"},"execution_policy":{"heartbeat":{"enabled":true,"interval_seconds":1}},"payload":{"taskId":"T"},"tools":[{"name":"run_shell"}]}`
	b := newSession(&conform.Attempt{Input: json.RawMessage(task)}).
		add("agent", "stdout", "EVENT/HEARTBEAT", 10*time.Millisecond, `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","task_id":"T"}`).
		add("agent", "http", "steps/toolCallRequest", 20*time.Millisecond, `{"jsonrpc":"2.0","id":9007199254740993,"method":"steps/toolCallRequest","params":{"toolCallRequest":{"executionId":"e1","toolId":"run_shell"}}}`).
		add("agent", "stdout", "executed", 30*time.Millisecond, `{"executed":{"executionId":"e1","name":"run_shell","arguments":{}}}`).
		add("agent", "stdout", "status.update", 40*time.Millisecond, `{"protocol":"aof","version":1,"type":"status.update","taskId":"TASK-2026-02-09-057","fromAgent":"agent-under-test","toAgent":"dispatcher","sentAt":"2026-02-09T21:10:00.000Z","payload":{"status":"blocked"}}`).
		add("agent", "stdout", "event:progress", 50*time.Millisecond, `{"id":"x","type":"event:progress","payload":{"taskId":"T","progress":1}}`).
		add("agent", "stdout", "RESPONSE", 60*time.Millisecond, `{"aop_version":"2.0.2-C","message_type":"RESPONSE","task_id":"T","session_id":"S","task_status":{"status":"COMPLETED"}}`)
	conform.FactAOSDecisions.Set(b.s, []conform.AOSDecision{{Seq: 2, ExecutionID: "e1", Tool: "run_shell", Decision: "allow"}})
	return b.s
}

// judgeAll runs every check on s, a panic being its outcome.
func judgeAll(s *conform.Session) map[string]conform.Outcome {
	out := map[string]conform.Outcome{}
	for _, c := range conform.Checks("") {
		out[c.ID] = runRecovered(c, s)
	}
	return out
}

func runRecovered(c *conform.Check, s *conform.Session) (o conform.Outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = conform.NotTestedf("panic: %v", p)
		}
	}()
	return c.Run(s)
}

// TestMemoConcurrent: the checks of one session, run at the same time (under
// -race: the memo is safe), give the outcomes each gives on a session of its
// own (nothing one check decoded changes another's verdict).
func TestMemoConcurrent(t *testing.T) {
	t.Parallel()
	want := map[string]conform.Outcome{}
	for _, c := range conform.Checks("") {
		want[c.ID] = runRecovered(c, mixedSession()) // a fresh session, a fresh memo
	}
	if !reflect.DeepEqual(judgeAll(mixedSession()), want) {
		t.Error("the checks judge one session otherwise than each its own")
	}
	s := mixedSession()
	var mu sync.Mutex
	got := map[string]conform.Outcome{}
	var wg sync.WaitGroup
	for range 4 {
		for _, c := range conform.Checks("") {
			wg.Go(func() {
				o := runRecovered(c, s)
				mu.Lock()
				defer mu.Unlock()
				if prev, ok := got[c.ID]; ok && !reflect.DeepEqual(prev, o) {
					t.Errorf("%s: two outcomes on one session: %+v and %+v", c.ID, prev, o)
				}
				got[c.ID] = o
			})
		}
	}
	wg.Wait()
	for id, o := range want {
		if !reflect.DeepEqual(got[id], o) {
			t.Errorf("%s: %+v at the same time as the others, %+v alone", id, got[id], o)
		}
	}
}

// TestMemoFollowsRecords: a session judged, then recorded further, is judged
// again on all its records (the memo is remade), not on what was decoded first.
func TestMemoFollowsRecords(t *testing.T) {
	t.Parallel()
	env := `{"protocol":"aof","version":1,"type":"status.update","taskId":"TASK-2026-02-09-057","fromAgent":"agent-under-test","toAgent":"dispatcher","sentAt":"2026-02-09T21:10:00.000Z","payload":{"status":"blocked"}}`
	b := newSession(&conform.Attempt{}).add("agent", "stdout", "status.update", 10*time.Millisecond, env)
	if o := run(t, "aof/envelope/json", b.s); o.Verdict != conform.Pass {
		t.Fatalf("one envelope: %s %s", o.Verdict, o.Message)
	}
	b.add("agent", "stdout", "", 20*time.Millisecond, "")
	text := `AOF/1 {"protocol":"aof",`
	b.s.Records[len(b.s.Records)-1].Text = &text
	if o := run(t, "aof/envelope/json", b.s); o.Verdict != conform.Fail {
		t.Errorf("a broken envelope recorded after the first judgement: %s %s, want FAIL", o.Verdict, o.Message)
	}
}
