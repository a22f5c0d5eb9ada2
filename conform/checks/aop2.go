package checks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// numOrNil is a number as lint/spec/aop2 takes it (nil: not set).
func numOrNil(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}

var aop2C = common{protocol: "aop2", bindings: "bindings §aop2"}

func aop2Check(id, family string, tier conform.Tier, level conform.Level, spec, req string, lint []string, run func(*conform.Session) conform.Outcome) *conform.Check {
	return &conform.Check{ID: "aop2/" + id, Protocol: "aop2", Family: family, Tier: tier, Level: level, Spec: spec, Requirement: req, Lint: lint, Run: run}
}

// aop2Responses returns the RESPONSE messages of attempt n.
func aop2Responses(s *conform.Session, n int) []*conform.Record { return s.ByKey(n, "RESPONSE") }

// aop2Final returns the single RESPONSE of the last attempt, or a failing outcome.
func aop2Final(s *conform.Session) (*conform.Record, any, *conform.Outcome) {
	a := s.Last()
	if a == nil {
		o := conform.NotTestedf("the agent was never started")
		return nil, nil, &o
	}
	rs := aop2Responses(s, a.N)
	if len(rs) == 0 {
		o := aop2NoResponse(s, a)
		return nil, nil, &o
	}
	return rs[len(rs)-1], decode(rs[len(rs)-1].Msg), nil
}

// aop2NoResponse is the outcome of a check that reads the RESPONSE of attempt a
// when there is none: the missing RESPONSE is the root cause, reported by
// aop2/5/final-response.
func aop2NoResponse(s *conform.Session, a *conform.Attempt) conform.Outcome {
	return conform.NotJudgedf("aop2/5/final-response", "attempt %d sent no RESPONSE; %s", a.N, describeAttempt(s, a))
}

