package aof

import (
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/aopkit/aopkit/lint"
)

// MaxTasks bounds the tasks a sequence checker keeps state for at once. Past it the
// oldest task's state is dropped (and the checker says so once).
const MaxTasks = 4096

// table is a map with a cap, dropping its oldest key when full.
type table[V any] struct {
	m     map[string]V
	order []string
	hit   bool // the cap was hit (reported once)
}

func (t *table[V]) get(k string) (V, bool) {
	v, ok := t.m[k]
	return v, ok
}

// put stores v and reports whether the cap was hit for the first time.
func (t *table[V]) put(k string, v V) bool {
	if t.m == nil {
		t.m = map[string]V{}
	}
	if _, ok := t.m[k]; ok {
		t.m[k] = v
		return false
	}
	first := false
	for len(t.m) >= MaxTasks && len(t.order) > 0 {
		old := t.order[0]
		t.order = t.order[1:]
		if _, ok := t.m[old]; ok {
			delete(t.m, old)
			if !t.hit {
				t.hit, first = true, true
			}
		}
	}
	t.m[k] = v
	t.order = append(t.order, k)
	if len(t.order) > 4*MaxTasks {
		t.compact()
	}
	return first
}

func (t *table[V]) del(k string) { delete(t.m, k) }

func (t *table[V]) compact() {
	out := t.order[:0]
	for _, k := range t.order {
		if _, ok := t.m[k]; ok {
			out = append(out, k)
		}
	}
	t.order = out
}

// keys returns the keys in sorted order.
func (t *table[V]) keys() []string {
	ks := make([]string, 0, len(t.m))
	for k := range t.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func reportCap(p *lint.Pass) {
	p.ReportSevf(lint.Info, "", "more than %d tasks are open at once: %s dropped the state of the oldest, so later checks on it may be missed", MaxTasks, p.Rule.ID)
}

// view is what the sequence rules read of a message.
type view struct {
	kind string
	task string    // the envelope's or artifact's taskId
	from string    // fromAgent (envelopes) or agentId (artifacts)
	at   time.Time // harness time, else the message's own timestamp; zero if unknown
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
	v.at = m.At
	if v.at.IsZero() && tsPtr != "" {
		v.at, _ = timeOf(m.Root.Lookup(tsPtr))
	}
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
