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
	// 500KB) of the compact message (lint/aop2.CompactSize). KB is counted as
	// 1,000 bytes, as the upstream implementation counted it: the SI meaning,
	// and no envelope upstream refused passes.
	MaxTaskBytes     = 200 * 1000
	MaxResponseBytes = 500 * 1000
	// MaxDelegationDepth is the deepest delegation: the root TASK is depth 0,
	// and a depth beyond this is E_MAX_DEPTH_EXCEEDED (§12).
	MaxDelegationDepth = 3
)
