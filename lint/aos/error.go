package aos

import (
	"fmt"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

const specErrors = "aos-0.1.0 §6.1 Standard JSON-RPC Errors"

var (
	// ErrorCode: codes in the JSON-RPC ranges.
	ErrorCode = &lint.Rule{
		ID: "AOS-ERROR-001", Title: "error code outside the JSON-RPC ranges", Protocol: ID, Kinds: []string{KindError}, Severity: lint.Error,
		Spec: specErrors,
		Doc: "§6.1 lists the codes: -32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal error, " +
			"and -32000 to -32099 for implementation-defined server errors (\"AOS-specific errors use this range\"). The rest of -32768..-32000 is " +
			"reserved by JSON-RPC 2.0 and is an error; a code outside the reserved range (404, 1) is allowed by JSON-RPC but not where AOS puts its errors: a warning.",
		Bad:  `{"jsonrpc": "2.0", "id": 5, "error": {"code": 404, "message": "Method not found"}}`,
		Good: `{"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "Method not found"}}`,
		Run:  checkErrorCode,
	}
	// ErrorString: §5.2's error-as-string.
	ErrorString = &lint.Rule{
		ID: "AOS-ERROR-002", Title: "error must be a JSONRPCError object, not a string", Protocol: ID, Kinds: []string{KindError}, Severity: lint.Error,
		Spec: "aos-0.1.0 §3.13 JSONRPCError Object; §5.2 JSONRPCErrorResponse",
		Doc: "The table of §5.2 types error as a string (\"One of JSONRPCError, JSONParseError, ...\"), but §3.13, §6 and JSON-RPC 2.0 make it an object " +
			"{code, message, data?}. The object form is the correct one: a string error is reported with the object to send instead.",
		Bad:  `{"jsonrpc": "2.0", "id": 5, "error": "MethodNotFoundError"}`,
		Good: `{"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "Method not found"}}`,
		Run:  checkErrorString,
	}
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
