package transcriptgen

import (
	"fmt"
	"strings"
	"time"
)

// sessions are the protocols the generator writes, in a stable order. The
// weights are chosen so that messages come roughly 35 % aop2, 25 % orchmsg,
// 20 % aos, 15 % aof, 5 % aop-output.
var sessions = []session{
	{id: "aop2", weight: 14, command: "./bin/executor --stdio", write: (*gen).aop2, mutate: mutateAOP2},
	{id: "aos", weight: 4, command: "./bin/assistant --guardian $AOS_GUARDIAN_URL", write: (*gen).aos,
		mutate: func(m O) O { return m.set("jsonrpc", "1.0") }},
	{id: "aop-output", weight: 20, command: "./bin/search-agent", write: (*gen).aopOutput, text: true},
	{id: "aof", weight: 12, command: "./bin/swe-qa --data-dir $AOF_DATA_DIR", write: (*gen).aof,
		mutate: func(m O) O { return m.set("taskId", "TASK-26-1-7") }},
	{id: "orchmsg", weight: 8, command: "node agent.js", write: (*gen).orchmsg,
		mutate: func(m O) O { return m.del("timestamp") }},
}

// mutateAOP2 breaks an aop2 message: a DONE final signal, an unknown category,
// or no session_id.
func mutateAOP2(m O) O {
	if ts, ok := m.get("task_status").(O); ok {
		return m.set("task_status", clone(ts).set("final_signal", "DONE"))
	}
	if t, ok := m.get("task").(O); ok {
		return m.set("task", clone(t).set("category", "REFACTOR"))
	}
	return m.del("session_id")
}

type aop2Agent struct{ name, provider, model string }

var aop2Agents = []aop2Agent{
	{"Emma", "CODEX", "gpt-5.3-codex"},
	{"Magneto", "CLAUDE", "claude-opus-4-6"},
	{"Forge", "GEMINI", "gemini-2.5-pro"},
}

var aop2Categories = []string{"ANALYSIS", "CODE_GENERATION", "CODE_REFACTORING", "TESTING", "DEBUGGING", "DOCUMENTATION", "REVIEW"}

type aop2Phase struct {
	id          string
	checkpoints []string
}

