package aof

import (
	"time"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/lint"
)

// SeqNoCompletion: the agent exits without completion.report.
var SeqNoCompletion = &lint.Rule{
	ID: "AOF-SEQ-006", Title: "agent exited without completion.report", Protocol: "aof", Severity: lint.Warning,
	Spec: "aof-1 §Best Practices (1. Always send completion.report before session ends); §Resume Protocol",
	Doc: "\"Always send completion.report before session ends, even if outcome is partial or blocked\": without it the session_end hook " +
		"finds no run_result.json and the task stays in progress until its heartbeat goes stale and the scheduler reclaims it to ready, " +
		"losing the work. In a transcript, when the harness records the agent's exit (event agent-exit), every task the agent worked on " +
		"(its run.json, its own status updates, a handoff it accepted; messages recorded from the orchestrator side do not count) without a completion.report or run_result.json is reported.",
	Bad: `{"aopkit":"transcript/1","seq":1,...,"from":"agent","msg":{"type":"status.update","taskId":"TASK-2026-02-09-057",...}}
{"aopkit":"transcript/1","seq":2,...,"from":"harness","event":"agent-exit","detail":{"code":0}}`,
	Good: `{"aopkit":"transcript/1","seq":1,...,"from":"agent","msg":{"type":"status.update","taskId":"TASK-2026-02-09-057",...}}
{"aopkit":"transcript/1","seq":2,...,"from":"agent","msg":{"type":"completion.report","taskId":"TASK-2026-02-09-057",...}}
{"aopkit":"transcript/1","seq":3,...,"from":"harness","event":"agent-exit","detail":{"code":0}}`,
}

type noCompletionChecker struct {
	views  *viewMemo           // shared by the group: each message is read once
	active table[lint.Related] // task → the agent's last message on it
}

func (c *noCompletionChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if m.Kind == "harness:agent-exit" {
		for _, task := range c.active.keys() {
			w, _ := c.active.get(task)
			p.ReportAtf(p.Rule.Severity, w, nil, "the agent exited without a completion.report for %s: send one before the session ends, even with outcome partial or blocked; "+
				"otherwise the task stays in progress until its heartbeat is stale and is reclaimed", task)
		}
		c.active.reset()
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
		if c.active.put(v.task, lint.Witness(m, "/taskId", "")) {
			reportCap(p)
		}
	case KindCompletion, KindRunResult, KindHandoffRejected:
		c.active.del(v.task)
	}
}

func (c *noCompletionChecker) Finish(p *lint.Pass) { c.active.release() }

// SeqStale: the heartbeat expired while the run was alive.
var SeqStale = &lint.Rule{
	ID: "AOF-SEQ-007", Title: "heartbeat expired while the run was alive", Protocol: "aof", Severity: lint.Error,
	Spec: "aof-1 §Resume Protocol (Stale Heartbeat Flow); §Best Practices",
	Doc: "run_heartbeat.json is refreshed before its expiresAt (lastHeartbeat + TTL). A run that goes on working after its heartbeat " +
		"expired is stale to the scheduler, which reclaims the task (to ready, or per run_result.json), so two runs may work on one task. " +
		"In a transcript: a message of the run's task sent after the recorded heartbeat's expiresAt (harness time when recorded, else sentAt), " +
		"or the harness signalling, killing or timing out the agent after it, before any completion.report. The scheduler " +
		"treats a heartbeat as stale when expiresAt <= now, so a message at expiresAt itself is late. Without harness times " +
		"(a bare JSON-lines stream) the message's sentAt is compared and the finding is a warning: the two may come from different clocks. " +
		"In a harness transcript the TTL of the dispatcher's lease heartbeat (written by the orchestrator) counts from the agent's first sign of life (the timers-start event), not from dispatch.",
	Bad: `run_heartbeat.json {"taskId":"TASK-2026-02-09-057","lastHeartbeat":"2026-02-09T21:00:00.000Z","expiresAt":"2026-02-09T21:05:00.000Z",...}
{"type":"status.update","taskId":"TASK-2026-02-09-057","sentAt":"2026-02-09T21:09:00.000Z",...}`,
	Good: `run_heartbeat.json {"taskId":"TASK-2026-02-09-057","lastHeartbeat":"2026-02-09T21:04:00.000Z","expiresAt":"2026-02-09T21:09:00.000Z",...}
{"type":"status.update","taskId":"TASK-2026-02-09-057","sentAt":"2026-02-09T21:08:00.000Z",...}`,
}

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
		for _, task := range c.beats.keys() {
			if hb, _ := c.beats.get(task); hb.lease > 0 && !m.At.IsZero() {
				hb.expires = spec.ExpiresAt(m.At, hb.lease)
			}
		}
		return
	case "harness:kill", "harness:timeout", "harness:signal":
		if m.At.IsZero() {
			return
		}
		for _, task := range c.beats.keys() {
			hb, _ := c.beats.get(task)
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
		if c.beats.put(v.task, hb) {
			reportCap(p)
		}
	case KindCompletion, KindRunResult:
		c.beats.del(v.task)
	case KindStatusUpdate, KindHandoffRequest, KindHandoffAccepted, KindHandoffRejected:
		hb, ok := c.beats.get(v.task)
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

func (c *staleChecker) Finish(p *lint.Pass) { c.beats.release() }

func fmtTime(t time.Time) string { return spec.FormatTime(t) }
