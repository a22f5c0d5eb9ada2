package aop2

import (
	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// runV1 dispatches the v1 prompt after a VERSION_FALLBACK (§1.3) and judges the
// executor's v1 output. The v1 binding (docs/bindings.md "aop2", v1 fallback):
// the prompt is the executor's whole stdin, ended by EOF (the engine closes stdin
// after it); the executor answers in markdown on stdout and ends with one status
// line (aop2spec.V1Status: "STATUS: SUCCESS", PARTIAL_SUCCESS, FAILURE or
// ABORTED), then exits 0. Only SIGTERM stops it. One attempt, no retries or
// fallbacks (the routing policy belongs to the v2 TASK that failed validation);
// the effective timeout still applies when the TASK states one; heartbeats do not
// (a v1 executor sends no EVENTs). It returns outSuccess or the §12 code that
// ended the attempt, like runAttempt.
func (e *engine) runV1(prompt string) string {
	const n = 1
	m := model{Provider: e.task.Provider, Model: e.task.Model}
	// No TASK_DISPATCHED audit record: upstream's audit_record schema holds a v2
	// envelope there; the ROUTING_DECISION (input_version V1) records this
	// dispatch, and the prompt is v1_prompt.md next to it.
	a, out := e.launch(nil)
	if a == nil {
		return out
	}
	st := &attemptState{n: n, m: m}
	if err := a.SendText(prompt); err != nil {
		e.violation("aop2/bind/read-task", n, "the executor did not read its v1 prompt: %v", err)
	}
	a.CloseInput() // EOF ends the prompt
	signal := ""
	outcome := e.watch(a, st, func(r conform.Record) {
		if r.Stream != "stdout" || st.answered || st.fatal != "" {
			return
		}
		if s, ok := aop2spec.V1Status(harness.TextOf(&r)); ok {
			st.answered, st.valid, signal = true, true, s
		}
	}, func(att *conform.Attempt) string { return e.v1Outcome(st, att, signal) })
	if outcome == outSuccess {
		e.end("COMPLETED", signal)
	}
	return outcome
}

// v1Outcome decides how a v1 attempt ended: its status line, else how it exited.
func (e *engine) v1Outcome(st *attemptState, att *conform.Attempt, signal string) string {
	if st.fatal != "" {
		return st.fatal
	}
	ex := att.Exit
	crashed := ex.Code != 0 || ex.Signal != ""
	if !st.answered {
		if att.Timeout || !att.Terminated.IsZero() {
			return outCancelled
		}
		if crashed {
			e.code("E_PROCESS_CRASH", st.n, true, "the v1 executor ended (exit %d%s) without a status line", ex.Code, sigSuffix(ex.Signal))
			return "E_PROCESS_CRASH"
		}
		e.code("E_MALFORMED_RESPONSE", st.n, true, "the v1 executor exited 0 without a status line (%s ...)", aop2spec.V1StatusLine("SUCCESS"))
		return "E_MALFORMED_RESPONSE"
	}
	if crashed && att.Terminated.IsZero() {
		e.violation("aop2/bind/exit-zero", st.n, "exit %d%s after the v1 status line; the binding asks for 0", ex.Code, sigSuffix(ex.Signal))
	}
	if signal == "SUCCESS" || signal == "PARTIAL_SUCCESS" {
		return outSuccess
	}
	e.code("E_UNKNOWN", st.n, true, "the v1 executor reports %s", aop2spec.V1StatusLine(signal))
	return "E_UNKNOWN"
}
