package orchmsg

import (
	"github.com/aopkit/aopkit/conform/fault"

	"sort"
	"strings"
)

// Faults of the reference engine: the orchestrator side misbehaving on purpose
// (harness.Config.EngineFault), so that orchestrator-side checks can be seen
// failing against the engine (issue 15).
const (
	// FaultWrongCorrelationID answers every request with a correlationId that is
	// not the request's id.
	FaultWrongCorrelationID = "wrong-correlation-id"
	// FaultNoShutdownGrace stops the agent (SIGTERM) right after notify:shutdown
	// instead of waiting for the grace period it announced.
	FaultNoShutdownGrace = "no-shutdown-grace"
	// FaultIgnoreRateLimit handles every message of a flood over 100 msg/s,
	// answering its requests, instead of rejecting the excess.
	FaultIgnoreRateLimit = "ignore-rate-limit"
	// FaultWrongTaskID assigns the task under another taskId than the one it
	// was given.
	FaultWrongTaskID = "wrong-task-id"
)

// Faults lists the engine's faults, sorted by name.
func Faults() []fault.Fault {
	fs := []fault.Fault{
		{Name: FaultIgnoreRateLimit, Doc: "handles every message of a flood over 100 msg/s and answers its requests (orchmsg §Security Considerations 3)"},
		{Name: FaultNoShutdownGrace, Doc: "sends SIGTERM right after notify:shutdown, ignoring the grace period it announced (§Orchestrator Notifications 3)"},
		{Name: FaultWrongCorrelationID, Doc: "answers requests with a correlationId that is not the request's id (§Correlation)"},
		{Name: FaultWrongTaskID, Doc: "sends notify:task-assigned with a taskId other than the task's (§Orchestrator Notifications 1)"},
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	return fs
}

func knownFault(name string) bool { return fault.Lookup(Faults(), name) != nil }

func faultNames() string { return strings.Join(fault.Names(Faults()), ", ") }
