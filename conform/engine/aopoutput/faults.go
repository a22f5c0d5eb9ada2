package aopoutput

import "github.com/aopkit/aopkit/conform/fault"

// faults are the engine's faults, each declared once below.
var faults fault.Catalogue

// Faults lists the engine's faults, sorted by name. Each one's Fails is exact:
// its orchestrator-side run fails exactly those checks over the whole suite.
func Faults() []fault.Fault { return faults.List() }

// LargeDetails is the size over which FaultRejectLargeDetails refuses a report.
const LargeDetails = 256 << 10

// The engine's faults: each breaks one decision of the parent
// (docs/orchestrator-side.md, aop-output).
var (
	FaultAcceptOversizedSummary = faults.Add(fault.Fault{Name: "accept-oversized-summary", Doc: "takes a summary over its task type's limit into the parent's context whole, instead of cutting it at the limit",
		Fails: []string{"aop-output/orch/limits/summary-within-task-type"}, Exact: true})
	FaultFollowDetailsPath = faults.Add(fault.Fault{Name: "follow-details-path", Doc: "reads the details file wherever the report's path leads, outside the agent's workspace too",
		Fails: []string{"aop-output/orch/details/stays-in-workspace"}, Exact: true})
	FaultMetricsWholeValue = faults.Add(fault.Fault{Name: "metrics-whole-value", Doc: "reads a METRICS value up to the next comma, colons included (\"duration: 1:30\" → \"1:30\"), where the spec's parseAOPOutput keeps \"1\"",
		Fails: []string{"aop-output/orch/parse/metrics-taken"}, Exact: true})
	FaultRejectLargeDetails = faults.Add(fault.Fault{Name: "reject-large-details", Doc: "calls a report incomplete (status unknown) when its details file is over 256 KiB, although the details' results \"can be any size\"",
		Fails: []string{"aop-output/orch/details/any-size"}, Exact: true})
	FaultRequireMetrics = faults.Add(fault.Fault{Name: "require-metrics", Doc: "takes [AOP:METRICS], optional in the format, as required: a report without it is incomplete, its status unknown",
		Fails: []string{"aop-output/orch/parse/metrics-taken"}, Exact: true})
	FaultSummaryFirstLineOnly = faults.Add(fault.Fault{Name: "summary-first-line-only", Doc: "keeps only the first line of the summary (read like a one-line marker)",
		Fails: []string{"aop-output/orch/parse/report-taken", "aop-output/orch/details/any-size"}, Exact: true})
	FaultTrustIncompleteReport = faults.Add(fault.Fault{Name: "trust-incomplete-report", Doc: "takes the [AOP:STATUS] value of a report cut short (no [AOP:END]) or outside success|failure|partial as the status",
		Fails: []string{"aop-output/orch/parse/unusable-not-success"}, Exact: true})
	FaultWaitForAgentExit = faults.Add(fault.Fault{Name: "wait-for-agent-exit", Doc: "never stops an agent that lingers after [AOP:END]: waits for its exit",
		Fails: []string{"aop-output/orch/bind/agent-stopped-after-report"}, Exact: true})
)