// aop2 writes one executor session (aop2 §2, §5, §6): the orchestrator's TASK,
// the executor's HEARTBEAT and PROGRESS_UPDATE events at a steady cadence, and its
// RESPONSE.
func (g *gen) aop2() {
	start := g.clock
	day, n := g.dayID(start)
	sessionID := fmt.Sprintf("AOP-SESSION-%s-%03d", day, n)
	taskID := fmt.Sprintf("TASK-%03d", g.between(1, 999))
	agent := aop2Agents[g.r.IntN(len(aop2Agents))]
	root := "C:/workspace/" + g.pick([]string{"project-x", "billing", "web-shop", "infra"})

	var phases []aop2Phase
	names := []string{"ANALYSIS", "IMPLEMENTATION", "VERIFICATION"}
	for i := 0; i < g.between(1, 3); i++ {
		p := aop2Phase{id: "PHASE-" + names[i]}
		for j := 0; j < g.between(1, 3); j++ {
			p.checkpoints = append(p.checkpoints, fmt.Sprintf("CP-%s-%03d", names[i][:3], j+1))
		}
		phases = append(phases, p)
	}

	task := O{
		{"aop_version", "2.0.2-C"},
		{"schema_version", "2.0.2"},
		{"protocol_family", "AOP"},
		{"message_type", "TASK"},
		{"session", O{{"session_id", sessionID}, {"created_at", stampSec(start)}, {"orchestrator", "Cyclops"}, {"origin", "CLI"}}},
		{"target", O{{"agent_name", agent.name}, {"role", "EXECUTOR"}, {"provider", agent.provider}, {"model", agent.model}}},
	}
	body := O{
		{"task_id", taskID},
		{"objective", g.sentence(8, 60)},
		{"category", g.pick(aop2Categories)},
		{"complexity", g.pick([]string{"LOW", "MEDIUM", "HIGH"})},
		{"environment", O{{"workspace_root", root}}},
	}
	full := g.r.IntN(10) < 7
	if full {
		body = append(body[:2], append(O{{"parent_task_id", nil}, {"attempt", 1}}, body[2:]...)...)
		body = append(body, F{"priority", "NORMAL"})
		body = body.set("environment", O{{"workspace_root", root}, {"os", "linux"}, {"shell", "bash"}, {"git_branch", "feature/" + g.pick(words) + "-" + g.hex(4)}})
		var inputs, outputs []any
		for i := 0; i < g.between(0, 4); i++ {
			inputs = append(inputs, O{{"type", "FILE"}, {"path", root + "/" + g.pick(files)}, {"read_only", true}})
		}
		for i := 0; i < g.between(1, 3); i++ {
			f := g.pick(files)
			out := O{{"type", "FILE"}, {"path", root + "/" + f}, {"description", g.sentence(4, 12)},
				{"validation", O{{"command", "make test"}, {"expects", "EXIT_CODE_0"}}}}
			if i == 0 {
				out = append(out, F{"rollback_snapshot", O{{"enabled", true}, {"snapshot_path", root + "/.aop_snapshots/" + strings.ReplaceAll(f, "/", "_") + ".before"}, {"snapshot_strategy", "COPY"}}})
			}
			outputs = append(outputs, out)
		}
		if inputs != nil {
			body = append(body, F{"inputs", inputs})
		}
		body = append(body, F{"expected_outputs", outputs},
			F{"constraints", O{{"max_tokens", 15000}, {"max_cost_usd", 0.5}, {"read_only_mode", false}, {"delegation_allowed", false}, {"network_access", "RESTRICTED"}}},
			F{"budgets", O{{"max_cost_usd", 0.5}, {"max_tokens", 15000}}},
			F{"access", O{{"filesystem", O{{"read_paths", []string{root}}, {"write_paths", []string{root + "/src", root + "/tests"}}}}, {"network", "RESTRICTED"}}})
	}
	task = append(task, F{"task", body})
	if full {
		var ph []any
		for i, p := range phases {
			var cps []any
			for _, cp := range p.checkpoints {
				cps = append(cps, O{{"checkpoint_id", cp}, {"description", g.sentence(4, 14)},
					{"expected_artifacts", []any{O{{"type", "FILE"}, {"path", root + "/" + g.pick(files)}}}},
					{"validation", O{{"command", "make check"}, {"expects", "EXIT_CODE_0"}}},
					{"status", "PENDING"}, {"recovery_strategy", g.pick([]string{"RETRY", "ABORT", "CONTINUE"})}})
			}
			ph = append(ph, O{{"phase_id", p.id}, {"phase_order", i + 1}, {"label", strings.ToLower(p.id[6:])}, {"objective", g.sentence(5, 16)}, {"checkpoints", cps}})
		}
		task = append(task,
			F{"execution_policy", O{{"timeout_seconds", 1800}, {"max_retries", 1}, {"retry_backoff_seconds", []any{30, 120, 300}},
				{"abort_on_first_critical_error", false}, {"auto_terminate_on_timeout", true}, {"on_failure", "REPORT_AND_CONTINUE"},
				{"alternative_models", []any{O{{"provider", "GEMINI"}, {"model", "gemini-2.5-pro"}, {"fallback_trigger", "TIMEOUT"}}}},
				{"heartbeat", O{{"enabled", true}, {"interval_seconds", 120}, {"max_missed_beats", 3}, {"on_heartbeat_failure", "ABORT"}}}}},
			F{"guard_rails", O{{"require_minimal_report", true}, {"require_final_signal", true}, {"auto_terminate_on_timeout", true}, {"timeout_seconds", 1800}}},
			F{"phases", ph},
			F{"orchestration_metadata", O{{"initiator", "ci@example.com"}, {"spec_author", "Cyclops"}, {"tags", []string{"AOP_V2", "BENCH"}}, {"extensions", O{{"x_internal_ticket", fmt.Sprintf("AOP-%d-%03d", start.Year(), n)}}}}})
	}
	g.msg(start, "orchestrator", "stdin", task)

	t := start.Add(g.millis(800, 3000))
	beats := g.between(2, 14)
	pct, lastProgress := 0, time.Time{}
	for i := 0; i < beats; i++ {
		t = t.Add(g.secs(35, 70))
		pct = 100 * (i + 1) / (beats + 2)
		p := phases[i*len(phases)/beats]
		phase, cp := p.id, p.checkpoints[i%len(p.checkpoints)]
		where := O{{"current_phase", phase}, {"current_checkpoint", cp}}
		if !full { // the minimal TASK defines no phases
			where = nil
		}
		if i%2 == 1 {
			lastProgress = t
			progress := append(append(O{{"percentage", pct}}, where...), F{"message", g.sentence(3, 9)}, F{"estimated_time_remaining_seconds", (beats - i) * 50})
			g.msg(t, "agent", "stdout", O{
				{"aop_version", "2.0.2-C"}, {"message_type", "EVENT"}, {"event", "PROGRESS_UPDATE"},
				{"session_id", sessionID}, {"task_id", taskID}, {"timestamp", stampSec(t)}, {"agent", agent.name},
				{"progress", progress},
			})
			continue
		}
		g.msg(t, "agent", "stdout", append(O{
			{"aop_version", "2.0.2-C"}, {"message_type", "EVENT"}, {"event", "HEARTBEAT"},
			{"session_id", sessionID}, {"task_id", taskID}, {"timestamp", stampSec(t)}, {"agent", agent.name},
			{"progress_percentage", pct}}, where...))
	}
	t = t.Add(g.secs(10, 40))
	if lastProgress.IsZero() {
		lastProgress = t
	}
	var artifacts []any
	for i := 0; i < g.between(1, 4); i++ {
		artifacts = append(artifacts, O{{"type", "FILE"}, {"path", root + "/" + g.pick(files)}, {"hash", "sha256:" + g.hex(64)},
			{"status", g.pick([]string{"CREATED", "UPDATED"})}, {"size_bytes", g.between(200, 40000)}})
	}
	results := []any{}
	for _, p := range phases {
		if !full {
			break
		}
		for _, c := range p.checkpoints {
			results = append(results, O{{"checkpoint_id", c}, {"status", "PASS"}, {"validation_output", "Exit code 0."},
				{"evidence", g.sentences(g.between(1, 2), 3, 8)}, {"notes", g.sentence(3, 10)}})
		}
	}
	began := start.Add(2 * time.Second)
	tokensIn := g.between(2000, 11000) // with output, within the TASK's max_tokens 15000
	g.msg(t, "agent", "stdout", O{
		{"aop_version", "2.0.2-C"}, {"schema_version", "2.0.2"}, {"protocol_family", "AOP"}, {"message_type", "RESPONSE"},
		{"session_id", sessionID}, {"task_id", taskID},
		{"agent", O{{"name", agent.name}, {"provider", agent.provider}, {"model", agent.model}}},
		{"task_status", O{{"state", "COMPLETED"}, {"final_signal", "SUCCESS"}, {"message", "Task completed successfully."}}},
		{"execution_summary", O{{"summary", g.sentence(8, 30)}, {"actions", g.sentences(g.between(3, 10), 4, 12)},
			{"output_artifacts", artifacts}, {"warnings", []any{}}, {"errors", []any{}},
			{"extensions", O{{"x_log_ref", fmt.Sprintf("logs/%s/%s.log", sessionID, taskID)}}}}},
		{"checkpoint_results", results},
		{"error_details", nil},
		{"timing", O{{"started_at", stampSec(began)}, {"completed_at", stampSec(t)}, {"duration_seconds", int(t.Sub(began) / time.Second)}, {"retries_attempted", 0}}},
		{"cost_tracking", O{{"estimated_cost_usd", float64(tokensIn/1000) / 100}, {"actual_cost_usd", float64(tokensIn/900) / 100},
			{"tokens_input", tokensIn}, {"tokens_output", tokensIn / 4}, {"model_pricing_tier", "standard"}}},
		{"progress_log", O{{"last_progress_event_at", stampSec(lastProgress)}, {"progress_percentage", pct}}},
		{"extensions", O{{"x_debug_id", "resp-" + g.uuid()}}},
	})
}

