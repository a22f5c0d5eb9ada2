package runner

import (
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/conform/protocols"
)

// Driver returns the reference engine's driver of a protocol
// (protocols.Protocol.Drive): the orchestrator side it plays against an agent
// (aopconform run, and aopconform engine, which runs it as a standalone
// orchestrator).
func Driver(protocol string) (func(h *harness.H) error, bool) {
	if p := protocols.Lookup(protocol); p != nil && p.Drive != nil {
		return p.Drive, true
	}
	return nil, false
}
