package aop2

// The payload limits of §4 (Practical Payload Limits) and the delegation depth
// of §12: aoplint's AOP2-LIMIT and AOP2-SEQ-011 rules, the reference engine and
// the conformance checks all use these.
const (
	// WarnObjective is where task.objective starts to warn (40k characters);
	// MaxObjective its SOFT limit.
	WarnObjective = 40000
	MaxObjective  = 50000
	// MaxInputs (task.inputs) and MaxExpectedOutputs (task.expected_outputs)
	// are HARD.
	MaxInputs          = 100
	MaxExpectedOutputs = 50
	// MaxPhases, MaxCheckpoints (per phase) and MaxActions
	// (execution_summary.actions) are SOFT (E_PAYLOAD_SIZE_WARNING).
	MaxPhases      = 10
	MaxCheckpoints = 20
	MaxActions     = 200
	// MaxTaskBytes and MaxResponseBytes are the HARD envelope sizes (200KB,
	// 500KB) of the compact message (CompactSize). KB is counted as
	// 1,000 bytes, as the upstream implementation counted it: the SI meaning,
	// and no envelope upstream refused passes.
	MaxTaskBytes     = 200 * 1000
	MaxResponseBytes = 500 * 1000
	// MaxDelegationDepth is the deepest delegation: the root TASK is depth 0,
	// and a depth beyond this is E_MAX_DEPTH_EXCEEDED (§12).
	MaxDelegationDepth = 3
)

// CompactSize is the size of a JSON text without the whitespace outside strings:
// its size on the wire, however it was indented in a file.
func CompactSize(raw []byte) int {
	n, inString, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			n++
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			n++
			inString = c == '"'
		}
	}
	return n
}

// OverSize reports whether raw, a JSON message, is over limit (MaxTaskBytes,
// MaxResponseBytes) by its CompactSize, and that size (0 when raw as written is
// within the limit: its compact size is then too).
func OverSize(raw []byte, limit int) (size int, over bool) {
	if len(raw) <= limit {
		return 0, false
	}
	size = CompactSize(raw)
	return size, size > limit
}

// DelegationDepth is the depth of a TASK (§10, §12): 0 without a
// parent_task_id, its parent's depth + 1 under a parent seen before
// (parentDepth, parentSeen), and 1 under a parent never seen (at least a
// child). aoplint's AOP2-SEQ-011 and the check aop2/10/no-delegation count
// depths with it.
func DelegationDepth(hasParent, parentSeen bool, parentDepth int) int {
	switch {
	case !hasParent:
		return 0
	case parentSeen:
		return parentDepth + 1
	}
	return 1
}
