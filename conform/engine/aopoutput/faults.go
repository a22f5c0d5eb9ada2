package aopoutput

import "github.com/aopkit/aopkit/conform/fault"

// The engine's faults: each breaks one decision of the parent
// (docs/orchestrator-side.md, aop-output).
const (
	// FaultAcceptOversizedSummary: the parent takes a summary over its task type's
	// limit into its context whole.
	FaultAcceptOversizedSummary = "accept-oversized-summary"
	// FaultSummaryFirstLineOnly: the parent reads the summary like the one-line
	// markers and keeps only its first line.
	FaultSummaryFirstLineOnly = "summary-first-line-only"
	// FaultFollowDetailsPath: the parent reads the details file wherever the
	// report's path leads, outside the agent's workspace too.
	FaultFollowDetailsPath = "follow-details-path"
	// FaultTrustIncompleteReport: the parent takes whatever follows [AOP:STATUS]
	// as the status, of a report cut short or with a status that is none of the
	// format's.
	FaultTrustIncompleteReport = "trust-incomplete-report"
	// FaultWaitForAgentExit: the parent waits for the agent's exit however long
	// it lingers after [AOP:END].
	FaultWaitForAgentExit = "wait-for-agent-exit"
	// FaultRequireMetrics: the parent takes [AOP:METRICS], which the format
	// marks optional, as required: a report without it is incomplete.
	FaultRequireMetrics = "require-metrics"
	// FaultMetricsWholeValue: the parent reads a METRICS value up to the next
	// comma, colons included, where parseAOPOutput stops at the second colon.
	FaultMetricsWholeValue = "metrics-whole-value"
	// FaultRejectLargeDetails: the parent refuses a report whose details file is
	// larger than it cares to read (LargeDetails), although its results "can be
	// any size".
	FaultRejectLargeDetails = "reject-large-details"
)

// LargeDetails is the size over which FaultRejectLargeDetails refuses a report.
const LargeDetails = 256 << 10

// Faults lists the engine's faults. Each one's Fails is exact: its
// orchestrator-side run fails exactly those checks over the whole suite.
func Faults() []fault.Fault {
	return []fault.Fault{
		{Name: FaultAcceptOversizedSummary, Doc: "takes a summary over its task type's limit into the parent's context whole, instead of cutting it at the limit",
			Fails: []string{"aop-output/orch/limits/summary-within-task-type"}, Exact: true},
		{Name: FaultFollowDetailsPath, Doc: "reads the details file wherever the report's path leads, outside the agent's workspace too",
			Fails: []string{"aop-output/orch/details/stays-in-workspace"}, Exact: true},
		{Name: FaultMetricsWholeValue, Doc: "reads a METRICS value up to the next comma, colons included (\"duration: 1:30\" → \"1:30\"), where the spec's parseAOPOutput keeps \"1\"",
			Fails: []string{"aop-output/orch/parse/metrics-taken"}, Exact: true},
		{Name: FaultRejectLargeDetails, Doc: "calls a report incomplete (status unknown) when its details file is over 256 KiB, although the details' results \"can be any size\"",
			Fails: []string{"aop-output/orch/details/any-size"}, Exact: true},
		{Name: FaultRequireMetrics, Doc: "takes [AOP:METRICS], optional in the format, as required: a report without it is incomplete, its status unknown",
			Fails: []string{"aop-output/orch/parse/metrics-taken"}, Exact: true},
		{Name: FaultSummaryFirstLineOnly, Doc: "keeps only the first line of the summary (read like a one-line marker)",
			Fails: []string{"aop-output/orch/parse/report-taken", "aop-output/orch/details/any-size"}, Exact: true},
		{Name: FaultTrustIncompleteReport, Doc: "takes the [AOP:STATUS] value of a report cut short (no [AOP:END]) or outside success|failure|partial as the status",
			Fails: []string{"aop-output/orch/parse/unusable-not-success"}, Exact: true},
		{Name: FaultWaitForAgentExit, Doc: "never stops an agent that lingers after [AOP:END]: waits for its exit",
			Fails: []string{"aop-output/orch/bind/agent-stopped-after-report"}, Exact: true},
	}
}