// orchmsg writes one agent↔orchestrator stdio session: a task assignment, the
// agent's requests each answered within seconds (correlationId = request id), its
// progress and log events.
func (g *gen) orchmsg() {
	t := g.clock
	g.taskNo++
	taskID := fmt.Sprintf("task-%d", g.taskNo)
	g.msg(t, "orchestrator", "stdin", O{{"type", "notify:task-assigned"}, {"id", "ntf-" + g.uuid()}, {"timestamp", stampMilli(t)},
		{"payload", O{{"taskId", taskID}, {"message", fmt.Sprintf("Task %s assigned. Use TaskGet to view details.", taskID)}}}})
	steps := g.between(3, 14)
	progress := 0.0
	for i := 0; i < steps; i++ {
		t = t.Add(g.millis(400, 4000))
		switch k := g.r.IntN(10); {
		case k < 4:
			reqID := "req-" + g.uuid()
			typ, payload := g.orchRequest(taskID)
			g.msg(t, "agent", "stdout", O{{"type", typ}, {"id", reqID}, {"timestamp", stampMilli(t)}, {"payload", payload}})
			t = t.Add(g.millis(5, 900))
			g.msg(t, "orchestrator", "stdin", O{{"type", "response:success"}, {"id", "res-" + g.uuid()}, {"correlationId", reqID},
				{"timestamp", stampMilli(t)}, {"payload", g.orchAnswer(typ, taskID)}})
		case k < 7:
			progress += (1 - progress) / 3
			g.msg(t, "agent", "stdout", O{{"type", "event:progress"}, {"id", "evt-" + g.uuid()}, {"timestamp", stampMilli(t)},
				{"payload", O{{"taskId", taskID}, {"progress", float64(int(progress*100)) / 100}, {"message", g.sentence(3, 8)}}}})
		default:
			g.msg(t, "agent", "stdout", O{{"type", "event:log"}, {"id", "evt-" + g.uuid()}, {"timestamp", stampMilli(t)},
				{"payload", O{{"level", g.pick([]string{"info", "info", "warn"})}, {"message", g.sentence(4, 14)},
					{"context", O{{"table", g.pick(words)}, {"rows", g.between(1, 5000)}}}}}})
		}
	}
}

