// Package checks holds aopconform's agent-side checks: Go values with a stable
// ID, the quoted requirement, the spec section, a level and a bad and a good
// example, referenced by ID from the scenario files.
//
// Where a check lives follows from its ID, "<protocol>/<section>/<name>": in
// <protocol>_<section>.go, the protocol without its hyphen and the section's
// dots as underscores (aop2/6.1/heartbeat-interval in aop2_6_1.go,
// aop-output/format/markers in aopoutput_format.go, aos/bind/all-tools-requested
// in aos_bind.go). Four checks every protocol has alike live in
// bind_<name>.go: <protocol>/bind/stop-on-sigterm, writes-in-scratch and
// regular-files, derived from conform.Protocols, and exit-zero, whose
// requirement (what the protocol's binding says of the exit) and After each
// <protocol>_bind.go gives (exitZeroFor). <protocol>.go holds what a
// protocol's checks share, common.go what every protocol's do (lintClean and
// stdoutProtocolOnly complete the checks of the same name of each protocol).
// TestCheckFiles enforces the mapping. What the checks read of a session (each
// message, each attempt's input, aop-output's report) is decoded once per
// session and shared by them, read only (memo.go).
package checks

import "github.com/aopkit/aopkit/conform"

func init() { conform.Register(all()...) }

// all is the registry: every agent-side check, one explicit list, by protocol
// and in the order of the spec's sections (then lint, bind, the rest). A check's
// After names the checks whose failure in the same scenario is a root cause of
// its own (conform.Check.After): the causes point one way, from what the agent
// did wrong first (a broken stream, a missed deadline, a wrong id, a message
// aoplint rejects) to what it therefore never did (its completion, its clean
// exit, the scenario's later steps).
func all() []*conform.Check {
	cs := []*conform.Check{
		// aop2
		aop2VersionHeader,
		aop2ResponseIDs,
		aop2MessageTypes,
		aop2ExtensionKeys,
		aop2ResponseSize,
		aop2FinalResponse,
		aop2FinalSignal,
		aop2MinimalReport,
		aop2ArtifactsHonest,
		aop2EventFormat,
		aop2HeartbeatInterval,
		aop2HeartbeatLiveness,
		aop2ProgressRate,
		aop2SnapshotsUntouched,
		aop2FallbackModel,
		aop2NoDelegation,
		aop2FinishWithinTimeout,
		aop2WithinBudget,
		aop2LintMessagesValid,
		aop2BindExitZero,
		aop2BindStdoutProtocolOnly,
		aop2BindStopOnEOF,
		aop2RecoveryCleanRestart,
		aop2RecoveryHonestAttempt,
		// orchmsg
		orchmsgLintMessagesValid,
		orchmsgBindExitZero,
		orchmsgBindStdoutProtocolOnly,
		orchmsgAuthOwnTasks,
		orchmsgCancelStopsTask,
		orchmsgCompletionReported,
		orchmsgCorrelationUniqueIDs,
		orchmsgCorrelationResponsesAwaited,
		orchmsgDelegationDepth,
		orchmsgFormatBaseFields,
		orchmsgFormatUUIDIDs,
		orchmsgFormatMessageType,
		orchmsgFormatJSON,
		orchmsgLimitMessageSize,
		orchmsgRateLimit,
		orchmsgRequestsPayload,
		orchmsgShutdownExitWithinGrace,
		// aos
		aosContentType,
		aosStepContext,
		aosJSONRPCRequest,
		aosMessageParams,
		aosRequestBeforeExecute,
		aosUniqueExecutionIDs,
		aosResultAfterExecute,
		aosDenyEnforced,
		aosModifyEnforced,
		aosFailClosed,
		aosLintMessagesValid,
		aosBindExitZero,
		aosBindStdoutProtocolOnly,
		aosBindAllToolsRequested,
		// aop-output
		aopOutLintMessagesValid,
		aopOutBindExitZero,
		aopOutContextNoDumps,
		aopOutDetailsFile,
		aopOutDetailsFields,
		aopOutFormatMarkers,
		aopOutFormatSingleReport,
		aopOutFormatTaskLength,
		aopOutFormatSummaryLimit,
		aopOutFormatStatus,
		aopOutFormatTimestamps,
		// aof
		aofLintMessagesValid,
		aofBindExitZero,
		aofBindStdoutProtocolOnly,
		aofCompletionReported,
		aofCompletionPayload,
		aofCompletionSummaryExists,
		aofEnvelopeJSON,
		aofEnvelopeFields,
		aofEnvelopeTaskAndSender,
		aofHandoffNoNestedDelegation,
		aofHandoffRequestValid,
		aofHandoffAcknowledged,
		aofHeartbeatFresh,
		aofResumeCleanStart,
		aofRunWithinDeadline,
		aofStatusValidTransition,
	}
	for _, p := range conform.Protocols {
		cs = append(cs, forProtocol(p, stopOnSIGTERM), forProtocol(p, writesInScratch), forProtocol(p, regularFiles))
	}
	return cs
}

// forProtocol is protocol's copy of a check every protocol has alike: its ID
// is "<protocol>/" + c.ID.
func forProtocol(protocol string, c conform.Check) *conform.Check {
	c.ID = protocol + "/" + c.ID
	return &c
}
