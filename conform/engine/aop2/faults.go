package aop2

// Engine faults: the orchestrator side misbehaving on purpose
// (harness.Config.EngineFault), so that checks of an orchestrator can be
// certified against a reference that is known to be wrong in one way.
const (
	FaultNoTimeoutKill      = "no-timeout-kill"
	FaultIgnoreMissedBeats  = "ignore-missed-heartbeats"
	FaultWrongFallbackModel = "wrong-fallback-model"
	FaultSkipRollback       = "skip-rollback"
)

// Fault is one engine fault.
type Fault struct {
	Name string
	Spec string // the requirement it breaks
	Doc  string
}

// Faults lists the aop2 engine's faults, sorted by name.
func Faults() []Fault {
	return []Fault{
		{Name: FaultIgnoreMissedBeats, Spec: "aop2 §6.1, §12 E_HEARTBEAT_FAILURE", Doc: "never declares a heartbeat failure, however long the executor stays silent"},
		{Name: FaultNoTimeoutKill, Spec: "aop2 §11 auto_terminate_on_timeout, §12 E_TIMEOUT", Doc: "raises E_TIMEOUT at the effective timeout but lets the executor run on, as if auto_terminate_on_timeout were false"},
		{Name: FaultSkipRollback, Spec: "aop2 §7", Doc: "takes the rollback snapshots but never restores them after a failed or aborted task"},
		{Name: FaultWrongFallbackModel, Spec: "aop2 §9", Doc: "re-dispatches a fallback under the target's model instead of the alternative's"},
	}
}

// LookupFault returns the engine fault named name, or nil.
func LookupFault(name string) *Fault {
	for _, f := range Faults() {
		if f.Name == name {
			return &f
		}
	}
	return nil
}
