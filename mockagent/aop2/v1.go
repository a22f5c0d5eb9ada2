package aop2

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// v1Prompt is what the agent reads of a v1 markdown prompt (§1.3; the layout is
// the engine's, docs/bindings.md "aop2" v1 fallback): the task id of the
// "# AOP TASK <id>" heading, the "## Objective" section, and the task's
// extensions in the fenced json block of the "## Extensions" section (where the
// scenario's x_mockagent script travels).
type v1Prompt struct {
	TaskID    string
	Objective string
	Script    script
}

// parseV1Prompt reads a v1 prompt (LooksLikeV1Prompt holds).
func parseV1Prompt(text string) v1Prompt {
	var p v1Prompt
	section := ""
	var body []string
	var fence []string
	inFence := false
	flush := func() {
		if section == "objective" {
			p.Objective = strings.TrimSpace(strings.Join(body, "\n"))
		}
		body = nil
	}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if inFence {
			if strings.HasPrefix(trimmed, "```") {
				inFence = false
				if section == "extensions" {
					var ext struct {
						Mock script `json:"x_mockagent"`
					}
					if json.Unmarshal([]byte(strings.Join(fence, "\n")), &ext) == nil {
						p.Script = ext.Mock
					}
				}
				fence = nil
				continue
			}
			fence = append(fence, line)
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inFence = true
		case strings.HasPrefix(trimmed, "# "):
			flush()
			section = ""
			if f := strings.Fields(trimmed); len(f) > 0 && p.TaskID == "" {
				p.TaskID = f[len(f)-1]
			}
		case strings.HasPrefix(trimmed, "## "):
			flush()
			section = strings.ToLower(strings.TrimSpace(trimmed[3:]))
		default:
			body = append(body, line)
		}
	}
	flush()
	return p
}

// runV1 answers a v1 markdown prompt (the orchestrator fell back to v1, §1.3):
// the whole of stdin up to EOF is the prompt (first is its first line, in the
// rest). The agent works as the prompt's x_mockagent script says, writes a short
// markdown report and ends with the status line "STATUS: SUCCESS"
// (aop2spec.V1Status), then exits 0. EOF is the end of the prompt here, not a
// stop: only SIGTERM stops a v1 executor. Faults: hang, crash-mid-task,
// no-completion-report (no status line), exceed-timeout (works an hour), and the
// script's report-failure (STATUS: FAILURE); the others do not apply to v1.
func (a *agent) runV1(first []byte, in *input) int {
	select {
	case <-a.ctx.Done():
		return 0
	case <-a.eof:
	}
	text := string(first)
	if rest := in.text(); rest != "" {
		text += "\n" + rest
	}
	if !aop2spec.LooksLikeV1Prompt(text) {
		fmt.Fprintln(a.env.Stderr, "mockagent aop2: stdin is neither a TASK line nor a v1 markdown prompt")
		return 2
	}
	p := parseV1Prompt(text)
	if sc, ok := outOfBand(a.env); ok {
		p.Script = sc
	}
	a.start = a.clk.Now()
	fault := a.fault
	if f, ok := p.Script.FaultsByAttempt[strconv.Itoa(1)]; ok {
		fault = f
	}
	work := defaultWork
	if p.Script.WorkSeconds > 0 {
		work = seconds(p.Script.WorkSeconds)
	}
	switch fault {
	case FaultHang:
		<-a.ctx.Done()
		return 0
	case FaultExceedTimeout:
		work = time.Hour
	case FaultCrashMidTask:
		work /= 2
	}
	select {
	case <-a.ctx.Done():
		return 0
	case <-a.clk.After(work):
	}
	if fault == FaultCrashMidTask {
		return 1
	}
	id := p.TaskID
	if id == "" {
		id = "the task"
	}
	obj, _, _ := strings.Cut(p.Objective, "\n")
	lines := []string{"# Report for " + id, "", "- Worked " + work.String() + " on: " + obj}
	switch fault {
	case FaultNoCompletionReport:
	case scriptReportFailure:
		lines = append(lines, "- The task failed (scripted).", "", aop2spec.V1StatusLine("FAILURE"))
	default:
		lines = append(lines, "", aop2spec.V1StatusLine("SUCCESS"))
	}
	for _, l := range lines {
		a.writeLine([]byte(l))
	}
	a.flush()
	return 0
}
