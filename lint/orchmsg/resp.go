package orchmsg

import (
	"regexp"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint"
)

// RespCorrelation: responses name the request they answer.
var RespCorrelation = &lint.Rule{
	ID: "ORCH-RESP-001", Title: "response needs correlationId", Protocol: ID, Severity: lint.Error,
	Kinds: []string{"response:success", "response:error"},
	Spec:  "orchmsg-stdio §Request/Response Pattern; §Correlation",
	Doc: "A response (response:success or response:error) includes `correlationId`, the `id` of the request it answers. " +
		"The agent matches responses to its pending requests by it; without it the response is lost.",
	Bad:  `{"type":"response:success","id":"res-0ed47638-4b31-4f67-8ada-96916fb0c7a7","timestamp":"2026-02-04T14:30:00.123Z","payload":{"agents":[]}}`,
	Good: `{"type":"response:success","id":"res-0ed47638-4b31-4f67-8ada-96916fb0c7a7","correlationId":"req-123e4567-e89b-12d3-a456-426614174000","timestamp":"2026-02-04T14:30:00.123Z","payload":{"agents":[]}}`,
	Run:  checkCorrelation,
}

// RespCode: error codes from the six.
var RespCode = &lint.Rule{
	ID: "ORCH-RESP-002", Title: "unknown error code", Protocol: ID, Severity: lint.Error,
	Kinds: []string{"response:error"},
	Spec:  "orchmsg-stdio §Error Codes",
	Doc: "`error.code` of a response:error is one of the six codes: INVALID_REQUEST (malformed request), INVALID_MESSAGE_TYPE " +
		"(unknown message type), UNAUTHORIZED (agent not authorized), NOT_FOUND (resource not found), TIMEOUT (request timed out), " +
		"INTERNAL_ERROR (unexpected error).",
	Bad:  `{"type":"response:error","id":"res-be6e83ae-ccbd-489b-8254-451349fcd9fc","correlationId":"req-1","timestamp":"2026-02-04T14:30:00Z","error":{"code":"RATE_LIMITED","message":"Too many messages"}}`,
	Good: `{"type":"response:error","id":"res-be6e83ae-ccbd-489b-8254-451349fcd9fc","correlationId":"req-1","timestamp":"2026-02-04T14:30:00Z","error":{"code":"NOT_FOUND","message":"Task not found: task-9"}}`,
	Run:  checkCode,
}

// RespCodeFits: the code says what the message says (upstream dialect).
var RespCodeFits = &lint.Rule{
	ID: "ORCH-RESP-003", Title: "error code does not fit the error", Protocol: ID, Severity: lint.Warning,
	Kinds: []string{"response:error"},
	Spec:  "orchmsg-stdio §Error Codes",
	Doc: "The upstream prototype answered everything it did not expect with INTERNAL_ERROR (\"Unexpected error\"), " +
		"including a missing task (\"Task not found: task-1\"), which the spec's NOT_FOUND names, and its rate limit " +
		"(\"Rate limit exceeded\"). A missing resource is NOT_FOUND (a warning). For the rate limit the spec has no code of " +
		"its own, so INTERNAL_ERROR is reported as information only, naming the dialect.",
	Bad:  `{"type":"response:error","id":"res-eab8c049-7576-49b0-814b-8c3f92b6c827","correlationId":"req-2","timestamp":"2026-02-04T14:30:00Z","error":{"code":"INTERNAL_ERROR","message":"Task not found: task-1"}}`,
	Good: `{"type":"response:error","id":"res-eab8c049-7576-49b0-814b-8c3f92b6c827","correlationId":"req-2","timestamp":"2026-02-04T14:30:00Z","error":{"code":"NOT_FOUND","message":"Task not found: task-1"}}`,
	Run:  checkCodeFits,
}

func init() { lint.Register(RespCorrelation, RespCode, RespCodeFits) }

func checkCorrelation(p *lint.Pass) {
	c := p.Msg.Root.Get("correlationId")
	switch {
	case c == nil:
		p.Reportf("/correlationId", "%s has no \"correlationId\": a response names the id of the request it answers", msgType(p.Msg))
	case !c.IsString():
		p.Reportf("/correlationId", "\"correlationId\" must be a string, the id of the request this response answers, not a %s", c.Kind)
	case c.Str == "":
		p.Reportf("/correlationId", "\"correlationId\" is empty: set it to the id of the request this response answers")
	default:
		return
	}
	p.Claim("/correlationId")
}

func checkCode(p *lint.Pass) {
	c := p.Msg.Root.Path("error", "code")
	if !c.IsString() {
		return // the schema says what is missing
	}
	for _, k := range ErrorCodes {
		if c.Str == k {
			return
		}
	}
	hint := ""
	norm := strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(c.Str))
	for _, k := range ErrorCodes {
		if norm == k {
			hint = " (write it " + k + ")"
		}
	}
	if hint == "" && strings.Contains(norm, "RATE") {
		hint = " (the spec has no rate-limit code)"
	}
	p.Reportf("/error/code", "error code %s is not one of the six codes of §Error Codes%s: use %s", quote(c.Str), hint, list(ErrorCodes))
	p.Claim("/error/code")
}

var (
	notFoundRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bnot\s+found\b|\bno such\b|\bdoes not exist\b|\bunknown (task|agent)\b`)
	})
	rateLimitRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\brate[ -]?limit`) })
)

func checkCodeFits(p *lint.Pass) {
	e := p.Msg.Root.Get("error")
	code, msg := e.Get("code").String(), e.Get("message").String()
	if code != "INTERNAL_ERROR" {
		return
	}
	switch {
	case rateLimitRe().MatchString(msg):
		p.ReportSevf(lint.Info, "/error/code", "INTERNAL_ERROR %s is the upstream prototype's rate-limit answer; INTERNAL_ERROR means an unexpected error and the spec has no rate-limit code, so clients cannot tell it from a crash (§Security Considerations: 100 msg/sec)", quote(msg))
	case notFoundRe().MatchString(msg):
		p.Reportf("/error/code", "error message %s says a resource was not found: the code for that is NOT_FOUND, not INTERNAL_ERROR (the upstream prototype's dialect)", quote(msg))
	}
}
