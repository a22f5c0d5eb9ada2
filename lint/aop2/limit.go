package aop2

import (
	"fmt"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// SoftLimit: a SOFT limit of §4 exceeded (E_PAYLOAD_SIZE_WARNING).
var SoftLimit = ruleDocs.Rule(lint.Rule{ID: "AOP2-LIMIT-001", Protocol: ID, Kinds: kindTaskResponse, Severity: lint.Warning, Run: checkSoftLimits})

// HardLimit: a HARD count limit of §4 exceeded (E_CONTEXT_OVERFLOW).
var HardLimit = ruleDocs.Rule(lint.Rule{ID: "AOP2-LIMIT-002", Protocol: ID, Kinds: kindTask, Severity: lint.Error, Run: checkHardLimits})

// EnvelopeSize: the whole TASK or RESPONSE over its byte limit (E_CONTEXT_OVERFLOW).
var EnvelopeSize = ruleDocs.Rule(lint.Rule{ID: "AOP2-LIMIT-003", Protocol: ID, Kinds: kindTaskResponse, Severity: lint.Error, Run: checkEnvelopeSize})

func init() { lint.Register(SoftLimit, HardLimit, EnvelopeSize) }

func arrayLen(n *jsonread.Node) int {
	if n == nil || n.Kind != jsonread.Array {
		return -1
	}
	return len(n.Items)
}

func checkSoftLimits(p *lint.Pass) {
	root := p.Msg.Root
	switch p.Msg.Kind {
	case KindTask:
		// A string has at most as many runes as bytes: only one longer than
		// the warning's limit in bytes is counted.
		if obj := root.Path("task", "objective"); obj.IsString() && len(obj.Str) > aop2spec.WarnObjective {
			switch n := utf8.RuneCountInString(obj.Str); {
			case n > aop2spec.MaxObjective:
				p.Reportf("/task/objective", "task.objective is %s chars, over the SOFT limit of 50,000 (E_PAYLOAD_SIZE_WARNING, §4); move the detail into input files", comma(n))
			case n > aop2spec.WarnObjective:
				p.Reportf("/task/objective", "task.objective is %s chars, over the 40,000 where §4 warns (SOFT limit 50,000; E_PAYLOAD_SIZE_WARNING)", comma(n))
			}
		}
		phases := root.Get("phases")
		if n := arrayLen(phases); n > aop2spec.MaxPhases {
			p.Reportf("/phases", "phases has %d entries, over the SOFT limit of 10 (E_PAYLOAD_SIZE_WARNING, §4)", n)
		}
		if phases != nil && phases.Kind == jsonread.Array {
			for i, ph := range phases.Items {
				if n := arrayLen(ph.Get("checkpoints")); n > aop2spec.MaxCheckpoints {
					p.Reportf(jsonread.JoinPointer("/phases", i, "checkpoints"), "phase %s has %d checkpoints, over the SOFT limit of 20 per phase (E_PAYLOAD_SIZE_WARNING, §4)", describe(ph.Get("phase_id")), n)
				}
			}
		}
	case KindResponse:
		if n := arrayLen(root.Path("execution_summary", "actions")); n > aop2spec.MaxActions {
			p.Reportf("/execution_summary/actions", "execution_summary.actions has %d items, over the SOFT limit of 200 (E_PAYLOAD_SIZE_WARNING, §4); summarise related actions", n)
		}
	}
}

func checkHardLimits(p *lint.Pass) {
	root := p.Msg.Root
	if n := arrayLen(root.Path("task", "inputs")); n > aop2spec.MaxInputs {
		p.Reportf("/task/inputs", "task.inputs has %d files, over the HARD limit of 100: the TASK is rejected with E_CONTEXT_OVERFLOW (§4); split the task", n)
	}
	if n := arrayLen(root.Path("task", "expected_outputs")); n > aop2spec.MaxExpectedOutputs {
		p.Reportf("/task/expected_outputs", "task.expected_outputs has %d artifacts, over the HARD limit of 50: the TASK is rejected with E_CONTEXT_OVERFLOW (§4); split the task", n)
	}
}

func checkEnvelopeSize(p *lint.Pass) {
	limit, what := aop2spec.MaxTaskBytes, "200KB"
	if p.Msg.Kind == KindResponse {
		limit, what = aop2spec.MaxResponseBytes, "500KB"
	}
	if size, over := aop2spec.OverSize(p.Msg.Raw, limit); over {
		p.Reportf("", "the %s envelope is %s bytes compact, over the HARD limit of %s (%s bytes): it is rejected with E_CONTEXT_OVERFLOW (§4); reference large content by path instead of inlining it", p.Msg.Kind, comma(size), what, comma(limit))
	}
}

// comma formats 51234 as "51,234".
func comma(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
