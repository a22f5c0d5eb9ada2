package aof

import (
	"fmt"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/lint"
)

// SeqDelegation: delegation depth at most 1.
var SeqDelegation = ruleDocs.Rule(lint.Rule{ID: "AOF-SEQ-001", Protocol: "aof", Severity: lint.Error})

type delegationChecker struct {
	views    *viewMemo           // shared by the group: each message is read once
	children table[lint.Related] // child task → the handoff that delegated it
}

func (c *delegationChecker) Observe(p *lint.Pass) { c.views.observe(p, c.observeView) }

func (c *delegationChecker) observeView(p *lint.Pass, v *view) {
	m := p.Msg
	var parentPtr string
	switch v.kind {
	case KindRun:
		// the engine records a delegated child's depth in run.json metadata
		if d, ok := m.Node("/metadata/delegationDepth").Int(); ok && spec.NestedDelegation(d) {
			if c.children.Put(v.task, lint.Witness(m, "/metadata/delegationDepth", fmt.Sprintf("run.json: %s is a delegated child (delegationDepth %d)", v.task, d))) {
				reportCap(p)
			}
		}
		return
	case KindHandoffRequest:
		parentPtr = "/payload/parentTaskId"
	case KindHandoffInput:
		parentPtr = "/parentTaskId"
	default:
		return
	}
	parent := m.Node(parentPtr).String()
	if parent == "" {
		return
	}
	if w, ok := c.children.Get(parent); ok && parent != v.task {
		p.ReportRelatedf(p.Rule.Severity, parentPtr, []lint.Related{w},
			"nested delegation: parent task %s is itself a delegated child (%s), so %s would have delegation depth 2; "+
				"depth is at most 1 and the router rejects this handoff with nested_delegation", parent, where(p, w), v.task)
		return
	}
	if c.children.Put(v.task, lint.Witness(m, parentPtr, "the handoff that made "+v.task+" a delegated child of "+parent)) {
		reportCap(p)
	}
}

func (c *delegationChecker) Finish(p *lint.Pass) { c.children.Release() }
