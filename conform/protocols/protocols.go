// Package protocols is aopconform's one list of protocols: List holds each
// protocol's full descriptor, which embeds its lint-level one
// (lint/<protocol>.Protocol, listed in lint/all) and adds what the
// conformance side has of it: the reference engine's driver and faults (and
// through the registries its package feeds, the checks, the orchestrator side
// and the reference agent).
//
// aopkit has three binaries and so three lists, one per binary, kept equal by
// this package's tests: lint/all (aoplint, which must not link the engines),
// mockagent/all (mockagent, built for Windows too) and this one (aopconform,
// which links everything). Every enumeration of protocols in aopconform is
// derived from List. Adding a protocol: docs/development.md.
package protocols

import (
	"sort"

	"github.com/aopkit/aopkit/conform"
	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	engaop2 "github.com/aopkit/aopkit/conform/engine/aop2"
	engaopoutput "github.com/aopkit/aopkit/conform/engine/aopoutput"
	engaos "github.com/aopkit/aopkit/conform/engine/aos"
	engorchmsg "github.com/aopkit/aopkit/conform/engine/orchmsg"
	"github.com/aopkit/aopkit/conform/fault"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/lint"
	lintaof "github.com/aopkit/aopkit/lint/aof"
	lintaop2 "github.com/aopkit/aopkit/lint/aop2"
	lintaopoutput "github.com/aopkit/aopkit/lint/aopoutput"
	lintaos "github.com/aopkit/aopkit/lint/aos"
	lintorchmsg "github.com/aopkit/aopkit/lint/orchmsg"
	"github.com/aopkit/aopkit/mockagent"
	mockaof "github.com/aopkit/aopkit/mockagent/aof"
	mockaop2 "github.com/aopkit/aopkit/mockagent/aop2"
	mockaopoutput "github.com/aopkit/aopkit/mockagent/aopoutput"
	mockaos "github.com/aopkit/aopkit/mockagent/aos"
	mockorchmsg "github.com/aopkit/aopkit/mockagent/orchmsg"
)

// Protocol is one protocol's full descriptor.
type Protocol struct {
	// Protocol is the lint-level descriptor: ID, spec, kinds, detection,
	// markers, stream framing, extension containers, schemas.
	*lint.Protocol
	// Drive plays the orchestrator side against an agent under test: the
	// reference engine (conform/engine/<protocol>); aopconform engine runs it
	// as a standalone orchestrator.
	Drive func(h *harness.H) error
	// Orchestrate, if set, is the driver aopconform engine runs as a
	// standalone orchestrator instead of Drive (aop2: rejecting a TASK before
	// dispatch is then a decision, not a harness error).
	Orchestrate func(h *harness.H) error
	// EngineFaults are the faults the reference engine plays on purpose
	// (harness.Config.EngineFault, aopconform engine --fault).
	EngineFaults func() []fault.Fault
	// Agent is the reference agent (mockagent/<protocol>), correct by default
	// and able to play each of its faults.
	Agent *mockagent.Agent
	// Served marks an engine the agent calls (aos: the guardian, an HTTP
	// endpoint) rather than one that launches the agent on a task: aopconform
	// engine serves it instead of running a task.
	Served bool
}

// List is every protocol aopconform knows, in the order of lint/all.Protocols.
var List = []*Protocol{
	{Protocol: lintaop2.Protocol, Drive: engaop2.Drive, Orchestrate: engaop2.Orchestrate, EngineFaults: engaop2.Faults, Agent: mockaop2.Agent},
	{Protocol: lintaos.Protocol, Drive: engaos.Drive, EngineFaults: engaos.Faults, Agent: mockaos.Agent, Served: true},
	{Protocol: lintaopoutput.Protocol, Drive: engaopoutput.Drive, EngineFaults: engaopoutput.Faults, Agent: mockaopoutput.Agent},
	{Protocol: lintaof.Protocol, Drive: engaof.Drive, EngineFaults: engaof.Faults, Agent: mockaof.Agent},
	{Protocol: lintorchmsg.Protocol, Drive: engorchmsg.Drive, EngineFaults: engorchmsg.Faults, Agent: mockorchmsg.Agent},
}

// Lookup returns the protocol with the ID id, or nil.
func Lookup(id string) *Protocol {
	for _, p := range List {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// IDs returns the IDs of List, sorted.
func IDs() []string {
	out := make([]string, len(List))
	for i, p := range List {
		out[i] = p.ID
	}
	sort.Strings(out)
	return out
}

// OrchestratorSide reports whether the protocol's orchestrators can be
// certified (conform/orchside/<protocol>.go).
func (p *Protocol) OrchestratorSide() bool {
	for _, id := range orchside.Protocols() {
		if id == p.ID {
			return true
		}
	}
	return false
}

// Checks returns the protocol's registered checks (conform/checks,
// conform/orchside).
func (p *Protocol) Checks() []*conform.Check {
	return conform.Checks(p.ID)
}
