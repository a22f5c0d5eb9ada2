package runner

import "github.com/aopkit/aopkit/conform/harness"

// Driver returns the reference engine's driver of a protocol: the orchestrator
// side it plays against an agent (aopconform run, and aopconform engine, which
// runs it as a standalone orchestrator).
func Driver(protocol string) (func(h *harness.H) error, bool) {
	d, ok := drivers[protocol]
	return d, ok
}
