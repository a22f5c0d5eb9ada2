// Package mockagent is the reference agent of aopkit: correct by default for each
// protocol, and able to break exactly one rule at a time with a named fault.
//
// Each protocol lives in its own subpackage (mockagent/aop2, mockagent/orchmsg, ...)
// and registers itself with Register (var Agent = mockagent.Register(...));
// mockagent/all imports every subpackage so that cmd/mockagent sees them all.
package mockagent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/fault"
	"github.com/aopkit/aopkit/internal/safefile"
)

// Env is everything an agent run sees of the world: its standard streams, its
// environment (as given by the harness under the bindings of docs/bindings.md) and
// its working directory.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Dir    string
	// Args are the arguments left after mockagent's own flags.
	Args []string
	// Clock is the agent's time source (clock.Real{} as a process; a fake clock
	// when the engine's tests run the agent in-process).
	Clock clock.Clock
	// HTTP carries the agent's HTTP requests (aos); nil is the network. In-process
	// (agentio.InProcess) it reaches an engine that serves in memory.
	HTTP http.RoundTripper
}

// TimeSource is the agent's clock: Clock, or the real one when Clock is nil.
func (e Env) TimeSource() clock.Clock { return clock.OrReal(e.Clock) }

// Sleep waits d on the agent's clock; false when the agent must stop (ctx is
// done, before or as d passes).
func (e Env) Sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-e.TimeSource().After(d):
		return ctx.Err() == nil
	}
}

// Agent is the behaviour of the mock agent for one protocol.
type Agent struct {
	Protocol string
	Faults   *fault.Catalogue
	// Run plays the agent. fault is "" for correct behaviour. It returns the process
	// exit code. It must return when ctx is done.
	Run func(ctx context.Context, env Env, fault string) int
}

var (
	mu     sync.Mutex
	agents = map[string]*Agent{}
)

// Register adds the agent of one protocol and returns it. It panics on a
// duplicate protocol, which is a programming error caught by any test.
func Register(a *Agent) *Agent {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := agents[a.Protocol]; dup {
		panic("mockagent: duplicate protocol " + a.Protocol)
	}
	agents[a.Protocol] = a
	return a
}

// Lookup returns the agent of a protocol.
func Lookup(protocol string) (*Agent, error) {
	mu.Lock()
	defer mu.Unlock()
	a, ok := agents[protocol]
	if !ok {
		return nil, fmt.Errorf("mockagent: unknown protocol %q (known: %v)", protocol, slices.Sorted(maps.Keys(agents)))
	}
	return a, nil
}

// Protocols lists the registered protocols, sorted.
func Protocols() []string {
	mu.Lock()
	defer mu.Unlock()
	return slices.Sorted(maps.Keys(agents))
}

// HasFault reports whether the agent of protocol knows the fault.
func (a *Agent) HasFault(name string) bool { return a.Faults.Has(name) }

// EnvScript names the file that holds the agent's behaviour script when the
// harness gives it out of band (orchestrator-side certification: the scenario's
// setup.mockagent, written to scratch by aopconform and set by the agent
// command itself): the script then never travels inside a protocol message,
// which an orchestrator faithful to the spec would not carry.
const EnvScript = "AOPKIT_MOCKAGENT_SCRIPT"

// maxScript bounds the script file.
const maxScript = 1 << 20

// Script returns the out-of-band behaviour script ($AOPKIT_MOCKAGENT_SCRIPT),
// ok false when there is none or it cannot be read.
func Script(env Env) (json.RawMessage, bool) {
	if env.Getenv == nil {
		return nil, false
	}
	name := env.Getenv(EnvScript)
	if name == "" {
		return nil, false
	}
	b, err := safefile.ReadFile(name, maxScript)
	if err != nil || !json.Valid(b) {
		return nil, false
	}
	return json.RawMessage(b), true
}
