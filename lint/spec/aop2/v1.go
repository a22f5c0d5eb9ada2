package aop2

import "strings"

// AOP v1 is a markdown prompt, not a JSON envelope (§1.3: "If parsed and
// aop_version missing → attempt v1 markdown detection"; "On schema failure, emit
// VERSION_FALLBACK event and transform to v1 prompt"). The contract defines no v1
// grammar; aopkit's reading, shared by the engine (which writes v1 prompts and
// judges v1 output), mockagent (which answers them) and the orchestrator-side
// checks (which recognise them), is:
//
//   - a v1 prompt is markdown with a level-1 heading that names the task
//     ("# AOP TASK TASK-001"): LooksLikeV1Prompt;
//   - a v1 executor answers in free markdown and ends with one status line
//     "STATUS: SUCCESS" (or PARTIAL_SUCCESS, FAILURE, ABORTED): V1Status.

// LooksLikeV1Prompt reports whether text is a v1 markdown prompt: a markdown
// heading ("# ...") and the word TASK (any case) or AOP.
func LooksLikeV1Prompt(text string) bool {
	heading := strings.HasPrefix(text, "# ") || strings.Contains(text, "\n# ")
	return heading && (strings.Contains(strings.ToUpper(text), "TASK") || strings.Contains(text, "AOP"))
}

// V1StatusPrefix starts the status line that ends a v1 executor's output.
const V1StatusPrefix = "STATUS:"

// V1Signals are the values of the v1 status line (the v2 final signals).
var V1Signals = []string{"SUCCESS", "PARTIAL_SUCCESS", "FAILURE", "ABORTED"}

// V1StatusLine is the line a v1 executor ends with.
func V1StatusLine(signal string) string { return V1StatusPrefix + " " + signal }

// V1Status reads one output line of a v1 executor: the final signal when the line
// is a status line with a known value ("STATUS: SUCCESS", case and surrounding
// space aside, markdown emphasis "**STATUS:** SUCCESS" too); ok is false for any
// other line.
func V1Status(line string) (signal string, ok bool) {
	s := strings.TrimSpace(strings.ReplaceAll(line, "*", ""))
	if len(s) < len(V1StatusPrefix) || !strings.EqualFold(s[:len(V1StatusPrefix)], V1StatusPrefix) {
		return "", false
	}
	v := strings.ToUpper(strings.TrimSpace(s[len(V1StatusPrefix):]))
	for _, sig := range V1Signals {
		if v == sig {
			return sig, true
		}
	}
	return "", false
}
