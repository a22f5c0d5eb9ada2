package checks

import (
	"strings"

	"github.com/aopkit/aopkit/conform"
)

// examples are the bad and good example of each check: what an agent does that
// fails it, and the same behaviour fixed.
var examples = map[string][2]string{
	// aop2
	"aop2/1.1/version-header":       {`{"aop_version":"1.0","message_type":"RESPONSE",...}`, `{"aop_version":"2.0.2-C","protocol_family":"AOP","message_type":"RESPONSE",...}`},
	"aop2/1.2/message-types":        {`{"aop_version":"2.0.2-C","message_type":"STATUS","status":"working"}`, `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"PROGRESS_UPDATE",...}`},
	"aop2/1.2/response-ids":         {`TASK task_id "TASK-001" answered with "task_id":"TASK-001-OTHER"`, `"session_id":"AOP-SESSION-…-001","task_id":"TASK-001" copied from the TASK`},
	"aop2/10/no-delegation":         {`delegation_allowed:false, yet the agent prints {"message_type":"TASK","task":{"parent_task_id":"TASK-001",...}}`, `the agent does the work itself and prints no TASK`},
	"aop2/11/finish-within-timeout": {`guard_rails.timeout_seconds 2, RESPONSE after 60 s (terminated with E_TIMEOUT)`, `RESPONSE well within the effective timeout`},
	"aop2/12/within-budget":         {`budgets.max_cost_usd 0.5, "actual_cost_usd":1.0`, `"actual_cost_usd":0.18 with a 0.5 budget`},
	"aop2/3/extension-keys":         {`"extensions":{"debug_id":"resp-1"}`, `"extensions":{"x_debug_id":"resp-1"}`},
	"aop2/4/response-size":          {`a RESPONSE of 600 KB with the full log inlined`, `a RESPONSE under 500 KB; big outputs go to files named in output_artifacts`},
	"aop2/5/artifacts-honest":       {`output_artifacts lists src/x.py with a hash, but the file is not in the workspace`, `output_artifacts lists files that exist, with their sha256`},
	"aop2/5/final-response":         {`exit 0 without a RESPONSE, or two RESPONSE lines`, `exactly one RESPONSE with task_status, agent, session_id and task_id, then exit 0`},
	"aop2/5/final-signal":           {`"task_status":{"state":"IN_PROGRESS","final_signal":"SUCCESS"}`, `"task_status":{"state":"COMPLETED","final_signal":"SUCCESS","message":"done"}`},
	"aop2/5/minimal-report":         {`"execution_summary":{"summary":"","actions":[]}`, `"execution_summary":{"summary":"Refactored module X.","actions":["Read src/x.py.","Wrote src/x.py."]}`},
	"aop2/6.1/heartbeat-interval":   {`interval_seconds 1, heartbeats every 1.5 s`, `a HEARTBEAT event every second until the RESPONSE`},
	"aop2/6.1/heartbeat-liveness":   {`two heartbeats, then silence while working (E_HEARTBEAT_FAILURE)`, `heartbeats keep coming while the agent works`},
	"aop2/6.2/progress-rate":        {`a PROGRESS_UPDATE every second`, `at most one PROGRESS_UPDATE per 30 s`},
	"aop2/6/event-format":           {`{"message_type":"EVENT","event":"HEARTBEAT","timestamp":"22/11/2026 10:00",...}`, `{"aop_version":"2.0.2-C","message_type":"EVENT","event":"HEARTBEAT","session_id":"AOP-SESSION-2026-11-22-001","task_id":"TASK-001","timestamp":"2026-11-22T10:00:00Z"}`},
	"aop2/7/snapshots-untouched":    {`the agent deletes .aop_snapshots/out.txt.before`, `the agent writes out.txt and leaves the snapshot alone`},
	"aop2/9/fallback-model":         {`dispatched as gemini-2.5-pro, reports "agent":{"model":"gpt-5.3-codex"}`, `"agent":{"provider":"GEMINI","model":"gemini-2.5-pro"} as in target`},
	"aop2/bind/stop-on-eof":         {`stdin closes; the agent keeps working for a minute`, `stdin closes; the agent exits at once`},
	"aop2/recovery/clean-restart":   {`re-dispatched with task.attempt 2, the agent crashes on the previous attempt's files`, `re-dispatched, the agent completes the task with one RESPONSE and exits 0`},
	"aop2/recovery/honest-attempt":  {`task.attempt 2 answered with "timing":{"retries_attempted":0}`, `"timing":{"retries_attempted":1} for task.attempt 2`},
	// orchmsg
	"orchmsg/auth/own-tasks":                {`{"type":"request:get-task","payload":{"taskId":"task-other"}}`, `{"type":"request:get-task","payload":{"taskId":"task-123"}} (the assigned task)`},
	"orchmsg/cancel/stops-task":             {`event:progress for task-123 keeps coming after notify:task-cancelled`, `after notify:task-cancelled the agent stops and reports nothing more for task-123`},
	"orchmsg/completion/reported":           {`the agent stops at progress 0.5 and idles`, `{"type":"event:progress","id":"evt-1b4e28ba-2fa1-11d2-883f-0016d3cca427","timestamp":"2026-11-22T10:00:00Z","payload":{"taskId":"task-123","progress":1,"message":"done"}}`},
	"orchmsg/correlation/responses-awaited": {`the agent blocks on an unanswered request and ignores notify:shutdown`, `the agent keeps reading stdin while it waits and exits on notify:shutdown`},
	"orchmsg/correlation/unique-ids":        {`two requests with "id":"req-1"`, `a fresh UUID per message`},
	"orchmsg/delegation/depth":              {`four request:submit-task, each depending on the previous one`, `one follow-up task depending on the assigned task`},
	"orchmsg/format/base-fields":            {`{"type":"event:log","timestamp":"22/11/2026 10:00","payload":{...}} (no id)`, `{"type":"event:log","id":"evt-1b4e…","timestamp":"2026-11-22T10:00:00.000Z","payload":{...}}`},
	"orchmsg/format/uuid-ids":               {`{"type":"event:log","id":"evt-1",...} or "id":"request-1796596858957" (a counter, a clock)`, `{"type":"event:log","id":"evt-1b4e28ba-2fa1-11d2-883f-0016d3cca427",...} (randomUUID(), bare or with a short prefix)`},
	"orchmsg/format/json":                   {`{"status":"busy"} or {"type":"event:progress",…,}`, `complete JSON objects with a type; free text on stderr`},
	"orchmsg/format/message-type":           {`{"type":"request:delete-task",...} or a response:success from the agent`, `only request:* and event:* types of the protocol`},
	"orchmsg/limit/message-size":            {`an event:log of 1.5 MiB`, `a short event:log; large data goes to files`},
	"orchmsg/rate/limit":                    {`150 event:log lines at once`, `a handful of messages per second`},
	"orchmsg/requests/payload":              {`{"type":"request:get-task","id":"req-3f2b9c1e-7d4a-4e8b-9c6d-5a1b2c3d4e5f","timestamp":"2026-11-22T10:00:00Z","payload":{}}`, `{"type":"request:get-task","id":"req-3f2b9c1e-7d4a-4e8b-9c6d-5a1b2c3d4e5f","timestamp":"2026-11-22T10:00:00Z","payload":{"taskId":"task-123"}}`},
	"orchmsg/shutdown/exit-within-grace":    {`notify:shutdown gracePeriod 1000 ignored; SIGKILL needed`, `notify:shutdown received, the agent flushes and exits 0 at once`},
	// aos
	"aos/2.2/content-type":           {`POST with Content-Type: text/plain`, `POST with Content-Type: application/json`},
	"aos/3.12.1/jsonrpc-request":     {`{"jsonrpc":"1.0","id":1,"method":"steps/toolCall",...}`, `{"jsonrpc":"2.0","id":7,"method":"steps/toolCallRequest","params":{...}}`},
	"aos/3.8/step-context":           {`"context":{"timestamp":"22/11/2026 10:00",...}`, `"context":{"agent":{...},"session":{"id":"s-1"},"turnId":"t-1","stepId":"step-3","timestamp":"2026-11-22T10:00:00Z"}`},
	"aos/4.5/message-params":         {`steps/message with "citations":[] and no citation`, `steps/message with "message":{"id":"m-1","role":"user","content":[{"kind":"text","text":"…"}]},"citation":[]`},
	"aos/4.6/request-before-execute": {`the last tool runs without a steps/toolCallRequest`, `steps/toolCallRequest, decision allow, then the tool runs`},
	"aos/4.6/result-after-execute":   {`steps/toolCallResult before its steps/toolCallRequest, or none after a run`, `steps/toolCallResult with the executionId after the tool ran`},
	"aos/4.6/unique-execution-ids":   {`every tool call uses "executionId":"exec-1"`, `exec-1, exec-2, exec-3`},
	"aos/5.1/deny-enforced":          {`decision deny, the agent runs delete_file anyway`, `decision deny, no execution and no toolCallResult`},
	"aos/5.1/modify-enforced":        {`decision modify (command "ls build"), the agent runs "rm -rf build"`, `the agent runs the modifiedRequest's inputs: "ls build"`},
	"aos/5.2/fail-closed":            {`the guardian answers -32603, the agent runs deploy anyway`, `no decision, no execution`},
	"aos/bind/all-tools-requested":   {`the agent skips the second tool of the script silently`, `a steps/toolCallRequest for every tool of the script, in order`},
	// aop-output
	"aop-output/context/no-dumps":     {`200 lines of file content between [AOP:TASK] and [AOP:SUMMARY]`, `the full content goes to the details file; the report keeps the summary`},
	"aop-output/details/fields":       {`{"results":{...}} only`, `{"aop_version":"1.0.0","agent_id":"search-1","task":"…","timestamp":"…","results":{...}}`},
	"aop-output/details/file":         {`[AOP:DETAILS_FILE] ../outside.json, or a file never written`, `[AOP:DETAILS_FILE] outputs/analysis-details.json, written before exit`},
	"aop-output/format/markers":       {`[AOP:STATUS] before [AOP:SUMMARY], or no [AOP:START]`, `START, TASK, SUMMARY, DETAILS_FILE, (METRICS), STATUS, END`},
	"aop-output/format/single-report": {`"Loading workspace index..." printed before [AOP:START]`, `only the report on stdout; logs on stderr`},
	"aop-output/format/status":        {`[AOP:STATUS] done`, `[AOP:STATUS] success`},
	"aop-output/format/summary-limit": {`a build summary of 800 characters, or 7 bullets`, `3 bullets within 200 characters for a build`},
	"aop-output/format/task-length":   {`[AOP:TASK] Search the whole repository for every authentication and session handling implementation`, `[AOP:TASK] Search the repository for auth implementat...`},
	"aop-output/format/timestamps":    {`[AOP:START] yesterday`, `[AOP:START] 2026-11-22T10:00:00Z … [AOP:END] 2026-11-22T10:00:02Z`},
	// aof
	"aof/completion/payload":           {`{"protocol":"aof","version":1,"type":"completion.report","taskId":"TASK-2026-02-09-057","fromAgent":"swe-backend","toAgent":"dispatcher","sentAt":"2026-02-09T21:10:00.000Z","payload":{"outcome":"done","summaryRef":"outputs/summary.md","tests":{"total":3,"passed":3,"failed":1},"notes":"All tests pass."}}`, `{"protocol":"aof","version":1,"type":"completion.report","taskId":"TASK-2026-02-09-057","fromAgent":"swe-backend","toAgent":"dispatcher","sentAt":"2026-02-09T21:10:00.000Z","payload":{"outcome":"done","summaryRef":"outputs/summary.md","tests":{"total":3,"passed":3,"failed":0},"notes":"All tests pass."}}`},
	"aof/completion/reported":          {`exit 0 without completion.report, or the report sent twice`, `exactly one completion.report, then exit 0`},
	"aof/completion/summary-exists":    {`"summaryRef":"outputs/summary.md" never written`, `outputs/summary.md written in the task directory before the report`},
	"aof/envelope/fields":              {`{"protocol":"aof","version":2,"sentAt":"22/11/2026 10:00:00",...}`, `{"protocol":"aof","version":1,"type":"status.update","taskId":"TASK-2026-11-22-001","fromAgent":"…","toAgent":"dispatcher","sentAt":"2026-11-22T10:00:00.000Z","payload":{...}}`},
	"aof/envelope/json":                {`AOF/1 {"protocol":"aof","version":1,"type":"status.update",`, `AOF/1 {"protocol":"aof",...,"payload":{...}}`},
	"aof/envelope/task-and-sender":     {`"fromAgent":"impostor-agent", or payload.taskId naming another task`, `"fromAgent":"agent-under-test" and payload.taskId equal to the envelope taskId`},
	"aof/handoff/acknowledged":         {`a delegated child works without answering its inputs/handoff.json`, `{"type":"handoff.accepted","payload":{"taskId":"…","accepted":true}} first`},
	"aof/handoff/no-nested-delegation": {`delegationDepth 1, the agent sends handoff.request`, `delegationDepth 1, the agent does the work itself`},
	"aof/handoff/request-valid":        {`handoff.request without dueBy, or with a parentTaskId that is not the agent's task`, `"payload":{"taskId":"<child>","parentTaskId":"<own task>","fromAgent":"…","toAgent":"swe-qa","dueBy":"2026-12-01T12:00:00.000Z"}`},
	"aof/heartbeat/fresh":              {`run_heartbeat.json rewritten every 1.2 × TTL, or not at all`, `run_heartbeat.json rewritten every TTL/3 with expiresAt = now + TTL`},
	"aof/resume/clean-start":           {`re-dispatched after a reclaim, the agent reports the dead run's work and never completes`, `the agent does this run's work and sends its own completion.report`},
	"aof/run/within-deadline":          {`the agent heartbeats forever and never completes`, `completion.report and exit within the deadline`},
	"aof/status/valid-transition":      {`status.update "status":"done" while in-progress`, `status.update "status":"blocked" with blockers, or completion.report outcome done`},
}

