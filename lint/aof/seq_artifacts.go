package aof

import (
	"path/filepath"
	"time"

	"github.com/aopkit/aopkit/lint"
)

// SeqArtifacts: run artifacts agree with each other and with the messages.
var SeqArtifacts = ruleDocs.Rule(lint.Rule{ID: "AOF-SEQ-005", Protocol: "aof", Severity: lint.Error})

type runState struct {
	agent      string
	started    time.Time
	run        *lint.Related
	result     *lint.Related
	outcome    string // run_result.json's
	resAgent   string
	completion *lint.Related
	compOut    string
	compFrom   string
}

type artifactChecker struct {
	views   *viewMemo // shared by the group: each message is read once
	runs    table[*runState]
	started bool
}

func (c *artifactChecker) state(p *lint.Pass, task string) *runState {
	st, ok := c.runs.Get(task)
	if !ok {
		st = &runState{}
		if c.runs.Put(task, st) {
			reportCap(p)
		}
	}
	return st
}

func (c *artifactChecker) Observe(p *lint.Pass) {
	if !c.started {
		c.started = true
		// A run artifact in a file of its own: the artifacts written before it in
		// the same runs/<taskId>/ are the run it belongs to. What they would report
		// about each other is theirs to report when they are linted.
		dir, _, _ := runFile(p.Msg)
		_, underRuns := runDirTask(dir)
		task := p.Node("/taskId")
		for _, sib := range runSiblings(p.Msg) {
			st := sib.Node("/taskId")
			if !underRuns && task.IsString() && st.IsString() && st.Str != task.Str {
				// in runs/<taskId>/, AOF-DIR-003 names the artifact that is wrong
				sibName := filepath.Base(sib.Path)
				p.ReportRelatedf(p.Rule.Severity, "/taskId", []lint.Related{lint.Witness(sib, "/taskId", sibName+": taskId "+st.Str)},
					"%s carries taskId %q, but %s beside it carries %q: the artifacts of one run directory describe one run of one task", filepath.Base(p.Msg.Path), task.Str, sibName, st.Str)
				continue
			}
			c.views.observe(lint.NewPass(p.Rule, sib), c.observeView)
		}
	}
	c.views.observe(p, c.observeView)
}

func (c *artifactChecker) observeView(p *lint.Pass, v *view) {
	m := p.Msg
	rel := func(r *lint.Related) []lint.Related { return []lint.Related{*r} }
	switch v.kind {
	case KindRun:
		st := &runState{agent: v.from}
		st.started, _ = timeOf(m.Node("/startedAt"))
		w := lint.Witness(m, "/agentId", "run.json: "+v.task+" leased to "+v.from)
		st.run = &w
		if prev, ok := c.runs.Get(v.task); ok && prev.run == nil {
			// artifacts seen before the run: compare them now
			st.completion, st.compOut, st.compFrom = prev.completion, prev.compOut, prev.compFrom
		}
		if c.runs.Put(v.task, st) {
			reportCap(p)
		}
	case KindHeartbeat:
		st := c.state(p, v.task)
		if st.run == nil {
			return
		}
		if v.from != "" && st.agent != "" && v.from != st.agent {
			p.ReportRelatedf(p.Rule.Severity, "/agentId", rel(st.run), "run_heartbeat.json agentId %q differs from run.json's %q (%s): the heartbeat belongs to the run's agent", v.from, st.agent, where(p, *st.run))
		}
		if last, ok := timeOf(m.Node("/lastHeartbeat")); ok && !st.started.IsZero() && last.Before(st.started) {
			p.ReportRelatedf(p.Rule.Severity, "/lastHeartbeat", rel(st.run), "lastHeartbeat %s is before the run's startedAt %s (%s): the heartbeat is from an older run",
				m.Node("/lastHeartbeat").Str, st.started.UTC().Format(time.RFC3339Nano), where(p, *st.run))
		}
	case KindRunResult:
		st := c.state(p, v.task)
		outcome := m.Node("/outcome").String()
		w := lint.Witness(m, "/outcome", "run_result.json of "+v.task+": outcome "+outcome+", agent "+v.from)
		st.result, st.outcome, st.resAgent = &w, c.views.own(outcome), v.from
		if st.run != nil {
			if v.from != "" && st.agent != "" && v.from != st.agent {
				p.ReportRelatedf(p.Rule.Severity, "/agentId", rel(st.run), "run_result.json agentId %q differs from run.json's %q (%s): the result belongs to the run's agent", v.from, st.agent, where(p, *st.run))
			}
			if done, ok := timeOf(m.Node("/completedAt")); ok && !st.started.IsZero() && done.Before(st.started) {
				p.ReportRelatedf(p.Rule.Severity, "/completedAt", rel(st.run), "completedAt %s is before the run's startedAt %s (%s): the result is from an older run",
					m.Node("/completedAt").Str, st.started.UTC().Format(time.RFC3339Nano), where(p, *st.run))
			}
		}
		if st.completion != nil {
			if outcome != "" && st.compOut != "" && outcome != st.compOut {
				p.ReportRelatedf(p.Rule.Severity, "/outcome", rel(st.completion), "run_result.json outcome %q differs from the completion.report's %q (%s): the router writes run_result.json from the report", outcome, st.compOut, where(p, *st.completion))
			}
			if v.from != "" && st.compFrom != "" && v.from != st.compFrom {
				p.ReportRelatedf(p.Rule.Severity, "/agentId", rel(st.completion), "run_result.json agentId %q differs from the completion.report's fromAgent %q (%s)", v.from, st.compFrom, where(p, *st.completion))
			}
		}
	case KindCompletion, KindStatusUpdate:
		st := c.state(p, v.task)
		if st.run != nil && v.from != "" && st.agent != "" && v.from != st.agent {
			p.ReportRelatedf(p.Rule.Severity, "/fromAgent", rel(st.run), "%s for %s comes from %q, but the run is leased to %q (%s): only the lease holder reports on its run (upstream: unauthorized_agent)",
				v.kind, v.task, v.from, st.agent, where(p, *st.run))
		}
		if v.kind != KindCompletion {
			return
		}
		outcome := m.Node("/payload/outcome").String()
		w := lint.Witness(m, "/payload/outcome", "completion.report of "+v.task+": outcome "+outcome+" from "+v.from)
		st.completion, st.compOut, st.compFrom = &w, c.views.own(outcome), v.from
		if st.result != nil && st.outcome != "" && outcome != "" && st.outcome != outcome {
			p.ReportRelatedf(p.Rule.Severity, "/payload/outcome", rel(st.result), "completion.report outcome %q differs from run_result.json's %q (%s): the router writes run_result.json from the report", outcome, st.outcome, where(p, *st.result))
		}
	}
}

func (c *artifactChecker) Finish(p *lint.Pass) { c.runs.Release() }
