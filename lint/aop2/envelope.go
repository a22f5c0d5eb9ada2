package aop2

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// MessageType: message_type is TASK, RESPONSE or EVENT.
var MessageType = &lint.Rule{
	ID: "AOP2-ENVELOPE-001", Title: "message_type is TASK, RESPONSE or EVENT", Protocol: ID, Severity: lint.Error,
	Spec: "aop2 §1.2 Message Types",
	Doc:  "message_type says what the message is and selects the rules it must follow. §1.2 allows exactly three values: \"TASK\", \"RESPONSE\" and \"EVENT\". Status updates and heartbeats are EVENTs with an event name.",
	Bad:  `{"aop_version": "2.0.2-C", "message_type": "STATUS", "session_id": "AOP-SESSION-2026-02-26-001", "status": "working"}`,
	Good: `{"aop_version": "2.0.2-C", "message_type": "EVENT", "event": "PROGRESS_UPDATE", "session_id": "AOP-SESSION-2026-02-26-001", "task_id": "TASK-001", "timestamp": "2026-02-26T12:38:30Z", "progress": {"percentage": 60}}`,
	Run:  checkMessageType,
}

// ProtocolFamily: protocol_family is "AOP".
var ProtocolFamily = &lint.Rule{
	ID: "AOP2-ENVELOPE-002", Title: "protocol_family is \"AOP\"", Protocol: ID, Severity: lint.Error,
	Spec: "aop2 §1.1 Canonical Version Header",
	Doc:  "The version header (§1.1, REQUIRED) carries protocol_family, which MUST be \"AOP\". TASK and RESPONSE envelopes carry the whole header; the contract's EVENT examples omit protocol_family, so on an EVENT it is optional, but when present it must still be \"AOP\".",
	Bad:  `{"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "aop", "message_type": "RESPONSE", ...}`,
	Good: `{"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "RESPONSE", ...}`,
	Run:  checkProtocolFamily,
}

// TaskStatusInTask: a TASK must not carry task_status.
var TaskStatusInTask = &lint.Rule{
	ID: "AOP2-ENVELOPE-003", Title: "TASK must not carry task_status", Protocol: ID, Kinds: kindTask, Severity: lint.Error,
	Spec: "aop2 §1.2 Message Types (cross-field rules)",
	Doc:  "task_status is the executor's report of a task and belongs in the RESPONSE. §1.2: a TASK MUST NOT contain task_status. An orchestrator delegating or re-sending a task must drop it.",
	Bad:  `{"message_type": "TASK", "session": {...}, "target": {...}, "task": {...}, "task_status": {"state": "PENDING", "final_signal": "SUCCESS", "message": "queued"}}`,
	Good: `{"message_type": "TASK", "session": {...}, "target": {...}, "task": {...}}`,
	Run:  checkTaskStatusInTask,
}

// TaskParts: a TASK contains session, target and task.
var TaskParts = &lint.Rule{
	ID: "AOP2-ENVELOPE-004", Title: "TASK contains session, target and task", Protocol: ID, Kinds: kindTask, Severity: lint.Error,
	Spec: "aop2 §1.2 Message Types (cross-field rules); §2.1 Minimal Envelope",
	Doc:  "§1.2: a TASK MUST contain session (who orchestrates, which session), target (which agent and model executes) and task (what to do). Each is an object; §2.1 shows the minimal envelope.",
	Bad:  `{"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "TASK"}`,
	Good: `{"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "TASK", "session": {"session_id": "AOP-SESSION-2026-02-26-001", "created_at": "2026-02-26T14:00:00Z", "orchestrator": "Cyclops", "origin": "CLI"}, "target": {"agent_name": "Emma", "role": "EXECUTOR", "provider": "CODEX", "model": "gpt-5.3-codex"}, "task": {"task_id": "TASK-001", "objective": "Read and summarize the README.md file.", "category": "ANALYSIS", "complexity": "LOW", "environment": {"workspace_root": "C:/ai/my-project"}}}`,
	Run:  checkTaskParts,
}

// ResponseParts: a RESPONSE contains task_status, agent, session_id and task_id.
var ResponseParts = &lint.Rule{
	ID: "AOP2-ENVELOPE-005", Title: "RESPONSE contains task_status, agent, session_id and task_id", Protocol: ID, Kinds: kindResponse, Severity: lint.Error,
	Spec: "aop2 §1.2 Message Types (cross-field rules); §5 Executor Response",
	Doc:  "§1.2: a RESPONSE MUST contain task_status (the outcome), agent (who executed: name, provider, model), session_id and task_id (which TASK it answers). The contract does not require execution_summary or timing (the upstream Python schema did); the TASK's guard rails may (§5, AOP2-SEQ-002/003).",
	Bad:  `{"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "RESPONSE", "task_id": "TASK-001", "task_status": {"state": "COMPLETED", "final_signal": "SUCCESS"}}`,
	Good: `{"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "RESPONSE", "session_id": "AOP-SESSION-2026-02-26-001", "task_id": "TASK-001", "agent": {"name": "Emma", "provider": "CODEX", "model": "gpt-5.3-codex"}, "task_status": {"state": "COMPLETED", "final_signal": "SUCCESS", "message": "Task completed successfully."}, "execution_summary": {"summary": "Fixed the login redirect.", "actions": ["Edited src/auth/login.ts"]}}`,
	Run:  checkResponseParts,
}

// EventName: an EVENT names one of the contract's events.
var EventName = &lint.Rule{
	ID: "AOP2-ENVELOPE-006", Title: "EVENT names a known event", Protocol: ID, Severity: lint.Error,
	Spec: "aop2 §1.2 Message Types; §6-§10",
	Doc:  "An EVENT carries event, the name of what happened: HEARTBEAT (§6.1), PROGRESS_UPDATE (§6.2), ROLLBACK_INITIATED (§7), PRIORITY_ESCALATION (§8), VERSION_FALLBACK (§1.3) or SESSION_FINAL_REPORT (§10), the v2.0.0 names.",
	Bad:  `{"aop_version": "2.0.2-C", "message_type": "EVENT", "event": "HEART_BEAT", "session_id": "AOP-SESSION-2026-02-26-001", "task_id": "TASK-001", "timestamp": "2026-02-26T12:37:01Z"}`,
	Good: `{"aop_version": "2.0.2-C", "message_type": "EVENT", "event": "HEARTBEAT", "session_id": "AOP-SESSION-2026-02-26-001", "task_id": "TASK-001", "timestamp": "2026-02-26T12:37:01Z"}`,
	Run:  checkEventName,
}

// UnknownMember: a member the contract does not define, outside extensions.
var UnknownMember = &lint.Rule{
	ID: "AOP2-ENVELOPE-007", Title: "unknown member outside extensions", Protocol: ID, Severity: lint.Warning,
	Spec: "aop2 §3 Extensions Mechanism; §1.1 Compatibility",
	Doc: "The contract's core objects keep a closed set of members; vendor data goes in an extensions object under x_-prefixed keys (§3). " +
		"A member the contract does not define is reported as a warning, not an error: §1.1 tells orchestrators to fall back conservatively when unknown fields appear (a newer 2.x may add them). " +
		"The upstream Python implementation rejected them (additionalProperties false).",
	Bad:  `{"aop_version": "2.0.2-C", "message_type": "TASK", "extra_forbidden_field": "should_fail", "session": {...}, "target": {...}, "task": {...}}`,
	Good: `{"aop_version": "2.0.2-C", "message_type": "TASK", "session": {...}, "target": {...}, "task": {...}, "extensions": {"x_extra_field": "kept"}}`,
	Run:  checkUnknownMembers,
}

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