// generic examples, by the last part of a shared check's ID.
var genericExamples = map[string][2]string{
	"lint/messages-valid":       {`a message aoplint rejects (schema, timestamps, sequence)`, `messages aoplint passes`},
	"bind/exit-zero":            {`exit 2 after the work, or still running at the deadline`, `exit 0 when done`},
	"bind/stop-on-sigterm":      {`trap '' TERM; the agent needs SIGKILL`, `on SIGTERM the agent exits within the grace period`},
	"bind/stdout-protocol-only": {`"compiling module 3 of 5..." on stdout`, `protocol messages on stdout, logs on stderr`},
}

func withExample(c *conform.Check) {
	if ex, ok := examples[c.ID]; ok {
		c.Bad, c.Good = ex[0], ex[1]
		return
	}
	if strings.HasSuffix(c.ID, "/bind/writes-in-scratch") {
		c.Bad, c.Good = `echo log >> /tmp/agent.log; cp model.bin ../cache/ (outside AOPKIT_SCRATCH)`, `files in the current directory, "$TMPDIR" and "$HOME" (all inside AOPKIT_SCRATCH)`
		return
	}
	for suffix, ex := range genericExamples {
		if strings.HasSuffix(c.ID, "/"+suffix) {
			c.Bad, c.Good = ex[0], ex[1]
			return
		}
	}
}
