package aof

// Fault is a misbehaviour the reference engine plays on purpose
// (harness.Config.EngineFault), for certifying orchestrator-side checks.
type Fault struct {
	Name string
	Doc  string
}

// Engine faults.
const (
	FaultReclaimTooEarly       = "reclaim-too-early"
	FaultAllowNestedDelegation = "allow-nested-delegation"
)

// Faults lists the engine's faults.
func Faults() []Fault {
	return []Fault{
		{FaultReclaimTooEarly, "the scheduler reclaims an in-progress task when a quarter of its heartbeat's TTL has passed, before expiresAt"},
		{FaultAllowNestedDelegation, "the router accepts a handoff.request from a delegated child (delegation depth 2) instead of rejecting it as nested_delegation"},
	}
}