func describeAttempt(s *conform.Session, a *conform.Attempt) string {
	msgs := s.AgentMsgs(a.N)
	keys := map[string]int{}
	for _, m := range msgs {
		keys[orDash(m.Key)]++
	}
	var ks []string
	for k, n := range keys {
		ks = append(ks, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(ks)
	text := len(s.AgentLines(a.N, "stdout")) - len(msgs)
	return fmt.Sprintf("messages: [%s], other stdout lines: %d, %s", strings.Join(ks, " "), text, describeExit(a))
}

func orDash(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// aop2Task decodes the TASK of attempt n.
func aop2Task(s *conform.Session, n int) any {
	a := s.Attempt(n)
	if a == nil {
		return nil
	}
	return decode(a.Input)
}

func boolAt(v any, keys ...string) bool {
	b, _ := field(v, keys...).(bool)
	return b
}

var aop2NonTerminal = map[string]bool{"IN_PROGRESS": true, "PENDING": true, "RUNNING": true, "QUEUED": true, "STARTED": true, "": true}

var aop2Checks = []*conform.Check{
	aop2C.lintClean("aop2 §1–§12"),
	aop2C.exitZero("The agent writes exactly one final RESPONSE as JSON lines on stdout, then exits 0."),
	aop2C.stopOnTerm("timeouts"),
	aop2C.stdoutOnly(conform.Full, conform.MUST, "aop2 §1.3; bindings §aop2",
		"The agent writes EVENT and RESPONSE JSON lines on stdout; anything else is not the protocol and belongs on stderr.",
		func(r *conform.Record) bool { return r.Msg != nil && r.Key != "" }),

	aop2Check("5/final-response", "happy-path", conform.Core, conform.MUST, "aop2 §1.2, §5; bindings §aop2",
		"RESPONSE – MUST contain task_status, agent, session_id, task_id; the agent writes exactly one final RESPONSE.",
		[]string{"AOP2-ENVELOPE-005", "AOP2-SEQ-004", "AOP2-SEQ-009"},
		func(s *conform.Session) conform.Outcome {
			a := s.Last()
			if a == nil {
				return conform.NotTestedf("the agent was never started")
			}
			rs := aop2Responses(s, a.N)
			if len(rs) != 1 {
				o := conform.Mismatch(fmt.Sprintf("the agent sent %d RESPONSE messages", len(rs)), "exactly 1 RESPONSE", describeAttempt(s, a))
				o.Seq = seqs(rs)
				return o
			}
			m := decode(rs[0].Msg)
			var missing []string
			for _, k := range []string{"task_status", "agent", "session_id", "task_id"} {
				if field(m, k) == nil {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				o := conform.Mismatch("the RESPONSE lacks required fields", "task_status, agent, session_id, task_id", "missing: "+strings.Join(missing, ", "))
				o.Seq = []int{rs[0].Seq}
				return o
			}
			return conform.Outcome{Verdict: conform.Pass, Message: "one complete RESPONSE", Seq: []int{rs[0].Seq}}
		}),

	aop2Check("1.2/response-ids", "happy-path", conform.Core, conform.MUST, "aop2 §1.2, §5",
		"The RESPONSE carries the session_id and task_id of the TASK it answers.",
		[]string{"AOP2-SEQ-001"},
		func(s *conform.Session) conform.Outcome {
			r, m, bad := aop2Final(s)
			if bad != nil {
				return *bad
			}
			task := aop2Task(s, s.Last().N)
			want := map[string]string{"session_id": str(task, "session", "session_id"), "task_id": str(task, "task", "task_id")}
			got := map[string]string{"session_id": str(m, "session_id"), "task_id": str(m, "task_id")}
			if want != nil && (want["session_id"] != got["session_id"] || want["task_id"] != got["task_id"]) {
				o := conform.Mismatch("the RESPONSE answers another session or task", want, got)
				o.Seq = []int{r.Seq}
				return o
			}
			return conform.Passf("session_id and task_id match the TASK")
		}),

	aop2Check("1.1/version-header", "happy-path", conform.Core, conform.MUST, "aop2 §1.1",
		"aop_version starts with \"2.\"; protocol_family – MUST be \"AOP\".",
		[]string{"AOP2-VERSION-", "AOP2-ENVELOPE-002"},
		func(s *conform.Session) conform.Outcome {
			msgs := s.AgentMsgs(0)
			if len(msgs) == 0 {
				return conform.Failf("the agent sent no message")
			}
			for _, r := range msgs {
				m := decode(r.Msg)
				if v := str(m, "aop_version"); !strings.HasPrefix(v, "2.") {
					o := conform.Mismatch(fmt.Sprintf("record %d has aop_version %q", r.Seq, v), "aop_version \"2.x\"", v)
					o.Seq = []int{r.Seq}
					return o
				}
				if pf, ok := field(m, "protocol_family").(string); ok && pf != "AOP" {
					o := conform.Mismatch(fmt.Sprintf("record %d has protocol_family %q", r.Seq, pf), "AOP", pf)
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("%d messages with a v2 header", len(msgs))
		}),

	aop2Check("1.2/message-types", "happy-path", conform.Core, conform.MUST, "aop2 §1.2",
		"message_type is \"TASK\" | \"RESPONSE\" | \"EVENT\".",
		[]string{"AOP2-ENVELOPE-001", "AOP2-ENVELOPE-006"},
		func(s *conform.Session) conform.Outcome {
			for _, r := range s.AgentMsgs(0) {
				t := str(decode(r.Msg), "message_type")
				if t != "RESPONSE" && t != "EVENT" && t != "TASK" {
					o := conform.Mismatch(fmt.Sprintf("record %d has message_type %q", r.Seq, t), "TASK, RESPONSE or EVENT", t)
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if len(s.AgentMsgs(0)) == 0 {
				return conform.Failf("the agent sent no message")
			}
			return conform.Passf("every message has a known message_type")
		}),

	aop2Check("5/final-signal", "happy-path", conform.Core, conform.MUST, "aop2 §5 (guard rails)",
		"require_final_signal = true → must have task_status.state + task_status.final_signal; a final RESPONSE reports a terminal state.",
		[]string{"AOP2-SEQ-002", "AOP2-STATUS-001"},
		func(s *conform.Session) conform.Outcome {
			r, m, bad := aop2Final(s)
			if bad != nil {
				return *bad
			}
			state, sig := str(m, "task_status", "state"), str(m, "task_status", "final_signal")
			task := aop2Task(s, s.Last().N)
			if boolAt(task, "guard_rails", "require_final_signal") && (state == "" || sig == "") {
				want := map[string]string{"state": orDash(state), "final_signal": orDash(sig)}
				if state == "" {
					want["state"] = "a terminal state"
				}
				if sig == "" {
					want["final_signal"] = "SUCCESS, FAILURE, ..."
				}
				// What the RESPONSE sent is wrong: no deadline explains it.
				o := conform.Mismatch("require_final_signal is set but the RESPONSE lacks state or final_signal", want, map[string]string{"state": state, "final_signal": sig}).OnSent()
				o.Seq = []int{r.Seq}
				return o
			}
			if aop2NonTerminal[state] {
				o := conform.Mismatch(fmt.Sprintf("the final RESPONSE reports the non-terminal state %q", state), "a terminal state such as COMPLETED or FAILED", state).OnSent()
				o.Seq = []int{r.Seq}
				return o
			}
			return conform.Passf("state %s, final_signal %s", state, sig)
		}),

	aop2Check("5/minimal-report", "happy-path", conform.Core, conform.MUST, "aop2 §5 (guard rails)",
		"require_minimal_report = true → must have non-empty summary + actions.",
		[]string{"AOP2-SEQ-003"},
		func(s *conform.Session) conform.Outcome {
			r, m, bad := aop2Final(s)
			if bad != nil {
				return *bad
			}
			if !boolAt(aop2Task(s, s.Last().N), "guard_rails", "require_minimal_report") {
				return conform.NotTestedf("the TASK does not set require_minimal_report")
			}
			sum := str(m, "execution_summary", "summary")
			acts, _ := field(m, "execution_summary", "actions").([]any)
			if strings.TrimSpace(sum) == "" || len(acts) == 0 {
				o := conform.Mismatch("the report is empty", "a non-empty execution_summary.summary and actions", map[string]any{"summary": sum, "actions": len(acts)})
				o.Seq = []int{r.Seq}
				return o
			}
			return conform.Passf("summary and %d actions", len(acts))
		}),

	aop2Check("3/extension-keys", "unknown-fields", conform.Full, conform.MUST, "aop2 §3",
		"Keys inside extensions MUST start with \"x_\".",
		[]string{"AOP2-EXT-001"},
		func(s *conform.Session) conform.Outcome {
			msgs := s.AgentMsgs(0)
			if len(msgs) == 0 {
				return conform.Failf("the agent sent no message")
			}
			for _, r := range msgs {
				if bad := badExtensionKeys(decode(r.Msg)); len(bad) > 0 {
					o := conform.Mismatch(fmt.Sprintf("record %d has extension keys without the x_ prefix", r.Seq), "extension keys starting with x_", strings.Join(bad, ", "))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("every extensions key starts with x_")
		}),

	aop2Check("4/response-size", "happy-path", conform.Full, conform.MUST, "aop2 §4",
		"Total RESPONSE envelope: 500KB JSON, HARD (reject with E_CONTEXT_OVERFLOW).",
		[]string{"AOP2-LIMIT-002", "AOP2-LIMIT-003"},
		func(s *conform.Session) conform.Outcome {
			rs := s.ByKey(0, "RESPONSE")
			if len(rs) == 0 {
				if a := s.Last(); a != nil {
					return aop2NoResponse(s, a)
				}
				return conform.NotTestedf("the agent was never started")
			}
			for _, r := range rs {
				if size, over := aop2spec.OverSize(r.Msg, aop2spec.MaxResponseBytes); over {
					o := conform.Mismatch(fmt.Sprintf("record %d is a RESPONSE of %d bytes compact", r.Seq, size), "at most 500KB", fmt.Sprintf("%d bytes", size))
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("RESPONSE within 500KB")
		}),

	aop2Check("12/within-budget", "happy-path", conform.Full, conform.MUST, "aop2 §2.2 budgets, §12 E_COST_LIMIT_EXCEEDED",
		"The actual cost stays within task.budgets.max_cost_usd (E_COST_LIMIT_EXCEEDED – budgets / max_cost_usd exceeded).",
		[]string{"AOP2-SEQ-013"},
		func(s *conform.Session) conform.Outcome {
			r, m, bad := aop2Final(s)
			if bad != nil {
				return *bad
			}
			task := aop2Task(s, s.Last().N)
			budget, ok := num(task, "task", "budgets", "max_cost_usd")
			if !ok {
				budget, ok = num(task, "task", "constraints", "max_cost_usd")
			}
			if !ok {
				return conform.NotTestedf("the TASK sets no budget")
			}
			cost, ok := num(m, "cost_tracking", "actual_cost_usd")
			if !ok {
				return conform.Passf("no actual cost reported")
			}
			if cost > budget {
				o := conform.Mismatch("the reported cost exceeds the budget", fmt.Sprintf("actual_cost_usd ≤ %g", budget), fmt.Sprintf("actual_cost_usd = %g", cost))
				o.Seq = []int{r.Seq}
				return o
			}
			return conform.Passf("cost %g within budget %g", cost, budget)
		}),

	aop2Check("10/no-delegation", "delegation", conform.Resilient, conform.MUST, "aop2 §1.2, §10, §12 E_MAX_DEPTH_EXCEEDED",
		"With task.constraints.delegation_allowed = false the executor never dispatches sub-TASKs; delegation depth never exceeds 3; a TASK MUST NOT contain task_status.",
		[]string{"AOP2-SEQ-011", "AOP2-SEQ-016", "AOP2-ENVELOPE-003"},
		func(s *conform.Session) conform.Outcome {
			tasks := s.ByKey(0, "TASK")
			allowed := true
			for _, a := range s.Attempts {
				if v, ok := field(decode(a.Input), "task", "constraints", "delegation_allowed").(bool); ok && !v {
					allowed = false
				}
			}
			if len(tasks) == 0 {
				if len(s.AgentMsgs(0)) == 0 {
					return vacuous()
				}
				return conform.Passf("no sub-TASK dispatched")
			}
			if !allowed {
				o := conform.Mismatch("the agent dispatched sub-TASKs although delegation_allowed is false", "no TASK from the agent", fmt.Sprintf("%d TASK messages", len(tasks)))
				o.Seq = seqs(tasks)
				return o
			}
			for _, r := range tasks {
				if field(decode(r.Msg), "task_status") != nil {
					o := conform.Mismatch("a sub-TASK carries task_status", "no task_status in a TASK", "task_status present")
					o.Seq = []int{r.Seq}
					return o
				}
			}
			// Depths by parent_task_id from the scenario's TASK (lint/spec/aop2, as
			// AOP2-SEQ-011): sibling sub-TASKs are not a chain.
			depth := map[string]int{}
			for _, a := range s.Attempts {
				in := decode(a.Input)
				if id := str(in, "task", "task_id"); id != "" {
					parent := str(in, "task", "parent_task_id")
					depth[id] = aop2spec.DelegationDepth(parent != "", false, 0)
				}
			}
			for _, r := range tasks {
				m := decode(r.Msg)
				id, parent := str(m, "task", "task_id"), str(m, "task", "parent_task_id")
				pd, seen := depth[parent]
				d := aop2spec.DelegationDepth(parent != "", seen && parent != id, pd)
				if d > aop2spec.MaxDelegationDepth {
					o := conform.Mismatch(fmt.Sprintf("sub-TASK %q is delegated %d levels deep", id, d), fmt.Sprintf("depth ≤ %d", aop2spec.MaxDelegationDepth), fmt.Sprintf("depth %d through parent_task_id %q", d, parent))
					o.Seq = []int{r.Seq}
					return o
				}
				if id != "" {
					depth[id] = d // the latest TASK of an id, as aoplint keeps it
				}
			}
			return conform.Passf("delegation within limits")
		}),

	aop2Check("7/snapshots-untouched", "rollback", conform.Full, conform.MUST, "aop2 §7",
		"Rollback snapshots are orchestrator-owned: the executor leaves the snapshots the orchestrator took before dispatch untouched.",
		nil,
		func(s *conform.Session) conform.Outcome {
			snaps, _ := s.Facts["aop2.snapshots"].([]conform.Snapshot)
			if len(snaps) == 0 {
				return conform.NotTestedf("the TASK asks for no rollback snapshot")
			}
			for _, sn := range snaps {
				if !sn.Intact {
					return conform.Mismatch("a rollback snapshot was changed or deleted by the agent", "snapshot "+sn.Path+" unchanged", sn.After)
				}
			}
			return conform.Passf("%d snapshots intact", len(snaps))
		}),

	aop2Check("5/artifacts-honest", "stale-recovery", conform.Full, conform.SHOULD, "aop2 §5",
		"output_artifacts report files that exist, with their real hash and size.",
		nil,
		func(s *conform.Session) conform.Outcome {
			r, m, bad := aop2Final(s)
			if bad != nil {
				return *bad
			}
			files, _ := s.Facts["aop2.files"].(map[string]string)
			arts, _ := field(m, "execution_summary", "output_artifacts").([]any)
			if len(arts) == 0 {
				// A RESPONSE without artifacts is a state a correct agent may
				// legitimately be in, in every scenario (whether an earlier
				// attempt was stopped or not): NOT-APPLICABLE, never NOT-TESTED.
				return conform.Outcome{Verdict: conform.NotApplicable, Message: "not applicable: the RESPONSE reports no output artifacts"}
			}
			ws := s.Fact("aop2.workspace")
			for _, av := range arts {
				p := str(av, "path")
				st := str(av, "status")
				if st == "DELETED" {
					continue
				}
				rel := strings.TrimPrefix(strings.TrimPrefix(p, ws), "/")
				sum, ok := files[rel]
				if !ok {
					o := conform.Mismatch("an output artifact the RESPONSE reports does not exist", p+" in the workspace", "missing")
					o.Seq = []int{r.Seq}
					return o
				}
				if h := str(av, "hash"); strings.HasPrefix(h, "sha256:") && h != "sha256:"+sum {
					o := conform.Mismatch("an output artifact's hash does not match the file", h, "sha256:"+sum)
					o.Seq = []int{r.Seq}
					return o
				}
			}
			return conform.Passf("%d artifacts exist as reported", len(arts))
		}),

	aop2Check("6/event-format", "heartbeats", conform.Core, conform.MUST, "aop2 §6.1, §6.2",
		"EVENT messages carry event, session_id, task_id of the TASK and an ISO 8601 timestamp.",
		[]string{"AOP2-TIME-001"},
		func(s *conform.Session) conform.Outcome {
			n := 0
			for _, a := range s.Attempts {
				task := decode(a.Input)
				for _, r := range s.AgentMsgs(a.N) {
					m := decode(r.Msg)
					if str(m, "message_type") != "EVENT" {
						continue
					}
					n++
					got := map[string]string{"event": str(m, "event"), "session_id": str(m, "session_id"), "task_id": str(m, "task_id"), "timestamp": str(m, "timestamp")}
					want := map[string]string{"event": got["event"], "session_id": str(task, "session", "session_id"), "task_id": str(task, "task", "task_id"), "timestamp": got["timestamp"]}
					_, _, tsOK := aop2spec.ParseTime(got["timestamp"])
					if got["event"] == "" || got["session_id"] != want["session_id"] || got["task_id"] != want["task_id"] || !tsOK {
						if !tsOK {
							want["timestamp"] = "an ISO 8601 date-time"
						}
						o := conform.Mismatch(fmt.Sprintf("EVENT record %d is malformed", r.Seq), want, got)
						o.Seq = []int{r.Seq}
						return o
					}
				}
			}
			if n == 0 {
				// Events are optional; the heartbeat checks say when they are owed.
				return conform.Passf("no EVENT sent")
			}
			return conform.Passf("%d well-formed events", n)
		}),

	aop2Check("6.1/heartbeat-interval", "heartbeats", conform.Resilient, conform.MUST, "aop2 §6.1; bindings §aop2",
		"With execution_policy.heartbeat.enabled the agent writes HEARTBEAT events at interval_seconds until its RESPONSE.",
		[]string{"AOP2-SEQ-006"},
		func(s *conform.Session) conform.Outcome {
			// The gaps are judged once, from the transcript, by aoplint's AOP2-SEQ-006
			// (lint/spec/aop2's limits, stretched by the timeout_scale the harness
			// wrote): this check takes its findings rather than judging again.
			for _, f := range s.Lint {
				if f.Rule == "AOP2-SEQ-006" {
					o := conform.Mismatch("lint "+f.Rule+": "+f.Message, "a HEARTBEAT at least every interval_seconds", f.Message)
					o.Seq = []int{f.Seq}
					if f.Limit > 0 {
						// The rule's measurement: how far behind, against how far
						// it may be (the margin the runner weighs a FLAKY by).
						o = o.Timed(f.Measured, f.Limit)
					}
					return o
				}
			}
			for _, a := range s.Attempts {
				task := decode(a.Input)
				if !boolAt(task, "execution_policy", "heartbeat", "enabled") {
					continue
				}
				iv, ok := num(task, "execution_policy", "heartbeat", "interval_seconds")
				interval, _ := aop2spec.Heartbeat(numOrNil(iv, ok), nil)
				// The agent owes a beat per interval of the TASK: an attempt shorter
				// than that owed none (NOT-APPLICABLE).
				end := a.End
				if rs := aop2Responses(s, a.N); len(rs) > 0 {
					end = rs[0].Time
				}
				if !a.Terminated.IsZero() && a.Terminated.Before(end) {
					end = a.Terminated
				}
				if end.Sub(a.Origin()) >= interval {
					return conform.Passf("heartbeats at the interval")
				}
			}
			return conform.NotTestedf("no attempt with heartbeats enabled ran longer than one interval")
		}),

	aop2Check("6.1/heartbeat-liveness", "heartbeats", conform.Resilient, conform.MUST, "aop2 §6.1, §12 E_HEARTBEAT_FAILURE",
		"E_HEARTBEAT_FAILURE – missed max_missed_beats: a live agent never lets max_missed_beats intervals pass without a HEARTBEAT.",
		[]string{"AOP2-SEQ-005"},
		func(s *conform.Session) conform.Outcome {
			if ev := eventsOf(s, "heartbeat-failure"); len(ev) > 0 {
				o := conform.Mismatch("the orchestrator detected a heartbeat failure (E_HEARTBEAT_FAILURE) and aborted the agent", "a HEARTBEAT within interval × max_missed_beats", "no HEARTBEAT for "+fmt.Sprint(ev[0].Detail["missed_for_ms"])+" ms")
				o.Seq = seqs(ev)
				return o
			}
			for _, a := range s.Attempts {
				task := decode(a.Input)
				if !boolAt(task, "execution_policy", "heartbeat", "enabled") {
					continue
				}
				iv, ok := num(task, "execution_policy", "heartbeat", "interval_seconds")
				interval, _ := aop2spec.Heartbeat(numOrNil(iv, ok), nil)
				if len(aop2Responses(s, a.N)) > 0 || a.End.Sub(a.Origin()) >= interval {
					return conform.Passf("no heartbeat failure")
				}
			}
			return conform.NotTestedf("no attempt with heartbeats enabled ran for one interval or answered")
		}),

	aop2Check("6.2/progress-rate", "heartbeats", conform.Resilient, conform.MUST, "aop2 §6.2",
		"PROGRESS_UPDATE frequency: not more than once every 30 seconds.",
		[]string{"AOP2-SEQ-007"},
		func(s *conform.Session) conform.Outcome {
			for _, a := range s.Attempts {
				ps := s.ByKey(a.N, "EVENT/PROGRESS_UPDATE")
				for i := 1; i < len(ps); i++ {
					if gap := ps[i].Time.Sub(ps[i-1].Time); aop2spec.ProgressTooSoon(gap, true) {
						o := conform.Mismatch("two PROGRESS_UPDATE events less than 30 s apart", "at most one PROGRESS_UPDATE per 30 s", fmt.Sprintf("%s apart", gap.Round(time.Millisecond)))
						o.Seq = []int{ps[i-1].Seq, ps[i].Seq}
						return o
					}
				}
			}
			if len(s.AgentMsgs(0)) == 0 {
				return vacuous()
			}
			return conform.Passf("progress updates within the rate")
		}),

	aop2Check("11/finish-within-timeout", "timeouts", conform.Resilient, conform.MUST, "aop2 §11, §12 E_TIMEOUT",
		"The executor finishes within the effective timeout (guard_rails.timeout_seconds overrides execution_policy.timeout_seconds); otherwise E_TIMEOUT and the orchestrator terminates it.",
		[]string{"AOP2-SEQ-010"},
		func(s *conform.Session) conform.Outcome {
			for _, r := range eventsOf(s, "signal") {
				if r.Detail["reason"] == "E_TIMEOUT" {
					a := s.Attempt(r.Attempt)
					if a != nil && len(aop2Responses(s, a.N)) > 0 && aop2Responses(s, a.N)[0].Seq < r.Seq {
						continue
					}
					o := conform.Mismatch("the agent did not finish within the effective timeout and was terminated (E_TIMEOUT)", "a RESPONSE before the effective timeout", "terminated at the timeout")
					o.Seq = []int{r.Seq}
					return o
				}
			}
			if ev := eventsOf(s, "timeout"); len(ev) > 0 {
				return conform.Mismatch("the agent was still running at the scenario deadline", "a RESPONSE before the deadline", "deadline reached")
			}
			if _, _, bad := aop2Final(s); bad != nil {
				return *bad
			}
			return conform.Passf("the RESPONSE came within the effective timeout")
		}),

	aop2Check("bind/stop-on-eof", "cancellation", conform.Resilient, conform.SHOULD, "bindings §aop2",
		"EOF on stdin = orchestrator gone: the agent should stop.",
		nil,
		func(s *conform.Session) conform.Outcome {
			tested := false
			for _, a := range s.Attempts {
				if a.StdinClosed.IsZero() {
					continue
				}
				rs := aop2Responses(s, a.N)
				if len(rs) > 0 && rs[0].Time.Before(a.StdinClosed) {
					continue
				}
				tested = true
				grace := slack(s, 2*time.Second)
				if !a.Terminated.IsZero() || !a.Killed.IsZero() || a.End.Sub(a.StdinClosed) > grace {
					return conform.Mismatch("the agent kept running after its stdin was closed", fmt.Sprintf("exit within %s of EOF", grace), describeExit(a)+fmt.Sprintf(", ran %s after EOF", a.End.Sub(a.StdinClosed).Round(time.Millisecond))).Timed(a.End.Sub(a.StdinClosed), grace)
				}
			}
			if !tested {
				return conform.NotTestedf("the agent finished before its stdin was closed")
			}
			return conform.Passf("the agent stopped after EOF on stdin")
		}),

	aop2Check("9/fallback-model", "fallbacks", conform.Resilient, conform.MUST, "aop2 §9; bindings §aop2",
		"Re-dispatch for fallback = a new process with a new TASK whose target.model/provider is the alternative; the RESPONSE's agent block must report the model it ran as.",
		[]string{"AOP2-SEQ-015"},
		func(s *conform.Session) conform.Outcome {
			checked := 0
			for _, a := range s.Attempts {
				task := decode(a.Input)
				for _, r := range aop2Responses(s, a.N) {
					m := decode(r.Msg)
					want := map[string]string{"model": str(task, "target", "model"), "provider": str(task, "target", "provider")}
					got := map[string]string{"model": str(m, "agent", "model"), "provider": str(m, "agent", "provider")}
					if want["model"] != got["model"] || (got["provider"] != "" && want["provider"] != got["provider"]) {
						o := conform.Mismatch(fmt.Sprintf("attempt %d reports another model than it was dispatched as", a.N), want, got)
						o.Seq = []int{r.Seq}
						return o
					}
					checked++
				}
			}
			if a := s.Last(); a != nil && (checked == 0 || len(aop2Responses(s, a.N)) == 0) {
				return aop2NoResponse(s, a)
			}
			if checked == 0 {
				return conform.NotTestedf("the agent was never started")
			}
			return conform.Passf("every RESPONSE reports the model it was dispatched as")
		}),

	aop2Check("recovery/clean-restart", "stale-recovery", conform.Resilient, conform.MUST, "aop2 §2.2 task.attempt; bindings §aop2",
		"An executor re-dispatched after its previous run was killed starts cleanly: it completes the same task with one RESPONSE and exits 0.",
		nil,
		func(s *conform.Session) conform.Outcome {
			if len(s.Attempts) < 2 {
				return conform.NotTestedf("the scenario did not re-dispatch")
			}
			a := s.Last()
			rs := aop2Responses(s, a.N)
			if len(rs) != 1 {
				return conform.Mismatch("the re-dispatched agent did not answer with exactly one RESPONSE", "1 RESPONSE", describeAttempt(s, a))
			}
			m := decode(rs[0].Msg)
			task := decode(a.Input)
			if str(m, "task_id") != str(task, "task", "task_id") {
				return conform.Mismatch("the re-dispatched agent answered another task", str(task, "task", "task_id"), str(m, "task_id"))
			}
			if o := exitedCleanly(s, a); o.Verdict != conform.Pass {
				return o
			}
			return conform.Passf("attempt %d completed cleanly", a.N)
		}),

	aop2Check("recovery/honest-attempt", "stale-recovery", conform.Full, conform.SHOULD, "aop2 §5 timing",
		"A re-dispatched executor reports honestly: timing.retries_attempted counts the earlier attempts (task.attempt − 1).",
		nil,
		func(s *conform.Session) conform.Outcome {
			if len(s.Attempts) < 2 {
				return conform.NotTestedf("the scenario did not re-dispatch")
			}
			r, m, bad := aop2Final(s)
			if bad != nil {
				return *bad
			}
			att, ok := num(decode(s.Last().Input), "task", "attempt")
			if !ok {
				return conform.NotTestedf("the TASK has no task.attempt")
			}
			got, ok := num(m, "timing", "retries_attempted")
			if !ok {
				return conform.NotTestedf("the RESPONSE reports no timing.retries_attempted")
			}
			if got != att-1 {
				o := conform.Mismatch("retries_attempted does not match the attempt", fmt.Sprint(att-1), fmt.Sprint(got))
				o.Seq = []int{r.Seq}
				return o
			}
			return conform.Passf("retries_attempted = %g", got)
		}),
}

// badExtensionKeys lists the pointers of the extensions keys that lack the x_
// prefix (lint/spec/aop2, as AOP2-EXT-001).
func badExtensionKeys(v any) []string {
	var out []string
	aop2spec.BadExtensionKeys(v, func(ptr, _ string) { out = append(out, ptr) })
	return out
}
