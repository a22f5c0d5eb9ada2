package aop2

import "slices"

// ErrorCodes is the merged error taxonomy of §12, in its order. aoplint's
// AOP2-CODE rule, the reference engine and the orchestrator-side checks read
// codes here.
var ErrorCodes = []string{"E_TIMEOUT", "E_HEARTBEAT_FAILURE", "E_PARSE_FAILURE", "E_SCHEMA_VALIDATION", "E_AGENT_NOT_FOUND",
	"E_MODEL_UNAVAILABLE", "E_ALL_MODELS_EXHAUSTED", "E_FILE_NOT_FOUND", "E_PERMISSION_DENIED", "E_CONTEXT_OVERFLOW",
	"E_PAYLOAD_SIZE_WARNING", "E_MALFORMED_RESPONSE", "E_DEPENDENCY_FAILED", "E_MAX_DEPTH_EXCEEDED", "E_PROCESS_CRASH",
	"E_COST_LIMIT_EXCEEDED", "E_ROLLBACK_FAILED", "E_UNKNOWN"}

// IsErrorCode reports whether s is a code of the §12 taxonomy (§12 reads any
// other as E_UNKNOWN).
func IsErrorCode(s string) bool { return slices.Contains(ErrorCodes, s) }