func (g *gen) orchRequest(taskID string) (string, O) {
	switch g.r.IntN(4) {
	case 0:
		return "request:query-agents", O{{"role", g.pick([]string{"worker", "planner", "reviewer"})}, {"status", "idle"}}
	case 1:
		return "request:query-tasks", O{{"status", g.pick([]string{"queued", "running", "completed"})}, {"requiredRole", "worker"}, {"limit", 10}}
	case 2:
		return "request:get-task", O{{"taskId", taskID}}
	}
	return "request:submit-task", O{{"type", "implementation"}, {"name", g.sentence(3, 7)}, {"description", g.sentence(8, 30)},
		{"payload", O{{"file", g.pick(files)}}}, {"requiredRole", "worker"}, {"requiredCapabilities", []string{"typescript"}},
		{"dependencies", []string{taskID}}, {"priority", g.between(1, 5)}}
}

func (g *gen) orchAnswer(typ, taskID string) O {
	switch typ {
	case "request:query-agents":
		var agents []any
		for i := 0; i < g.between(1, 4); i++ {
			agents = append(agents, O{{"id", fmt.Sprintf("agent-%d", i+1)}, {"role", "worker"}, {"status", g.pick([]string{"idle", "busy"})},
				{"capabilities", []string{"typescript"}}, {"currentTask", nil}})
		}
		return O{{"agents", agents}}
	case "request:query-tasks":
		var tasks []any
		for i := 0; i < g.between(0, 3); i++ {
			tasks = append(tasks, O{{"id", fmt.Sprintf("task-%d", g.taskNo+i+1)}, {"name", g.sentence(2, 6)}, {"status", "queued"},
				{"requiredRole", "worker"}, {"dependencies", []any{}}})
		}
		return O{{"tasks", tasks}}
	case "request:get-task":
		return O{{"task", O{{"id", taskID}, {"name", g.sentence(2, 6)}, {"status", "running"}}}}
	}
	g.taskNo++
	return O{{"task", O{{"id", fmt.Sprintf("task-%d", g.taskNo)}, {"status", "queued"}}}}
}

