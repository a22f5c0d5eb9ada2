package aop2

import "github.com/aopkit/aopkit/lint"

// Percentage: progress percentages are within 0..100.
var Percentage = &lint.Rule{
	ID: "AOP2-VALUE-001", Title: "percentages are within 0..100", Protocol: ID, Severity: lint.Error,
	Spec: "aop2 §5 (progress_log.progress_percentage); §6.1 (progress_percentage); §6.2 (progress.percentage)",
	Doc:  "Progress is a percentage: HEARTBEAT progress_percentage, PROGRESS_UPDATE progress.percentage and RESPONSE progress_log.progress_percentage are numbers from 0 to 100 (the v2.0.0 range).",
	Bad:  `{"message_type": "EVENT", "event": "PROGRESS_UPDATE", ..., "progress": {"percentage": 160}}`,
	Good: `{"message_type": "EVENT", "event": "PROGRESS_UPDATE", ..., "progress": {"percentage": 60}}`,
	Run:  checkPercentages,
}

func init() { lint.Register(Percentage) }

// percentPointer is where a kind carries its progress percentage ("" if none).
func percentPointer(kind string) string {
	switch kind {
	case kindHeartbeat:
		return "/progress_percentage"
	case kindProgress:
		return "/progress/percentage"
	case KindResponse:
		return "/progress_log/progress_percentage"
	}
	return ""
}

func checkPercentages(p *lint.Pass) {
	at := percentPointer(p.Msg.Kind)
	if at == "" {
		return
	}
	n := p.Node(at)
	if v, ok := n.Float(); ok && (v < 0 || v > 100) {
		p.Claim(at)
		p.Reportf(at, "%s is %s: a percentage is within 0..100", dotted(at), n.Str)
	}
}
