package aopoutput

// Fault is a misbehaviour the reference engine plays on purpose
// (harness.Config.EngineFault), for certifying orchestrator-side checks.
type Fault struct {
	Name string
	Doc  string
}

// FaultAcceptOversizedSummary: the parent takes a summary over its task type's
// limit into its context whole.
const FaultAcceptOversizedSummary = "accept-oversized-summary"

// Faults lists the engine's faults.
func Faults() []Fault {
	return []Fault{
		{FaultAcceptOversizedSummary, "takes a summary over its task type's limit into the parent's context whole, instead of cutting it at the limit"},
	}
}