// aos writes one agent session against a guardian (AOS 0.1.0 §4): a ping, then
// steps (user message, tool call request and result with one executionId, an
// optional knowledge retrieval or MCP call, the agent's answer), each answered by
// the guardian with the request's id.
func (g *gen) aos() {
	t := g.clock
	agentID := "agent-" + g.hex(6)
	agent := O{
		{"id", agentID}, {"name", "Personal assistant"},
		{"instructions", "You manage the user's email box. " + strings.Join(g.sentences(g.between(1, 6), 6, 18), " ")},
		{"version", "1.4.2"},
		{"provider", O{{"name", "Acme AI"}, {"url", "https://acme.example.com/"}}},
		{"model", O{{"name", "GPT-5"}, {"id", "gpt-5"}, {"provider", O{{"name", "OpenAI"}}}, {"maxTokens", 4096}}},
		{"tools", []any{
			O{{"name", "send_email"}, {"id", "send_email"}, {"description", "Send an email."}, {"type", "function_call"},
				{"arguments", []any{O{{"name", "to"}, {"type", "string"}, {"required", true}}, O{{"name", "body"}, {"type", "string"}, {"required", true}}}},
				{"outputs", nil}},
		}},
	}
	sessionID := "sess-" + g.uuid()
	user := O{{"id", "user-" + g.hex(6)}, {"name", "Dana"}, {"organization", O{{"id", "org-acme"}}}}
	turn, step := 0, 0
	ctx := func(at time.Time) O {
		step++
		return O{{"agent", agent}, {"session", O{{"id", sessionID}}}, {"turnId", fmt.Sprintf("turn-%d", turn)},
			{"stepId", fmt.Sprintf("step-%d", step)}, {"timestamp", stampMilli(at)}, {"user", user}}
	}
	call := func(method string, params O, answer O) {
		g.rpcID++
		id := g.rpcID
		g.msg(t, "agent", "http", O{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}})
		t = t.Add(g.millis(20, 400))
		g.msg(t, "orchestrator", "http", O{{"jsonrpc", "2.0"}, {"id", id}, {"result", answer}})
		t = t.Add(g.millis(100, 3000))
	}
	allow := func() O { return O{{"decision", "allow"}, {"message", "Allowed by policy."}} }

	call("ping", O{{"timestamp", stampMilli(t)}, {"timeout", 5000}}, O{{"status", "connected"}, {"version", "0.1.0"}, {"timestamp", stampMilli(t.Add(30 * time.Millisecond))}})
	for turns := g.between(1, 3); turn < turns; {
		turn++
		step = 0
		text := func(s string) []any { return []any{O{{"kind", "text"}, {"text", s}}} }
		call("steps/message", O{{"context", ctx(t)}, {"message", O{{"id", fmt.Sprintf("m-%d-1", turn)}, {"role", "user"}, {"content", text(g.sentence(6, 30))}}}, {"citation", []any{}}}, allow())
		if g.r.IntN(2) == 0 {
			call("steps/knowledgeRetrieval", O{{"context", ctx(t)}, {"knowledgeStep", O{{"query", g.sentence(3, 8)}, {"keywords", []string{g.pick(words), g.pick(words)}},
				{"results", []any{O{{"id", "doc-" + g.hex(4)}, {"content", g.sentence(10, 40)}, {"mimeType", "text/plain"}}}}}}}, allow())
		}
		exec := "exec-" + g.hex(8)
		call("steps/toolCallRequest", O{{"context", ctx(t)}, {"toolCallRequest", O{{"executionId", exec}, {"toolId", "send_email"},
			{"inputs", []any{O{{"name", "to"}, {"value", "hr@company.example"}}, O{{"name", "body"}, {"value", g.sentence(5, 25)}}}}}},
			{"reasoning", g.sentence(5, 15)}}, allow())
		call("steps/toolCallResult", O{{"context", ctx(t)}, {"executionId", exec}, {"result", O{{"outputs", text("sent")}, {"isError", false}}}}, allow())
		if g.r.IntN(4) == 0 {
			g.rpcID++
			call("protocols/MCP", O{{"message", O{{"jsonrpc", "2.0"}, {"id", g.rpcID}, {"method", "tools/call"},
				{"params", O{{"name", "get_weather"}, {"arguments", O{{"city", "Barcelona"}}}}}}}}, allow())
		}
		call("steps/message", O{{"context", ctx(t)}, {"message", O{{"id", fmt.Sprintf("m-%d-2", turn)}, {"role", "agent"}, {"content", text(g.sentence(8, 40))}}},
			{"citation", []any{O{{"kind", "site"}, {"url", "https://docs.example.com/" + g.pick(words)}}}}}, allow())
	}
}

