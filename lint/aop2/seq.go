package aop2

import (
	"fmt"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// This file holds what the sequence checkers share: a view of each message, the
// two clocks, and a bounded table of tasks.

// maxTracked bounds the tasks one checker follows in one session. Past it the
// oldest task is dropped (and the rule says so once, as info).
const maxTracked = 4096

// stamp is when a message was seen: on the harness clock (transcript/1 "at") and
// by the timestamps inside the message. Either may be zero.
type stamp struct{ harness, msg time.Time }

// since is later - earlier on the harness clock when both have it, else on the
// message clock; ok is false when neither clock is known for both.
func since(later, earlier stamp) (d time.Duration, harness, ok bool) {
	if !later.harness.IsZero() && !earlier.harness.IsZero() {
		return later.harness.Sub(earlier.harness), true, true
	}
	if !later.msg.IsZero() && !earlier.msg.IsZero() {
		return later.msg.Sub(earlier.msg), false, true
	}
	return 0, false, false
}

// latest keeps the later of each clock.
func (s *stamp) latest(o stamp) {
	if o.harness.After(s.harness) {
		s.harness = o.harness
	}
	if o.msg.After(s.msg) {
		s.msg = o.msg
	}
}

// view is what the sequence rules read of one message.
type view struct {
	typ       string // TASK, RESPONSE, EVENT, or "harness" for a harness record
	event     string // the EVENT's event, or the harness record's event
	taskID    string
	sessionID string
	key       string // taskKey(sessionID, taskID): tasks are told apart by session and task_id
	fromAgent bool   // sent by the agent (inferred from the type when the record does not say)
	fromOrch  bool   // a transcript record says the orchestrator sent it
	when      stamp
	root      *jsonread.Node
}

func viewOf(m *lint.Message) view {
	v := view{root: m.Root}
	v.when.harness = m.At
	if m.Protocol != ID {
		if strings.HasPrefix(m.Kind, "harness:") {
			v.typ = "harness"
			v.event = strings.TrimPrefix(m.Kind, "harness:")
		}
		return v
	}
	root := m.Root
	if root == nil {
		return v
	}
	v.typ = root.Get("message_type").String()
	switch v.typ {
	case "TASK":
		v.taskID = root.Path("task", "task_id").String()
		v.sessionID = root.Path("session", "session_id").String()
		v.when.msg = msgTime(root.Path("session", "created_at"))
	case "RESPONSE":
		v.taskID = root.Get("task_id").String()
		v.sessionID = root.Get("session_id").String()
		v.when.msg = msgTime(root.Path("timing", "completed_at"))
	case "EVENT":
		v.event = root.Get("event").String()
		v.taskID = root.Get("task_id").String()
		v.sessionID = root.Get("session_id").String()
		v.when.msg = msgTime(root.Get("timestamp"))
	}
	v.key = taskKey(v.sessionID, v.taskID)
	switch m.From {
	case "agent":
		v.fromAgent = true
	case "orchestrator":
		v.fromOrch = true
	case "":
		v.fromAgent = v.typ != "TASK"
	}
	return v
}

// taskKey is the key of a task in the sequence rules' tables: a task_id is unique
// within its session (§1.2: a RESPONSE names both), so two sessions interleaved in
// one stream may both have a "TASK-001". It is "" when taskID is.
func taskKey(sessionID, taskID string) string {
	if taskID == "" {
		return ""
	}
	return sessionID + "\x00" + taskID
}

// taskOfKey returns the task_id part of a taskKey.
func taskOfKey(key string) string { return key[strings.IndexByte(key, 0)+1:] }

// delegated reports whether a TASK was sent by an executor delegating a sub-task:
// the transcript says the agent sent it or, in a plain stream, it names a parent
// task. Its RESPONSE, heartbeats and timeout are the sub-executor's business and
// need not be recorded in this stream.
func (v view) delegated() bool {
	return v.fromAgent || (!v.fromOrch && v.root.Path("task", "parent_task_id").String() != "")
}

func msgTime(n *jsonread.Node) time.Time {
	t, zoned, ok := parseISO(n.String())
	if !ok || !zoned {
		return time.Time{}
	}
	return t
}

// table is a bounded map of per-task state, oldest dropped first.
type table[T any] struct {
	m      map[string]*T
	order  []string
	capped bool
}

func (t *table[T]) get(id string) *T {
	if t.m == nil {
		return nil
	}
	return t.m[id]
}

// put stores v under id. It returns true the first time the cap made it drop a task.
func (t *table[T]) put(id string, v *T) bool {
	if t.m == nil {
		t.m = map[string]*T{}
	}
	if _, ok := t.m[id]; ok {
		t.m[id] = v
		return false
	}
	first := false
	for len(t.m) >= maxTracked && len(t.order) > 0 {
		old := t.order[0]
		t.order = t.order[1:]
		if _, ok := t.m[old]; ok {
			delete(t.m, old)
			if !t.capped {
				t.capped, first = true, true
			}
		}
	}
	t.m[id] = v
	t.order = append(t.order, id)
	if len(t.order) > 2*maxTracked { // compact ids deleted since
		live := t.order[:0]
		for _, k := range t.order {
			if _, ok := t.m[k]; ok {
				live = append(live, k)
			}
		}
		t.order = append([]string(nil), live...)
	}
	return first
}

func (t *table[T]) del(id string) {
	if t.m != nil {
		delete(t.m, id)
	}
}

func (t *table[T]) len() int { return len(t.m) }

// each visits the live entries, oldest first.
func (t *table[T]) each(f func(id string, v *T)) {
	seen := map[string]bool{}
	for _, k := range t.order {
		if v, ok := t.m[k]; ok && !seen[k] {
			seen[k] = true
			f(k, v)
		}
	}
}

// track stores v and reports (as info, with the checker's rule) the first time the
// cap drops a task.
func track[T any](p *lint.Pass, t *table[T], id string, v *T) {
	if t.put(id, v) {
		p.ReportSevf(lint.Info, "", "more than %d tasks are open in this session: the oldest are no longer followed by %s", maxTracked, p.Rule.ID)
	}
}

// secs renders a duration in seconds: "45 s", "1.5 s".
func secs(d time.Duration) string {
	s := d.Seconds()
	if s == float64(int64(s)) {
		return fmt.Sprintf("%d s", int64(s))
	}
	return fmt.Sprintf("%.1f s", s)
}

// taskWitness names a TASK for later diagnostics.
func taskWitness(m *lint.Message, pointer, id string) lint.Related {
	return lint.Witness(m, pointer, fmt.Sprintf("the TASK %q", id))
}

// timers is what a harness transcript says about the clock of a session: the
// "timers-start" event (docs/transcript-format.md) moves the origin of every
// timing requirement to the agent's first sign of life and carries the
// --timeout-scale that stretches every limit, so aoplint applies exactly the
// limits the harness applied.
type timers struct {
	scale float64 // 1 when the transcript does not say
}

// observe reads a harness record; it returns the new origin (zero when v is not a
// timers-start event).
func (t *timers) observe(v view) time.Time {
	if v.typ != "harness" || v.event != "timers-start" || v.root == nil {
		return time.Time{}
	}
	if f, ok := v.root.Path("detail", "timeout_scale").Float(); ok && f > 0 {
		t.scale = f
	}
	return v.when.harness
}

// stretch scales a limit by the session's --timeout-scale.
func (t *timers) stretch(d time.Duration) time.Duration {
	if t.scale <= 0 {
		return d
	}
	return time.Duration(float64(d) * t.scale)
}
