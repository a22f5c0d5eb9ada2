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

// table is a sequence checker's state by task, at most MaxTasks entries (the
// oldest dropped, and the checker says so once); its keys, the view's task,
// are owned.
type table[V any] = seqgroup.Table[V]

// The pools of the sequence checkers' tables.
var (
	handoffTables    seqgroup.BoundedPool[*handoffState]
	witnessTables    seqgroup.BoundedPool[lint.Related]
	statusTables     seqgroup.BoundedPool[*taskStatus]
	completionTables seqgroup.BoundedPool[completionState]
	runTables        seqgroup.BoundedPool[*runState]
	heartbeatTables  seqgroup.BoundedPool[*heartbeat]
)

// sortedKeys returns the keys of t in sorted order.
func sortedKeys[V any](t *table[V]) []string {
	ks := make([]string, 0, t.Len())
	t.Each(func(k string, _ V) { ks = append(ks, k) })
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
