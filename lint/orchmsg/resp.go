package orchmsg

import (
	"regexp"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint"
)

// RespCorrelation: responses name the request they answer.
var RespCorrelation = ruleDocs.Rule(lint.Rule{
	ID: "ORCH-RESP-001", Protocol: ID, Severity: lint.Error, Kinds: []string{"response:success", "response:error"},
	Run: checkCorrelation,
})

// RespCode: error codes from the six.
var RespCode = ruleDocs.Rule(lint.Rule{ID: "ORCH-RESP-002", Protocol: ID, Severity: lint.Error, Kinds: []string{"response:error"}, Run: checkCode})

// RespCodeFits: the code says what the message says (upstream dialect).
var RespCodeFits = ruleDocs.Rule(lint.Rule{ID: "ORCH-RESP-003", Protocol: ID, Severity: lint.Warning, Kinds: []string{"response:error"}, Run: checkCodeFits})

func init() { lint.Register(RespCorrelation, RespCode, RespCodeFits) }

func checkCorrelation(p *lint.Pass) {
	requireString(p, p.Msg.Root.Get("correlationId"), "/correlationId",
		func() string {
			return msgType(p.Msg) + " has no \"correlationId\": a response names the id of the request it answers"
		},
		"\"correlationId\" must be a string, the id of the request this response answers",
		"\"correlationId\" is empty: set it to the id of the request this response answers")
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
