package aop2

import (
	"github.com/aopkit/aopkit/lint"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// errorCodes is the §12 taxonomy (lint/spec/aop2).
var errorCodes = aop2spec.ErrorCodes

// ErrorCode: every error_code is from the §12 taxonomy.
var ErrorCode = &lint.Rule{
	ID: "AOP2-CODE-001", Title: "error_code is from the §12 taxonomy", Protocol: ID, Severity: lint.Warning,
	Spec: "aop2 §12 Error Taxonomy",
	Doc:  "Error codes (error_details.error_code of a RESPONSE, and any error_code member of an event) come from the merged taxonomy of §12: E_TIMEOUT, E_HEARTBEAT_FAILURE, E_PARSE_FAILURE, E_SCHEMA_VALIDATION, E_AGENT_NOT_FOUND, E_MODEL_UNAVAILABLE, E_ALL_MODELS_EXHAUSTED, E_FILE_NOT_FOUND, E_PERMISSION_DENIED, E_CONTEXT_OVERFLOW, E_PAYLOAD_SIZE_WARNING, E_MALFORMED_RESPONSE, E_DEPENDENCY_FAILED, E_MAX_DEPTH_EXCEEDED, E_PROCESS_CRASH, E_COST_LIMIT_EXCEEDED, E_ROLLBACK_FAILED, E_UNKNOWN. §12 maps anything else to E_UNKNOWN (\"everything else\"), so another code is not required to be an error by the spec: it is a warning (use the taxonomy's code, or E_UNKNOWN). An error_code that is not a string is an error.",
	Bad:  `"error_details": {"error_code": "TIMEOUT", "message": "Task exceeded 1800 s."}`,
	Good: `"error_details": {"error_code": "E_TIMEOUT", "message": "Task exceeded 1800 s."}`,
	Run:  checkErrorCodes,
}

func init() { lint.Register(ErrorCode) }

// checkErrorCodes reports the error_code members the walk of the tree found
// (walk.go).
func checkErrorCodes(p *lint.Pass) { report(p, byErrorCodes) }
