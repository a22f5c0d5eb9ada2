package aos

import (
	"fmt"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

const specErrors = "aos-0.1.0 §6.1 Standard JSON-RPC Errors"

var (
	// ErrorCode: codes in the JSON-RPC ranges.
	ErrorCode = ruleDocs.Rule(lint.Rule{ID: "AOS-ERROR-001", Protocol: ID, Kinds: []string{KindError}, Severity: lint.Error, Spec: specErrors, Run: checkErrorCode})
	// ErrorString: §5.2's error-as-string.
	ErrorString = ruleDocs.Rule(lint.Rule{ID: "AOS-ERROR-002", Protocol: ID, Kinds: []string{KindError}, Severity: lint.Error, Run: checkErrorString})
)

var stdErrors = map[int64]string{
	-32700: "Parse error",
	-32600: "Invalid Request",
	-32601: "Method not found",
	-32602: "Invalid params",
	-32603: "Internal error",
}

var errorNames = map[string]int64{
	"JSONParseError": -32700, "InvalidRequestError": -32600, "MethodNotFoundError": -32601,
	"InvalidParamsError": -32602, "InternalError": -32603, "JSONRPCError": -32000,
}

func checkErrorCode(p *lint.Pass) {
	code := viewOf(p.Msg).err.Get("code")
	if code == nil || code.Kind != jsonread.Number {
		return
	}
	c, ok := code.Int()
	if !ok {
		p.Claim("/error/code")
		p.Reportf("/error/code", "error code %s is not an integer; use a JSON-RPC code such as -32603", code.Str)
		return
	}
	switch {
	case stdErrors[c] != "":
	case c >= -32099 && c <= -32000:
	case c >= -32768 && c <= -32000:
		p.Reportf("/error/code", "error code %d is reserved by JSON-RPC 2.0 and not defined: use -32700, -32600..-32603, or -32000..-32099 for AOS server errors", c)
	default:
		p.ReportSevf(lint.Warning, "/error/code", "error code %d is outside the JSON-RPC ranges AOS uses (§6.1): use a standard code or -32000..-32099 for AOS-specific errors", c)
	}
}

func checkErrorString(p *lint.Pass) {
	e := viewOf(p.Msg).err
	if e == nil || e.Kind != jsonread.String {
		return
	}
	p.Claim("/error")
	code, ok := errorNames[e.Str]
	if !ok {
		p.Reportf("/error", "error is the string %q (the §5.2 table's spelling); per §3.13 it must be an object {\"code\": <integer>, \"message\": <string>}", e.Str)
		return
	}
	msg := stdErrors[code]
	if msg == "" {
		msg = "Server error"
	}
	p.Reportf("/error", "error is the string %q (the §5.2 table's spelling); per §3.13 it must be an object: %s", e.Str,
		fmt.Sprintf(`{"code": %d, "message": %q}`, code, msg))
}
