package aof

import (
	"time"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/lint"
)

// SeqNoCompletion: the agent exits without completion.report.
var SeqNoCompletion = ruleDocs.Rule(lint.Rule{ID: "AOF-SEQ-006", Protocol: "aof", Severity: lint.Warning})

type noCompletionChecker struct {
	views  *viewMemo           // shared by the group: each message is read once
	active table[lint.Related] // task → the agent's last message on it
}

func (c *noCompletionChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if m.Kind == "harness:agent-exit" {
		for _, task := range sortedKeys(&c.active) {
			w, _ := c.active.Get(task)
			p.ReportAtf(p.Rule.Severity, w, nil, "the agent exited without a completion.report for %s: send one before the session ends, even with outcome partial or blocked; "+
				"otherwise the task stays in progress until its heartbeat is stale and is reclaimed", task)
		}
		c.active.Reset()
		return
	}
	v, ok := c.views.of(m)
	if !ok {
		return
	}
	switch v.kind {
	case KindRun, KindStatusUpdate, KindHandoffAccepted:
		if v.kind != KindRun && (m.From == "orchestrator" || m.From == "harness") {
			return // the other side (a child agent the harness plays), not the agent under test
		}
		if c.active.Put(v.task, lint.Witness(m, "/taskId", "")) {
			reportCap(p)
		}
	case KindCompletion, KindRunResult, KindHandoffRejected:
		c.active.Delete(v.task)
	}
}

func (c *noCompletionChecker) Finish(p *lint.Pass) { c.active.Release() }

// SeqStale: the heartbeat expired while the run was alive.
var SeqStale = ruleDocs.Rule(lint.Rule{ID: "AOF-SEQ-007", Protocol: "aof", Severity: lint.Error})

type heartbeat struct {
	expires  time.Time
	lease    time.Duration // the TTL of the dispatcher's lease heartbeat (0 for the agent's)
	at       lint.Related
	reported bool
}

type staleChecker struct {
	views *viewMemo // shared by the group: each message is read once
	beats table[*heartbeat]
}

func (c *staleChecker) Observe(p *lint.Pass) {
	m := p.Msg
	switch m.Kind {
	case "harness:timers-start":
		for _, task := range sortedKeys(&c.beats) {
			if hb, _ := c.beats.Get(task); hb.lease > 0 && !m.At.IsZero() {
				hb.expires = spec.ExpiresAt(m.At, hb.lease)
			}
		}
		return
	case "harness:kill", "harness:timeout", "harness:signal":
		if m.At.IsZero() {
			return
		}
		for _, task := range sortedKeys(&c.beats) {
			hb, _ := c.beats.Get(task)
			if !hb.reported && spec.Stale(hb.expires, m.At) {
				hb.reported = true
				p.ReportAtf(p.Rule.Severity, hb.at, nil, "the heartbeat of %s expired at %s and the agent was still running when the harness stopped it (%s at %s): "+
					"refresh run_heartbeat.json within its TTL", task, fmtTime(hb.expires), m.Kind[len("harness:"):], fmtTime(m.At))
			}
		}
		return
	}
	v, ok := c.views.of(m)
	if !ok {
		return
	}
	switch v.kind {
	case KindHeartbeat:
		exp, ok := timeOf(m.Node("/expiresAt"))
		if !ok {
			return
		}
		hb := &heartbeat{expires: exp, at: lint.Witness(m, "/expiresAt", "the last heartbeat of "+v.task+", expiring at "+fmtTime(exp))}
		if m.From == "orchestrator" && !m.At.IsZero() {
			// The dispatcher's lease heartbeat in a harness transcript: its TTL
			// counts from the agent's first sign of life (timers-start).
			if last, ok := timeOf(m.Node("/lastHeartbeat")); ok && exp.After(last) {
				hb.lease = exp.Sub(last)
			}
		}
		if c.beats.Put(v.task, hb) {
			reportCap(p)
		}
	case KindCompletion, KindRunResult:
		c.beats.Delete(v.task)
	case KindStatusUpdate, KindHandoffRequest, KindHandoffAccepted, KindHandoffRejected:
		hb, ok := c.beats.Get(v.task)
		if !ok || hb.reported {
			return
		}
		at := v.when(m)
		if at.IsZero() || !spec.Stale(hb.expires, at) {
			return
		}
		hb.reported = true
		sev := p.Rule.Severity
		if m.At.IsZero() {
			sev = lint.Warning // the message's own sentAt, perhaps another clock than the heartbeat's
		}
		p.ReportRelatedf(sev, "/taskId", []lint.Related{hb.at},
			"%s for %s at %s, when the run's heartbeat had expired (expiresAt %s, %s): the scheduler sees the run as stale and reclaims the task; refresh run_heartbeat.json within its TTL",
			v.kind, v.task, fmtTime(at), fmtTime(hb.expires), where(p, hb.at))
	}
}

func (c *staleChecker) Finish(p *lint.Pass) { c.beats.Release() }

func fmtTime(t time.Time) string { return spec.FormatTime(t) }
