package aof

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// Rejection reasons logged with protocol.message.rejected / delegation.rejected.
const (
	ReasonInvalidJSON       = "invalid_json"
	ReasonInvalidEnvelope   = "invalid_envelope"
	ReasonTaskNotFound      = "task_not_found"
	ReasonTaskIDMismatch    = "taskId_mismatch"
	ReasonParentNotFound    = "parent_not_found"
	ReasonNestedDelegation  = "nested_delegation"
	ReasonUnauthorizedAgent = "unauthorized_agent"
	ReasonInvalidRunResult  = "invalid_run_result"
	ReasonMessageTooLarge   = "message_too_large"
)

// Outcome kinds of Router.Handle.
const (
	KindNotProtocol = "not-protocol" // a log line: kept in the transcript, not routed
	KindRejected    = "rejected"     // protocol.message.rejected
	KindUnknown     = "unknown"      // protocol.message.unknown
	KindRouted      = "routed"       // protocol.message.received, then the handler ran
)

// Outcome is what the router decided about one line.
type Outcome struct {
	Kind     string
	Type     string
	TaskID   string
	Reason   string // rejection reason, or the handler's decision ("noop", "duplicate", ...)
	Detail   string
	Prefixed bool
	Written  []Written // files the router wrote
}

// Router is the protocol router (aof-1 §Message Types, ProtocolRouter).
type Router struct {
	Store *Store
	// Fault is the engine fault the router and scheduler play ("" for none).
	Fault string
	// delegated are the child tasks whose handoff.request was accepted, in order.
	delegated []string
}

// Delegated lists the child tasks whose handoff.request the router accepted, in
// the order of the requests.
func (r *Router) Delegated() []string { return append([]string(nil), r.delegated...) }

func (r *Router) log(typ, actor, taskID string, payload map[string]any) {
	r.Store.Events.Log(typ, actor, taskID, payload)
}

func (r *Router) reject(o Outcome, actor string) Outcome {
	o.Kind = KindRejected
	if actor == "" {
		actor = "unknown"
	}
	p := map[string]any{"reason": o.Reason}
	if o.Detail != "" {
		p["detail"] = o.Detail
	}
	if o.Type != "" {
		p["type"] = o.Type
	}
	r.log("protocol.message.rejected", actor, o.TaskID, p)
	return o
}

// Handle detects, validates and routes one line the agent wrote.
func (r *Router) Handle(line []byte) Outcome {
	if len(line) > spec.MaxMessage {
		return r.reject(Outcome{Reason: ReasonMessageTooLarge, Detail: "message exceeds 10 MiB"}, "")
	}
	det, w, prefixed := detect(line)
	o := Outcome{Prefixed: prefixed}
	switch det {
	case notProtocol:
		o.Kind = KindNotProtocol
		return o
	case badJSON:
		o.Reason = ReasonInvalidJSON
		return r.reject(o, "")
	}
	env, unknown, ferr := readEnvelope(line, w)
	o.Type, o.TaskID = env.Type, env.TaskID
	if ferr != nil {
		o.Reason, o.Detail = ReasonInvalidEnvelope, ferr.Error()
		return r.reject(o, env.FromAgent)
	}
	if unknown && r.Fault == FaultUnknownAsRejected {
		o.Reason, o.Detail = ReasonInvalidEnvelope, "unknown type "+env.Type
		return r.reject(o, env.FromAgent)
	}
	if unknown {
		o.Kind = KindUnknown
		r.log("protocol.message.unknown", env.FromAgent, env.TaskID, map[string]any{"type": env.Type})
		return o
	}
	switch env.Type {
	case spec.TypeCompletion:
		return r.completion(env, o)
	case spec.TypeStatusUpdate:
		return r.statusUpdate(env, o)
	case spec.TypeHandoffRequest:
		return r.handoffRequest(env, o)
	default:
		return r.handoffAck(env, o)
	}
}

