package aof

import (
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
)

// MaxTasks bounds the tasks a sequence checker keeps state for at once. Past it the
// oldest task's state is dropped (and the checker says so once).
const MaxTasks = 4096

// table is a map with a cap, dropping its oldest key when full.
//
// Its keys are kept past the message they came from: they must be owned (the
// view's task is). With a pool, its entries and queue come from the pool on the
// first put and go back when the checker finishes (release), so the many short
// sessions of a transcript reuse them.
type table[V any] struct {
	b    *seqgroup.Bounded[V] // nil until the first put, and after release
	hit  bool                 // the cap was hit (reported once)
	pool *tablePool[V]        // nil: no reuse
}

// tablePool keeps the buffers of released tables of one value type.
type tablePool[V any] = seqgroup.BoundedPool[V]

// The pools of the sequence checkers' tables.
var (
	handoffTables    tablePool[*handoffState]
	witnessTables    tablePool[lint.Related]
	statusTables     tablePool[*taskStatus]
	completionTables tablePool[completionState]
	runTables        tablePool[*runState]
	heartbeatTables  tablePool[*heartbeat]
)

func (t *table[V]) get(k string) (V, bool) {
	if t.b == nil {
		var zero V
		return zero, false
	}
	return t.b.Get(k)
}

// put stores v under k (owned) and reports whether the cap was hit for the
// first time.
func (t *table[V]) put(k string, v V) bool {
	if t.b == nil {
		if t.pool != nil {
			t.b = t.pool.Get()
		} else {
			t.b = &seqgroup.Bounded[V]{}
		}
	}
	if t.b.Put(k, v, MaxTasks) && !t.hit {
		t.hit = true
		return true
	}
	return false
}

func (t *table[V]) del(k string) {
	if t.b != nil {
		t.b.Delete(k)
	}
}

// len is the number of entries.
func (t *table[V]) len() int {
	if t.b == nil {
		return 0
	}
	return t.b.Len()
}

// release empties the table and gives its buffers back to its pool (from a
// checker's Finish, or from reset). Queues grown past a few times the usual
// session are dropped (BoundedPool.Release).
func (t *table[V]) release() {
	if t.b != nil && t.pool != nil {
		t.pool.Release(t.b)
	}
	t.b = nil
}

// reset releases the table and forgets that its cap was hit: it starts over as
// a new table of the same pool (a checker's state starting over).
func (t *table[V]) reset() {
	t.release()
	*t = table[V]{pool: t.pool}
}

// keys returns the keys in sorted order.
func (t *table[V]) keys() []string {
	if t.b == nil {
		return nil
	}
	ks := make([]string, 0, t.b.Len())
	t.b.Each(func(k string, _ V) { ks = append(ks, k) })
	sort.Strings(ks)
	return ks
}

func reportCap(p *lint.Pass) {
	p.ReportSevf(lint.Info, "", "more than %d tasks are open at once: %s dropped the state of the oldest, so later checks on it may be missed", MaxTasks, p.Rule.ID)
}

// view is what the sequence rules read of a message.
type view struct {
	kind string
	task string // the envelope's or artifact's taskId
	from string // fromAgent (envelopes) or agentId (artifacts)
	// at is the harness time; when it is zero, atPtr points at the message's
	// own timestamp, read only by the rule that needs it (when).
	at    time.Time
	atPtr string
}

// when is when v's message m was sent: the harness time, else the message's own
// timestamp; zero if unknown.
func (v *view) when(m *lint.Message) time.Time {
	if !v.at.IsZero() || v.atPtr == "" {
		return v.at
	}
	t, _ := timeOf(m.Root.Lookup(v.atPtr))
	return t
}

func viewOf(m *lint.Message) (view, bool) {
	if m == nil || m.Root == nil || m.Protocol != "aof" || m.Kind == "" {
		return view{}, false
	}
	v := view{kind: m.Kind, task: m.Root.Get("taskId").String()}
	if v.task == "" {
		return v, false
	}
	var tsPtr string
	if isEnvelopeKind(m.Kind) {
		v.from = m.Root.Get("fromAgent").String()
		tsPtr = "/sentAt"
	} else {
		v.from = m.Root.Get("agentId").String()
		switch m.Kind {
		case KindRun:
			tsPtr = "/startedAt"
		case KindHeartbeat:
			tsPtr = "/lastHeartbeat"
		case KindRunResult:
			tsPtr = "/completedAt"
		case KindHandoffInput:
			v.from = m.Root.Get("fromAgent").String()
		}
	}
	v.at, v.atPtr = m.At, tsPtr
	return v, true
}

func lineOf(r lint.Related) string { return fmt.Sprintf("line %d", r.Line) }

// where names a witness for a message: "line 3", or "run.json line 3" when the
// witness is in another file.
func where(p *lint.Pass, r lint.Related) string {
	if p.Msg != nil && r.Path != "" && r.Path != p.Msg.Path {
		return filepath.Base(r.Path) + " " + lineOf(r)
	}
	return lineOf(r)
}

var seqRules = []*lint.Rule{SeqDelegation, SeqAnswer, SeqTransition, SeqCompletion, SeqArtifacts, SeqNoCompletion, SeqStale}