// aof writes one delegation (aof-1 Handoff, Status Update and Completion
// protocols): a handoff.request from the parent task's agent, the child agent's
// handoff.accepted, its status.update messages and its completion.report. One
// envelope in four is sent with the "AOF/1 " prefix.
func (g *gen) aof() {
	t := g.clock
	day, n := g.dayID(t)
	parent := fmt.Sprintf("TASK-%s-%03d", day, n)
	_, m := g.dayID(t)
	child := fmt.Sprintf("TASK-%s-%03d", day, m)
	from, to := "swe-backend", g.pick([]string{"swe-qa", "swe-frontend", "swe-docs"})
	send := func(typ, sender, receiver string, payload O) {
		env := O{{"protocol", "aof"}, {"version", 1}, {"taskId", child}, {"fromAgent", sender}, {"toAgent", receiver},
			{"sentAt", stampMilli(t)}, {"type", typ}, {"payload", payload}}
		if g.r.IntN(4) == 0 {
			g.count()
			if g.due() {
				env, _ = g.mutate(env)
			}
			g.last = t
			g.text(t, "agent", "stdout", "AOF/1 "+string(appendJSON(nil, env)))
		} else {
			g.msg(t, "agent", "stdout", env)
		}
		t = t.Add(g.secs(20, 400))
	}
	deliverables := []string{}
	for i := 0; i < g.between(1, 5); i++ {
		deliverables = append(deliverables, g.pick(files))
	}
	send("handoff.request", from, to, O{{"taskId", child}, {"parentTaskId", parent}, {"fromAgent", from}, {"toAgent", to},
		{"acceptanceCriteria", g.sentences(g.between(1, 4), 3, 8)}, {"expectedOutputs", []string{"tests/report.md"}},
		{"contextRefs", []string{"tasks/in-progress/" + parent + ".md", g.pick(files)}}, {"constraints", []string{"No new dependencies"}},
		{"dueBy", stampMilli(t.Add(20 * time.Hour))}})
	send("handoff.accepted", to, "dispatcher", O{{"taskId", child}, {"accepted", true}})
	for i := 0; i < g.between(1, 4); i++ {
		send("status.update", to, "dispatcher", O{{"taskId", child}, {"agentId", to}, {"progress", g.sentence(3, 12)}, {"notes", g.sentence(3, 10)}})
	}
	total := g.between(10, 400)
	send("completion.report", to, "dispatcher", O{{"outcome", "done"}, {"summaryRef", "outputs/summary.md"}, {"deliverables", deliverables},
		{"tests", O{{"total", total}, {"passed", total}, {"failed", 0}}}, {"blockers", []any{}}, {"notes", g.sentence(5, 20)}})
}

// aopOutput writes one sub-agent's final report (aop-output 1.0.0 §AOP Format
// Specification) as a transcript text record.
func (g *gen) aopOutput() {
	t := g.clock.Add(g.millis(100, 2000))
	end := t.Add(g.secs(3, 300))
	var b strings.Builder
	fmt.Fprintf(&b, "[AOP:START] %s\n", stampSec(t))
	fmt.Fprintf(&b, "[AOP:TASK] %s\n\n", g.pick([]string{"Search for auth implementations", "Analyze API performance bottlenecks", "Run unit test suite", "Summarise open review comments"}))
	b.WriteString("[AOP:SUMMARY]\n")
	for i, n := 0, g.between(1, 4); i < n; i++ {
		fmt.Fprintf(&b, "- %s\n", g.sentence(3, 7))
	}
	b.WriteString("\n[AOP:DETAILS_FILE] none\n")
	fmt.Fprintf(&b, "[AOP:METRICS] files_scanned: %d, matches: %d, duration: %ds\n", g.between(10, 900), g.between(0, 40), int(end.Sub(t)/time.Second))
	b.WriteString("[AOP:STATUS] success\n")
	fmt.Fprintf(&b, "[AOP:END] %s", stampSec(end))
	report := b.String()
	g.count()
	if g.due() {
		report = strings.Replace(report, "[AOP:STATUS] success", "[AOP:STATUS] done", 1)
	}
	g.text(end, "agent", "stdout", report)
}
