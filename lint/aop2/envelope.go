package aop2

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// MessageType: message_type is TASK, RESPONSE or EVENT.
var MessageType = ruleDocs.Rule(lint.Rule{ID: "AOP2-ENVELOPE-001", Protocol: ID, Severity: lint.Error, Run: checkMessageType})

// ProtocolFamily: protocol_family is "AOP".
var ProtocolFamily = ruleDocs.Rule(lint.Rule{ID: "AOP2-ENVELOPE-002", Protocol: ID, Severity: lint.Error, Run: checkProtocolFamily})

// TaskStatusInTask: a TASK must not carry task_status.
var TaskStatusInTask = ruleDocs.Rule(lint.Rule{ID: "AOP2-ENVELOPE-003", Protocol: ID, Kinds: kindTask, Severity: lint.Error, Run: checkTaskStatusInTask})

// TaskParts: a TASK contains session, target and task.
var TaskParts = ruleDocs.Rule(lint.Rule{ID: "AOP2-ENVELOPE-004", Protocol: ID, Kinds: kindTask, Severity: lint.Error, Run: checkTaskParts})

// ResponseParts: a RESPONSE contains task_status, agent, session_id and task_id.
var ResponseParts = ruleDocs.Rule(lint.Rule{ID: "AOP2-ENVELOPE-005", Protocol: ID, Kinds: kindResponse, Severity: lint.Error, Run: checkResponseParts})

// EventName: an EVENT names one of the contract's events.
var EventName = ruleDocs.Rule(lint.Rule{ID: "AOP2-ENVELOPE-006", Protocol: ID, Severity: lint.Error, Run: checkEventName})

// UnknownMember: a member the contract does not define, outside extensions.
var UnknownMember = ruleDocs.Rule(lint.Rule{ID: "AOP2-ENVELOPE-007", Protocol: ID, Severity: lint.Warning, Run: checkUnknownMembers})

func checkMessageType(p *lint.Pass) {
	root := p.Msg.Root
	if root == nil {
		return
	}
	mt := root.Get("message_type")
	switch {
	case mt == nil:
		p.Claim("/message_type")
		headerOnly := len(root.Members) > 0
		for _, m := range root.Members {
			if m.Key != "aop_version" && m.Key != "schema_version" && m.Key != "protocol_family" {
				headerOnly = false
			}
		}
		if headerOnly {
			p.Reportf("", "message_type is missing: a version header alone is no message; an AOP message is a TASK, RESPONSE or EVENT envelope with \"message_type\" set to one of TASK, RESPONSE, EVENT (§1.2)")
			return
		}
		p.Reportf("", "message_type is missing: it must be one of %s (§1.2)", quoteList(messageTypes))
	case !mt.IsString() || !contains(messageTypes, mt.Str):
		p.Claim("/message_type")
		p.Reportf("/message_type", "message_type %s is not one of %s (§1.2)", describe(mt), quoteList(messageTypes))
	}
}

func checkProtocolFamily(p *lint.Pass) {
	root := p.Msg.Root
	pf := root.Get("protocol_family")
	switch {
	case pf == nil:
		if p.Msg.Kind == KindTask || p.Msg.Kind == KindResponse {
			p.Claim("/protocol_family")
			p.Reportf("", "protocol_family is missing: the version header of a %s carries \"protocol_family\": \"AOP\" (§1.1, REQUIRED)", p.Msg.Kind)
		}
	case pf.String() != "AOP":
		p.Claim("/protocol_family")
		p.Reportf("/protocol_family", "protocol_family %s must be \"AOP\" (§1.1)", describe(pf))
	}
}

func checkTaskStatusInTask(p *lint.Pass) {
	if ts := p.Msg.Root.Get("task_status"); ts != nil {
		p.Claim("/task_status")
		p.Reportf("/task_status", "a TASK must not contain task_status (§1.2): the executor reports the status in its RESPONSE; remove it")
	}
}

func requireObject(p *lint.Pass, root *jsonread.Node, key, kind, what string) {
	n := root.Get(key)
	switch {
	case n == nil:
		p.Claim("/" + key)
		p.Reportf("", "a %s must contain %s, %s (§1.2)", kind, key, what)
	case n.Kind != jsonread.Object:
		p.Claim("/" + key)
		p.Reportf("/"+key, "%s must be an object (%s), not a %s (§1.2)", key, what, n.Kind)
	}
}

func checkTaskParts(p *lint.Pass) {
	root := p.Msg.Root
	requireObject(p, root, "session", "TASK", "the object with session_id, created_at, orchestrator and origin")
	requireObject(p, root, "target", "TASK", "the object with agent_name, role, provider and model")
	requireObject(p, root, "task", "TASK", "the object with task_id, objective, category, complexity and environment")
}

func checkResponseParts(p *lint.Pass) {
	root := p.Msg.Root
	requireObject(p, root, "task_status", "RESPONSE", "the object with state, final_signal and message")
	requireObject(p, root, "agent", "RESPONSE", "the object with name, provider and model of the executor")
	for _, key := range []string{"session_id", "task_id"} {
		n := root.Get(key)
		switch {
		case n == nil:
			p.Claim("/" + key)
			p.Reportf("", "a RESPONSE must contain %s, the %s of the TASK it answers (§1.2)", key, key)
		case !n.IsString() || n.Str == "":
			p.Claim("/" + key)
			p.Reportf("/"+key, "%s must be the non-empty %s of the TASK it answers, not %s (§1.2)", key, key, describe(n))
		}
	}
}

func checkEventName(p *lint.Pass) {
	root := p.Msg.Root
	if root.Get("message_type").String() != "EVENT" {
		return
	}
	ev := root.Get("event")
	switch {
	case ev == nil:
		p.Claim("/event")
		p.Reportf("", "an EVENT must name its event: one of %s (§6-§10)", quoteList(eventNames))
	case !ev.IsString() || !isEventName(ev.Str):
		p.Claim("/event")
		p.Reportf("/event", "event %s is not one of %s (§6-§10)", describe(ev), quoteList(eventNames))
	}
}

func init() {
	lint.Register(MessageType, ProtocolFamily, TaskStatusInTask, TaskParts, ResponseParts, EventName, UnknownMember)
}
