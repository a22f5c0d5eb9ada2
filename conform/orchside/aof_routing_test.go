package orchside

import (
	"testing"

	"github.com/aopkit/aopkit/conform"
	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/lint/spec/aof"
)

func body(text string) aofTaskOpt {
	return func(t *AOFTask) { t.Task = &engaof.Task{ID: t.ID, Body: "# Task\n\n" + text} }
}

func ev(typ, task, actor string, payload map[string]any) AOFEvent {
	r, _ := payload["reason"].(string)
	return AOFEvent{Type: typ, TaskID: task, Actor: actor, Reason: r, Payload: payload}
}

func su(task, from string, p map[string]any) string {
	p["taskId"], p["agentId"] = task, from
	return envelope(aof.TypeStatusUpdate, task, from, p)
}

func withFiles(l Launch, run string) Launch {
	l.Files = map[string]string{"run.json": run}
	return l
}

// TestAOFRoutingChecks judges synthetic read-backs of the routing scenarios: each
// check passes on what the reference engine leaves and fails on each way a
// scheduler can get it wrong.
func TestAOFRoutingChecks(t *testing.T) {
	const (
		id      = "TASK-2026-11-22-011"
		doneID  = "TASK-2026-11-22-515"
		rejID   = "TASK-2026-11-22-012"
		errID   = "TASK-2026-11-22-013"
		child   = "TASK-2026-11-22-513"
		oldID   = "TASK-2026-11-22-517"
		noHbID  = "TASK-2026-11-22-017"
		happyID = "TASK-2026-11-22-001"
		delegID = "TASK-2026-11-22-002"
		dchild  = "TASK-2026-11-22-502"
		me      = "swe-backend"
	)
	routing, routingB := aofScenario(t, "orch-aof-status-routing")
	rej, rejB := aofScenario(t, "orch-aof-handoff-rejected")
	errs, errsB := aofScenario(t, "orch-aof-handoff-errors")
	noHb, noHbB := aofScenario(t, "orch-aof-no-heartbeat")
	happy, happyB := aofScenario(t, "orch-aof-happy-path")
	deleg, delegB := aofScenario(t, "orch-aof-delegation")

	lines := []string{
		su(id, "impostor-agent", map[string]any{"status": "blocked", "blockers": []string{"Impostor says stop"}}),
		su(id, me, map[string]any{"progress": "Implemented core logic", "notes": "ETA after credentials arrive"}),
		su(id, me, map[string]any{"status": "done", "progress": "Finished early"}),
		su(id, me, map[string]any{"status": "in-progress", "notes": "Still on it"}),
		envelope("task.progress", id, me, map[string]any{"taskId": id}),
		su("TASK-2026-11-22-999", me, map[string]any{"notes": "Wrong task"}),
		"AOF/1 " + envelope(aof.TypeCompletion, "TASK-2026-11-22-998", me, map[string]any{"outcome": "done", "summaryRef": "s", "tests": map[string]any{"total": 1, "passed": 1, "failed": 0}, "notes": "n"}),
		aofReport(doneID, me, "done"),
		su(id, me, map[string]any{"status": "blocked", "blockers": []string{"Awaiting API key"}, "notes": "Cannot proceed"}),
		su(id, me, map[string]any{"status": "blocked", "notes": "Still blocked"}),
	}
	run := aofLaunch(id, me, lines, exit("3s", 0))
	ts := "2026-11-22T10:00:01.000Z"
	goodLog := "## Work Log\n\n- " + ts + " Progress: Implemented core logic | Notes: ETA after credentials arrive\n- " + ts +
		" Progress: Finished early | Requested status: done (invalid transition from in-progress)\n- " + ts + " Notes: Still on it\n- " + ts + " Notes: Still blocked\n"
	goodEvents := []AOFEvent{
		ev("protocol.message.rejected", id, "impostor-agent", map[string]any{"reason": "unauthorized_agent"}),
		ev("task.transitioned", id, "dispatcher", map[string]any{"from": "ready", "to": "in-progress", "reason": "lease_acquired"}),
		ev("protocol.message.unknown", id, me, map[string]any{"type": "task.progress"}),
		ev("protocol.message.rejected", "TASK-2026-11-22-999", me, map[string]any{"reason": "task_not_found"}),
		ev("protocol.message.rejected", "TASK-2026-11-22-998", me, map[string]any{"reason": "task_not_found"}),
		ev("task.transitioned", id, me, map[string]any{"from": "in-progress", "to": "blocked", "reason": "Awaiting API key"}),
	}
	for i := 0; i < 5; i++ {
		goodEvents = append(goodEvents, ev("protocol.message.received", id, me, nil))
	}
	goodEvents = append(goodEvents, ev("protocol.message.received", doneID, me, nil))
	routed := func(events []AOFEvent, st, log string) *AOFState {
		return state(events, map[string][]aofTaskOpt{id: {status(st), body(log)}, doneID: {status(aof.Done)}})
	}
	good := routed(goodEvents, aof.Blocked, goodLog)
	with := func(extra ...AOFEvent) []AOFEvent { return append(append([]AOFEvent(nil), goodEvents...), extra...) }
	without := func(typ, reason string) []AOFEvent {
		var out []AOFEvent
		for _, e := range goodEvents {
			if e.Type != typ || reason != "" && e.Reason != reason {
				out = append(out, e)
			}
		}
		return out
	}
	impostorApplied := with(ev("task.transitioned", id, "impostor-agent", map[string]any{"to": "blocked", "reason": "Impostor says stop"}))

	rejRun := aofLaunch(rejID, "swe-qa", []string{envelope(aof.TypeHandoffRejected, rejID, "swe-qa", map[string]any{"taskId": rejID, "accepted": false, "reason": "Insufficient context"})}, exit("1s", 0))
	rejEvents := []AOFEvent{ev("delegation.rejected", rejID, "swe-qa", map[string]any{"reason": "Insufficient context"})}

	req := func(task, payloadTask, parent string, criteria any) string {
		return envelope(aof.TypeHandoffRequest, task, me, map[string]any{"taskId": payloadTask, "parentTaskId": parent, "fromAgent": me, "toAgent": "swe-qa",
			"acceptanceCriteria": criteria, "dueBy": "2026-12-01T12:00:00.000Z"})
	}
	bad := []any{"All tests pass", 42}
	errRun := aofLaunch(errID, me, []string{req("TASK-2026-11-22-996", "TASK-2026-11-22-996", errID, []string{"ok"}), req(child, child, "TASK-2026-11-22-997", []string{"ok"}),
		req(child, "TASK-2026-11-22-514", errID, []string{"ok"}), req(child, child, errID, bad), req(child, child, errID, bad)}, exit("1s", 0))
	errEvents := []AOFEvent{
		ev("protocol.message.rejected", "TASK-2026-11-22-996", me, map[string]any{"reason": "task_not_found"}),
		ev("delegation.rejected", "TASK-2026-11-22-996", me, map[string]any{"reason": "task_not_found"}),
		ev("delegation.rejected", child, me, map[string]any{"reason": "parent_not_found", "parentTaskId": "TASK-2026-11-22-997"}),
		ev("protocol.message.rejected", child, me, map[string]any{"reason": "taskId_mismatch"}),
		ev("delegation.requested", child, me, map[string]any{"parentTaskId": errID}),
	}
	errState := func(events []AOFEvent, opts ...aofTaskOpt) *AOFState {
		return state(events, map[string][]aofTaskOpt{errID: {status(aof.Review)}, child: append([]aofTaskOpt{status(aof.Blocked)}, opts...)})
	}

	happyRun := aofLaunch(happyID, me, []string{aofReport(happyID, me, "done")}, exit("1s", 0))
	happyState := func(events ...AOFEvent) *AOFState {
		return state(events, map[string][]aofTaskOpt{happyID: {status(aof.Review), result(me, "done")}})
	}
	running := `{"taskId":"` + happyID + `","agentId":"swe-backend","status":"running"}`

	request := envelope(aof.TypeHandoffRequest, dchild, me, map[string]any{"taskId": dchild, "parentTaskId": delegID, "fromAgent": me, "toAgent": "swe-qa", "dueBy": "2026-12-01T12:00:00.000Z"})
	parent := aofLaunch(delegID, me, []string{request, aofReport(delegID, me, "done")}, exit("1s", 0))
	childRun := aofLaunch(dchild, "swe-qa", []string{envelope(aof.TypeHandoffAccepted, dchild, "swe-qa", map[string]any{"taskId": dchild, "accepted": true}), aofReport(dchild, "swe-qa", "done")}, exit("2s", 0))
	flow := []AOFEvent{ev("delegation.requested", dchild, me, nil), ev("delegation.accepted", dchild, "swe-qa", nil)}
	delegState := func(events []AOFEvent, childStatus string) *AOFState {
		return state(events, map[string][]aofTaskOpt{delegID: {status(aof.Review)}, dchild: {status(childStatus), handoffFile(delegID, "swe-qa"), depth(1), result("swe-qa", "done")}})
	}

	noHbRun := aofLaunch(noHbID, me, []string{aofReport(noHbID, me, "done")}, exit("1s", 0))

	cases := []checkCase{
		{"aof/orch/status/work-log", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/status/work-log", "no entry", aofSess(routing, routingB, routed(goodEvents, aof.Blocked, "## Work Log\n\n- "+ts+" Notes: Still blocked\n"), run), conform.Fail},
		{"aof/orch/status/work-log", "no timestamp", aofSess(routing, routingB, routed(goodEvents, aof.Blocked, "## Work Log\n\n- Progress: Implemented core logic | Notes: ETA after credentials arrive\n"), run), conform.Fail},
		{"aof/orch/status/work-log", "no section", aofSess(routing, routingB, routed(goodEvents, aof.Blocked, "- "+ts+" Progress: Implemented core logic | Notes: ETA after credentials arrive\n"), run), conform.Fail},
		// An impostor's update applied (aof-1 does not forbid it): the holder's are
		// judged from the state they met (blocked), and pass as the engine's do.
		{"aof/orch/status/work-log", "the impostor applied", aofSess(routing, routingB, routed(impostorApplied, aof.Blocked, goodLog), run), conform.Pass},
		{"aof/orch/status/transition", "the impostor applied", aofSess(routing, routingB, routed(append(without("task.transitioned", "Awaiting API key"),
			ev("task.transitioned", id, "impostor-agent", map[string]any{"to": "blocked", "reason": "Impostor says stop"})), aof.Blocked, goodLog), run), conform.Pass},

		{"aof/orch/status/transition", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/status/transition", "never applied", aofSess(routing, routingB, routed(without("task.transitioned", "Awaiting API key"), aof.InProgress, goodLog), run), conform.Fail},
		{"aof/orch/status/transition", "reason from notes", aofSess(routing, routingB, routed(append(without("task.transitioned", "Awaiting API key"),
			ev("task.transitioned", id, me, map[string]any{"to": "blocked", "reason": "Cannot proceed"})), aof.Blocked, goodLog), run), conform.Fail},
		{"aof/orch/status/transition", "event but task not moved", aofSess(routing, routingB, routed(goodEvents, aof.InProgress, goodLog), run), conform.Fail},

		{"aof/orch/status/invalid-transition", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/status/invalid-transition", "applied", aofSess(routing, routingB, routed(with(ev("task.transitioned", id, me, map[string]any{"to": "done", "reason": "Finished early"})), aof.Blocked, goodLog), run), conform.Fail},
		{"aof/orch/status/invalid-transition", "no work log", aofSess(routing, routingB, routed(goodEvents, aof.Blocked, "## Work Log\n\n- "+ts+" Notes: Still blocked\n"), run), conform.Fail},

		{"aof/orch/status/idempotent", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/status/idempotent", "blocked twice", aofSess(routing, routingB, routed(with(ev("task.transitioned", id, me, map[string]any{"from": "blocked", "to": "blocked", "reason": "Still blocked"})), aof.Blocked, goodLog), run), conform.Fail},
		{"aof/orch/status/idempotent", "reason only", aofSess(routing, routingB, routed(with(ev("task.transitioned", id, me, map[string]any{"reason": "Still on it"})), aof.Blocked, goodLog), run), conform.Fail},
		{"aof/orch/status/idempotent", "no work log", aofSess(routing, routingB, routed(goodEvents, aof.Blocked, "## Work Log\n\n- "+ts+" Progress: Implemented core logic | Notes: ETA after credentials arrive\n"), run), conform.Fail},

		{"aof/orch/envelope/unknown-type", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/envelope/unknown-type", "reason form", aofSess(routing, routingB, routed(append(without("protocol.message.unknown", ""), ev("protocol.message.unknown", id, me, map[string]any{"reason": "type: task.progress"})), aof.Blocked, goodLog), run), conform.Pass},
		{"aof/orch/envelope/unknown-type", "rejected instead", aofSess(routing, routingB, routed(append(without("protocol.message.unknown", ""), ev("protocol.message.rejected", id, me, map[string]any{"reason": "invalid_envelope"})), aof.Blocked, goodLog), run), conform.Fail},

		{"aof/orch/envelope/task-not-found", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/envelope/task-not-found", "silent", aofSess(routing, routingB, routed(without("protocol.message.rejected", "task_not_found"), aof.Blocked, goodLog), run), conform.Fail},
		{"aof/orch/envelope/task-not-found", "run_result written", aofSess(routing, routingB, func() *AOFState {
			st := routed(goodEvents, aof.Blocked, goodLog)
			st.Tasks["TASK-2026-11-22-998"] = &AOFTask{ID: "TASK-2026-11-22-998", Result: []byte(`{"outcome":"done"}`)}
			return st
		}(), run), conform.Fail},

		{"aof/orch/completion/already-done", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/completion/already-done", "reopened", aofSess(routing, routingB, state(with(ev("task.transitioned", doneID, me, map[string]any{"from": "done", "to": "review"})),
			map[string][]aofTaskOpt{id: {status(aof.Blocked), body(goodLog)}, doneID: {status(aof.Review)}}), run), conform.Fail},

		{"aof/orch/envelope/foreign-agent", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/envelope/foreign-agent", "transition by the impostor", aofSess(routing, routingB, routed(impostorApplied, aof.Blocked, goodLog), run), conform.Fail},
		{"aof/orch/envelope/foreign-agent", "work log from the impostor", aofSess(routing, routingB, routed(goodEvents, aof.Blocked, goodLog+"- "+ts+" Blockers: Impostor says stop\n"), run), conform.Fail},

		{"aof/orch/log/received", "ok", aofSess(routing, routingB, good, run), conform.Pass},
		{"aof/orch/log/received", "none", aofSess(routing, routingB, routed(without("protocol.message.received", ""), aof.Blocked, goodLog), run), conform.Fail},

		{"aof/orch/lease/run-live", "running", aofSess(happy, happyB, happyState(), withFiles(happyRun, running)), conform.Pass},
		{"aof/orch/lease/run-live", "leased", aofSess(happy, happyB, happyState(), withFiles(happyRun, `{"status":"leased"}`)), conform.Fail},
		{"aof/orch/lease/run-live", "not yet written", aofSess(happy, happyB, happyState(), happyRun), conform.NotTested},

		{"aof/orch/completion/task-completed-event", "ok", aofSess(happy, happyB, happyState(ev("task.completed", happyID, me, map[string]any{"outcome": "done"})), happyRun), conform.Pass},
		{"aof/orch/completion/task-completed-event", "not logged", aofSess(happy, happyB, happyState(), happyRun), conform.Fail},

		{"aof/orch/handoff/flow-logged", "ok", aofSess(deleg, delegB, delegState(flow, aof.Review), parent, childRun), conform.Pass},
		{"aof/orch/handoff/flow-logged", "accepted blocks", aofSess(deleg, delegB, delegState(flow, aof.Blocked), parent, childRun), conform.Fail},
		{"aof/orch/handoff/flow-logged", "no delegation.accepted", aofSess(deleg, delegB, delegState(flow[:1], aof.Review), parent, childRun), conform.Fail},
		{"aof/orch/handoff/flow-logged", "no delegation.requested", aofSess(deleg, delegB, delegState(flow[1:], aof.Review), parent, childRun), conform.Fail},

		{"aof/orch/handoff/rejected-blocked", "ok", aofSess(rej, rejB, state(rejEvents, map[string][]aofTaskOpt{rejID: {status(aof.Blocked)}}), rejRun), conform.Pass},
		{"aof/orch/handoff/rejected-blocked", "not blocked", aofSess(rej, rejB, state(rejEvents, map[string][]aofTaskOpt{rejID: {status(aof.InProgress)}}), rejRun), conform.Fail},
		{"aof/orch/handoff/rejected-blocked", "not logged", aofSess(rej, rejB, state(nil, map[string][]aofTaskOpt{rejID: {status(aof.Blocked)}}), rejRun), conform.Fail},

		{"aof/orch/handoff/errors-rejected", "ok", aofSess(errs, errsB, errState(errEvents, handoffFile(errID, "swe-qa")), errRun), conform.Pass},
		{"aof/orch/handoff/errors-rejected", "parent unchecked", aofSess(errs, errsB, errState(errEvents[:2], handoffFile("TASK-2026-11-22-997", "swe-qa")), errRun), conform.Fail},
		{"aof/orch/handoff/errors-rejected", "mismatch not logged", aofSess(errs, errsB, errState(append(errEvents[:3:3], errEvents[4]), handoffFile(errID, "swe-qa")), errRun), conform.Fail},
		{"aof/orch/handoff/errors-rejected", "missing child: no delegation.rejected", aofSess(errs, errsB, errState(append(errEvents[:1:1], errEvents[2:]...), handoffFile(errID, "swe-qa")), errRun), conform.Fail},

		{"aof/orch/handoff/invalid-criteria", "ok", aofSess(errs, errsB, errState(errEvents, handoffFile(errID, "swe-qa")), errRun), conform.Pass},
		{"aof/orch/handoff/invalid-criteria", "refused", aofSess(errs, errsB, errState(errEvents[:4]), errRun), conform.Fail},

		{"aof/orch/handoff/resent-once", "ok", aofSess(errs, errsB, errState(errEvents, handoffFile(errID, "swe-qa")), errRun), conform.Pass},
		{"aof/orch/handoff/resent-once", "delegated twice", aofSess(errs, errsB, errState(append(errEvents, errEvents[4]), handoffFile(errID, "swe-qa")), errRun), conform.Fail},
		{"aof/orch/handoff/resent-once", "dispatched twice", aofSess(errs, errsB, errState(errEvents, handoffFile(errID, "swe-qa")), errRun, aofLaunch(child, "swe-qa", nil), aofLaunch(child, "swe-qa", nil)), conform.Fail},
		{"aof/orch/handoff/resent-once", "never proceeded", aofSess(errs, errsB, errState(errEvents[:4]), errRun), conform.NotJudged},

		{"aof/orch/resume/no-heartbeat-skipped", "ok", aofSess(noHb, noHbB, state(nil, map[string][]aofTaskOpt{noHbID: {status(aof.Review)}, oldID: {status(aof.InProgress)}}), noHbRun), conform.Pass},
		{"aof/orch/resume/no-heartbeat-skipped", "reclaimed", aofSess(noHb, noHbB, state(nil, map[string][]aofTaskOpt{noHbID: {status(aof.Review)}, oldID: {status(aof.Ready), runJSON("x", "expired")}}), noHbRun), conform.Fail},
		{"aof/orch/resume/no-heartbeat-skipped", "ready task not run", aofSess(noHb, noHbB, state(nil, map[string][]aofTaskOpt{noHbID: {status(aof.Ready)}, oldID: {status(aof.InProgress)}}), noHbRun), conform.Fail},
	}
	runCheckCases(t, cases)
}