func (r *Router) received(env *Envelope, o *Outcome) {
	o.Kind = KindRouted
	if r.Fault == FaultNoReceivedLog {
		return
	}
	r.log("protocol.message.received", env.FromAgent, env.TaskID, map[string]any{"type": env.Type})
}

// authorized: while a task is leased, only the lease holder reports on it
// (upstream router: unauthorized_agent).
func (r *Router) authorized(t *Task, agent string) bool {
	return t.Lease == nil || t.Lease.Agent == "" || t.Lease.Agent == agent || r.Fault == FaultAnySender
}

// notFound rejects a message for a task that does not exist (task_not_found).
func (r *Router) notFound(o Outcome, actor string, err error) Outcome {
	o.Reason, o.Detail = ReasonTaskNotFound, errDetail(err)
	if r.Fault == FaultSilentTaskNotFound {
		o.Kind = KindRejected
		return o
	}
	return r.reject(o, actor)
}

// admit is the start of routing a message about its envelope's task: a payload
// that fails validation (ferr) is rejected as invalid_envelope, a task that does
// not exist as task_not_found and, with holderOnly, a sender other than the lease
// holder as unauthorized_agent; an admitted message is logged received. ok
// false: *o is the rejection.
func (r *Router) admit(env *Envelope, o *Outcome, ferr *fieldError, holderOnly bool) (t *Task, ok bool) {
	if ferr != nil {
		o.Reason, o.Detail = ReasonInvalidEnvelope, ferr.Error()
		*o = r.reject(*o, env.FromAgent)
		return nil, false
	}
	t, err := r.Store.Get(env.TaskID)
	if err != nil {
		*o = r.notFound(*o, env.FromAgent, err)
		return nil, false
	}
	if holderOnly && !r.authorized(t, env.FromAgent) {
		o.Reason, o.Detail = ReasonUnauthorizedAgent, "task is leased to "+t.Lease.Agent
		*o = r.reject(*o, env.FromAgent)
		return nil, false
	}
	r.received(env, o)
	return t, true
}

// completion handles completion.report (aof-1 §Completion Protocol): validate,
// write run_result.json, log task.completed. Transitions wait for session_end or the
// scheduler's stale-heartbeat recovery.
func (r *Router) completion(env *Envelope, o Outcome) Outcome {
	p := env.Wire.Completion
	rr, ferr := completionPayload(p)
	ferr = problem(env.lint.payload, ferr)
	if ferr != nil && r.Fault == FaultAcceptInvalidReport {
		// The fault: the report is recorded as it came, unvalidated.
		rr, ferr = &RunResult{Outcome: p.Outcome.V, SummaryRef: p.SummaryRef.V, Notes: p.Notes.V}, nil
	}
	t, ok := r.admit(env, &o, ferr, true)
	if !ok {
		return o
	}
	if t.Status == spec.Done {
		if r.Fault == FaultReopenDone {
			r.reopen(t, env.FromAgent)
		}
		o.Reason = "noop"
		o.Detail = "task already done"
		return o
	}
	rr.TaskID, rr.AgentID, rr.CompletedAt = env.TaskID, env.FromAgent, spec.FormatTime(r.Store.Clock.Now())
	if old, err := r.Store.ReadRunResult(env.TaskID); err == nil && sameResult(old, rr) {
		o.Reason = "duplicate"
		o.Detail = "same completion already recorded"
		return o
	}
	w, err := r.Store.WriteRunResult(rr)
	if err != nil {
		o.Reason, o.Detail = "write_failed", err.Error()
		return o
	}
	o.Written = append(o.Written, w)
	if r.Fault != FaultNoCompletedEvent {
		r.log("task.completed", env.FromAgent, env.TaskID, map[string]any{"outcome": rr.Outcome})
	}
	if !r.refExists(t, rr.SummaryRef) {
		r.log("completion.warning", env.FromAgent, env.TaskID, map[string]any{"reason": "summary_missing", "summaryRef": rr.SummaryRef})
	}
	return o
}

// sameResult compares two results without their completion time.
func sameResult(a, b *RunResult) bool {
	x, y := *a, *b
	x.CompletedAt, y.CompletedAt = "", ""
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// refExists looks for a summary file relative to the task's directory, its run
// directory or the data directory; a path escaping them never counts.
func (r *Router) refExists(t *Task, ref string) bool {
	if !filepath.IsLocal(ref) {
		return false
	}
	for _, base := range []string{r.Store.TaskDir(t.Status, t.ID), r.Store.RunDir(t.ID), r.Store.Dir} {
		if _, err := os.Stat(filepath.Join(base, ref)); err == nil {
			return true
		}
	}
	return false
}

// statusUpdate handles status.update (aof-1 §Status Update Protocol).
func (r *Router) statusUpdate(env *Envelope, o Outcome) Outcome {
	su, ferr := statusPayload(env.Wire.Status)
	ferr = problem(env.lint.payload, ferr)
	// aof-1 requires payload.taskId = envelope taskId for handoff.request only
	// (§Handoff Request Payload); a status.update is routed by its envelope, as the
	// upstream router does (AOF-ENV-005 is a warning here).
	t, ok := r.admit(env, &o, ferr, true)
	if !ok {
		return o
	}
	if su.Status != "" && su.Status == t.Status && r.Fault == FaultRepeatTransition {
		r.log("task.transitioned", env.FromAgent, t.ID, map[string]any{"from": t.Status, "to": su.Status, "reason": statusReason(su)})
	}
	if su.Status != "" && su.Status != t.Status && r.Fault != FaultStatusNeverApplied {
		if spec.ValidTransition(t.Status, su.Status) {
			if _, err := r.Store.Transition(t.ID, su.Status, statusReason(su), env.FromAgent); err != nil {
				o.Reason, o.Detail = "transition_failed", err.Error()
				return o
			}
			o.Reason = "transitioned"
			o.Detail = t.Status + " → " + su.Status
			return o
		}
		// Invalid transition: no transition, work log appended instead.
		r.log("task.transition.rejected", env.FromAgent, t.ID, map[string]any{"from": t.Status, "to": su.Status, "reason": "invalid_transition"})
		o.Reason = "invalid_transition"
		o.Detail = t.Status + " → " + su.Status
		if r.Fault != FaultInvalidTransitionLost {
			r.appendWorkLog(t, su, "Requested status: "+su.Status+" (invalid transition from "+t.Status+")")
		}
		return o
	}
	if r.Fault != FaultStatusNoWorkLog && r.appendWorkLog(t, su, "") {
		o.Reason = "work_log"
	} else {
		o.Reason = "noop"
	}
	return o
}

// statusReason is a status.update's transition reason: its first blocker, else
// its notes, else its progress (aof-1 §Routing Behavior), else the status.
func statusReason(su *StatusUpdate) string {
	switch {
	case len(su.Blockers) > 0:
		return su.Blockers[0]
	case su.Notes != "":
		return su.Notes
	case su.Progress != "":
		return su.Progress
	}
	return su.Status
}

// reopen is the fault reopen-done: a done task is moved back to review, past the
// state machine (done is terminal).
func (r *Router) reopen(t *Task, actor string) {
	t.Status = spec.Review
	if r.Store.writeFile(r.Store.TaskPath(spec.Review, t.ID), t.Marshal()) == nil {
		os.Remove(r.Store.TaskPath(spec.Done, t.ID))
		r.log("task.transitioned", actor, t.ID, map[string]any{"from": spec.Done, "to": spec.Review, "reason": "completion_reopened"})
	}
}

// appendWorkLog writes "Progress: ... | Notes: ... | Blockers: ..." (aof-1 §Work Log
// Entry Format); extra is appended as one more part.
func (r *Router) appendWorkLog(t *Task, su *StatusUpdate, extra string) bool {
	var parts []string
	if su.Progress != "" {
		parts = append(parts, "Progress: "+su.Progress)
	}
	if su.Notes != "" {
		parts = append(parts, "Notes: "+su.Notes)
	}
	if len(su.Blockers) > 0 {
		parts = append(parts, "Blockers: "+strings.Join(su.Blockers, ", "))
	}
	if extra != "" {
		parts = append(parts, extra)
	}
	if len(parts) == 0 {
		return false
	}
	t.AppendWorkLog(spec.FormatTime(r.Store.Clock.Now()), strings.Join(parts, " | "))
	return r.Store.Save(t) == nil
}

// handoffRequest handles handoff.request (aof-1 §Handoff Protocol), with the depth
// guard: a child of a task at depth ≥ 1 is refused (nested_delegation).
func (r *Router) handoffRequest(env *Envelope, o Outcome) Outcome {
	h, criteriaErr, ferr := handoffPayload(env.Wire.Handoff)
	ferr = problem(env.lint.payload, ferr)
	criteriaErr = problem(env.lint.exceptedUnder("/payload/acceptanceCriteria"), criteriaErr)
	if ferr == nil && criteriaErr != nil && r.Fault == FaultStrictCriteria {
		ferr = criteriaErr
	}
	if ferr != nil {
		o.Reason, o.Detail = ReasonInvalidEnvelope, ferr.Error()
		return r.reject(o, env.FromAgent)
	}
	if env.lint.has("AOF-ENV-005") {
		o.Reason, o.Detail = ReasonTaskIDMismatch, "payload.taskId "+h.TaskID+" differs from envelope taskId "+env.TaskID
		return r.reject(o, env.FromAgent)
	}
	child, err := r.Store.Get(h.TaskID)
	if err != nil {
		o = r.notFound(o, env.FromAgent, err)
		if r.Fault != FaultSilentTaskNotFound {
			r.log("delegation.rejected", env.FromAgent, h.TaskID, map[string]any{"reason": ReasonTaskNotFound})
		}
		return o
	}
	r.received(env, &o)
	if criteriaErr != nil {
		r.log("protocol.message.schema_error", env.FromAgent, h.TaskID, map[string]any{"detail": criteriaErr.Error()})
	}
	parent, err := r.Store.Get(h.ParentTaskID)
	if err != nil && r.Fault == FaultNoParentCheck {
		parent, err = &Task{ID: h.ParentTaskID}, nil
	}
	if err != nil {
		o.Reason = ReasonParentNotFound
		r.log("delegation.rejected", env.FromAgent, h.TaskID, map[string]any{"reason": ReasonParentNotFound, "parentTaskId": h.ParentTaskID})
		return o
	}
	depth := parent.DelegationDepth()
	if spec.NestedDelegation(int64(depth)) && r.Fault != FaultAllowNestedDelegation {
		o.Reason = ReasonNestedDelegation
		o.Detail = "parent " + parent.ID + " is itself a delegated task"
		r.log("delegation.rejected", env.FromAgent, h.TaskID, map[string]any{"reason": ReasonNestedDelegation, "parentTaskId": parent.ID, "parentDepth": depth})
		return o
	}
	dir := filepath.Join(r.Store.TaskDir(child.Status, child.ID), "inputs")
	jsonPath, mdPath := filepath.Join(dir, "handoff.json"), filepath.Join(dir, "handoff.md")
	data, _ := json.MarshalIndent(h, "", "  ")
	data = append(data, '\n')
	if old, err := r.Store.read(jsonPath); err == nil && bytes.Equal(old, data) && r.Fault != FaultResendDelegatesAgain {
		o.Reason = "duplicate"
		o.Detail = "same handoff already written"
		return o
	}
	if err := r.Store.writeFile(jsonPath, data); err != nil {
		o.Reason, o.Detail = "write_failed", err.Error()
		return o
	}
	md := HandoffMarkdown(h)
	if err := r.Store.writeFile(mdPath, md); err != nil {
		o.Reason, o.Detail = "write_failed", err.Error()
		return o
	}
	o.Written = append(o.Written, Written{jsonPath, data}, Written{mdPath, md})
	child.SetMeta("delegationDepth", depth+1)
	child.SetMeta("parentTaskId", parent.ID)
	r.Store.Save(child)
	if !slices.Contains(r.delegated, child.ID) {
		r.delegated = append(r.delegated, child.ID)
	}
	o.Reason = "delegated"
	r.log("delegation.requested", env.FromAgent, h.TaskID, map[string]any{"parentTaskId": parent.ID, "toAgent": h.ToAgent, "delegationDepth": depth + 1})
	return o
}

// handoffAck handles handoff.accepted and handoff.rejected (aof-1 §Handoff
// Acceptance/Rejection).
func (r *Router) handoffAck(env *Envelope, o Outcome) Outcome {
	accepted := env.Type == spec.TypeHandoffAccepted
	id, reason, ferr := ackPayload(env.Wire.Ack, accepted)
	ferr = problem(env.lint.payload, ferr)
	// Routed by the envelope's taskId, like status.update: aof-1 requires the
	// payload to match only on handoff.request.
	if _, ok := r.admit(env, &o, ferr, false); !ok {
		return o
	}
	if accepted && r.Fault == FaultAcceptedBlocks {
		accepted, reason = false, "handoff accepted"
	}
	if accepted {
		o.Reason = "accepted"
		r.log("delegation.accepted", env.FromAgent, id, nil)
		return o
	}
	if reason == "" {
		reason = "handoff rejected"
	}
	o.Reason = "rejected"
	if r.Fault == FaultRejectedNotBlocked {
		// The fault: the rejection is only logged.
	} else if _, err := r.Store.Transition(id, spec.Blocked, reason, env.FromAgent); err != nil {
		o.Detail = err.Error()
	}
	r.log("delegation.rejected", env.FromAgent, id, map[string]any{"reason": reason})
	return o
}

func errDetail(err error) string {
	if errors.Is(err, ErrTaskNotFound) {
		return "no tasks/<status>/<taskId>.md"
	}
	return err.Error()
}

// SessionEnd is the session_end hook (aof-1 §session_end Hook): every in-progress
// task with a run_result.json gets its completion transitions.
func (r *Router) SessionEnd() {
	r.log("session.ended", "dispatcher", "", nil)
	tasks, _ := r.Store.List(spec.InProgress)
	for _, t := range tasks {
		rr, err := r.Store.ReadRunResult(t.ID)
		if errors.Is(err, errNoRunResult) {
			continue
		}
		if err != nil {
			r.log("protocol.message.rejected", "dispatcher", t.ID, map[string]any{"reason": ReasonInvalidRunResult, "detail": err.Error()})
			continue
		}
		r.applyOutcome(t, rr, "completion_"+rr.Outcome)
	}
}

// applyOutcome applies resolveCompletionTransitions in order; a status the task
// already has is skipped (idempotency).
func (r *Router) applyOutcome(t *Task, rr *RunResult, reason string) []string {
	var applied []string
	tos := ResolveCompletionTransitions(t, rr.Outcome)
	if r.Fault == FaultDoneSkipsReview && rr.Outcome == spec.OutcomeDone && len(tos) == 1 {
		tos = append(tos, spec.Done) // review is required, and skipped
	}
	for _, to := range tos {
		ok, err := r.Store.Transition(t.ID, to, reason, rr.AgentID)
		if err != nil {
			r.log("task.transition.rejected", rr.AgentID, t.ID, map[string]any{"to": to, "reason": "invalid_transition", "detail": err.Error()})
			break
		}
		if ok {
			applied = append(applied, to)
		}
	}
	return applied
}
