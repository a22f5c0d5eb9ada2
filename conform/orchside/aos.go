package orchside

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aopkit/aopkit/conform"
	engaos "github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/conform/harness"
)

// The orchestrator side of AOS is the guardian: the harness starts it, tells it
// where to listen, and plays the agent against it with the guardian checks
// (conform/engine/aos Prober, the same probes as `aopconform guardian URL`).
// docs/bindings.md "Orchestrators", aos.
const (
	// EnvListen is the address the guardian under test must listen on,
	// 127.0.0.1:PORT (a free port the harness picked).
	EnvListen = "AOPKIT_LISTEN"
	// EnvGuardianURL is where the harness sends its requests: http://ADDR/.
	EnvGuardianURL = "AOPKIT_GUARDIAN_URL"
)

// ListenWithin bounds the wait for the guardian to listen (× --timeout-scale):
// a guardian that is not listening by then fails aos/orch/bind/listens, and its
// other checks are not judged.
const ListenWithin = 10 * time.Second

// AnswerWithin bounds the wait for one answer (× --timeout-scale): a probe not
// answered by then fails, and the next one is sent. The scenario deadline bounds
// the whole run.
const AnswerWithin = 10 * time.Second

// FactProbe is the session fact of an aos guardian run (guardianRun).
var FactProbe = conform.NewFact[*guardianRun]("aos.probe")

// guardianRun is what the harness saw of the guardian under test.
type guardianRun struct {
	URL      string
	Listened bool
	// NotListening says why the guardian was never reached ("" when it was).
	NotListening string
	Results      []engaos.CheckResult
}

func init() {
	sides["aos"] = &side{key: engaos.Key, drive: driveGuardian, decisions: guardianDecisions, freeStdout: true}
	conform.Register(guardianChecks()...)
	// What the guardian decided is compared only when it listened.
	ref := refCheck("aos")
	ref.After = []string{engaos.ListensID}
	conform.Register(ref)
}

// NeedsMockagent reports whether the orchestrator side of protocol launches
// mockagent (aos does not: the harness itself plays the agent).
func NeedsMockagent(protocol string) bool {
	sd := sides[protocol]
	return sd == nil || sd.drive == nil
}

// driveGuardian plays one aos scenario against the guardian under test: it
// launches the command with EnvListen, waits (bounded) until something accepts
// connections there, sends the probes, then stops the guardian (SIGTERM, SIGKILL
// after the grace period). The probes and the answers are in the transcript,
// from "agent" and "orchestrator" as in an agent run; the guardian's own output
// lines are the orchestrator's.
func driveGuardian(h *harness.H) error {
	addr, err := freeLoopback()
	if err != nil {
		return harness.Errorf("a free port for the guardian: %v", err)
	}
	run := &guardianRun{URL: "http://" + addr + "/"}
	a, err := h.Launch(nil, EnvListen+"="+addr, EnvGuardianURL+"="+run.URL)
	if err != nil {
		return err
	}
	// Listening is the guardian's first duty: no start-up allowance beyond
	// ListenWithin is owed to it.
	a.Alive(a.Attempt().Start, "guardian-launch")
	ctx, cancel := context.WithCancel(h.Context())
	defer cancel()
	var probed atomic.Bool
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer func() {
			probed.Store(true)
			a.Wake()
		}()
		start := time.Now()
		if err := waitListen(ctx, addr, h.Scale(ListenWithin)); err != nil {
			run.NotListening = err.Error()
			return
		}
		run.Listened = true
		h.Event(a.N(), conform.EventGuardianListening, conform.Details(conform.KeyAddress.Is(addr), conform.KeyAfterMS.Is(time.Since(start).Milliseconds())))
		run.Results = (&engaos.Prober{URL: run.URL, Client: engaos.NoRedirectClient(), H: h, Timeout: h.Scale(AnswerWithin)}).Run(ctx)
	}()
	err = a.Run(harness.Handler{
		// The process under test is the guardian: its lines are its own.
		Collect: collectJudged(nil, true),
		Monitor: func(a *harness.Agent, _ time.Time) time.Time {
			if probed.Load() {
				a.Terminate("the probes are done")
			}
			return time.Time{}
		},
	})
	// The guardian has ended: a wait for it to listen, or a probe, ends too.
	cancel()
	<-finished
	if att := a.Attempt(); !run.Listened && att.Terminated.IsZero() {
		// It ended by itself while the harness waited for it to listen.
		run.NotListening = fmt.Sprintf("the guardian ended (%s) before it listened at %s", describeEnd(att), addr)
	}
	if !run.Listened {
		h.Event(a.N(), conform.EventGuardianNotListening, conform.Details(conform.KeyAddress.Is(addr), conform.KeyReason.Is(run.NotListening)))
	}
	harness.SetFact(h, FactProbe, run)
	return err
}

// describeEnd says how an attempt ended.
func describeEnd(att *conform.Attempt) string {
	if att.Exit.Signal != "" {
		return "killed by " + att.Exit.Signal
	}
	return fmt.Sprintf("exit %d", att.Exit.Code)
}

// freeLoopback returns a free 127.0.0.1 address for the guardian to listen on.
func freeLoopback() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}

// waitListen waits until something accepts TCP connections at addr, at most
// within (or until ctx ends: the guardian exited).
func waitListen(ctx context.Context, addr string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nothing accepted connections at %s ($%s) within %s", addr, EnvListen, within)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// guardianOf returns the guardian run of a session (nil when the driver recorded
// none).
func guardianOf(s *conform.Session) *guardianRun {
	g := FactProbe.Get(s)
	return g
}

// guardianChecks are the checks of the aos orchestrator side: the guardian
// listens where it is told, answers every probe as AOS 0.1.0 says (one check per
// probe, judged by the Prober), and every answer passes aoplint. Every check
// but the first is After it: a guardian that never listened is one failure,
// aos/orch/bind/listens, and the others are NOT-JUDGED under it (their own
// Run says so; the runner's rule for an implementation that never spoke,
// which fails every check, leaves them to it through After).
func guardianChecks() []*conform.Check {
	notListening := func(s *conform.Session) (*guardianRun, *conform.Outcome) {
		g := guardianOf(s)
		if g == nil {
			o := conform.NotTestedf("no guardian run recorded")
			return nil, &o
		}
		if !g.Listened {
			o := conform.NotJudgedf(engaos.ListensID, "the guardian was never reached: %s", g.NotListening)
			return nil, &o
		}
		return g, nil
	}
	out := []*conform.Check{
		{
			// Timing: a guardian slower to listen than ListenWithin on a loaded
			// machine is confirmed by a second run before it fails.
			ID: engaos.ListensID, Family: "guardian", Tier: conform.Core, Level: conform.MUST, Timing: true,
			Spec:        "AOS 0.1.0 §2; bindings §Orchestrators (aos)",
			Requirement: "AOS communication MUST occur over HTTP(S). (The guardian under test listens at $AOPKIT_LISTEN, 127.0.0.1:PORT, and answers POSTs to http://$AOPKIT_LISTEN/.)",
			Bad:         "the guardian listens on a port of its own choosing, or exits at once",
			Good:        "the guardian binds $AOPKIT_LISTEN and serves JSON-RPC 2.0 at / until it is sent SIGTERM",
			Run: func(s *conform.Session) conform.Outcome {
				g := guardianOf(s)
				switch {
				case g == nil:
					return conform.NotTestedf("no guardian run recorded")
				case !g.Listened:
					return conform.Mismatch("the guardian never listened where the binding says", "a listener at $"+EnvListen, g.NotListening)
				}
				return conform.Passf("listening at %s", g.URL)
			},
		},
		{
			ID: engaos.MessagesValidID, Family: "guardian", Tier: conform.Core, Level: conform.MUST,
			After:       []string{engaos.ListensID},
			Spec:        "AOS 0.1.0 §3, §4, §5 (aoplint)",
			Requirement: "Agent requests and guardian agent responses MUST adhere to the JSON-RPC 2.0 specification. (Every answer of the guardian passes aoplint's rules, read against the probes it answers.)",
			Lint:        []string{"*"},
			Bad:         `{"jsonrpc":"2.0","id":"1","result":{...}} to a request with id 1 (AOS-RPC: the id must echo the request's with its type)`,
			Good:        `{"jsonrpc":"2.0","id":1,"result":{"status":"connected","version":"0.1.0","timestamp":"2026-11-22T10:00:00Z"}}`,
			Run: func(s *conform.Session) conform.Outcome {
				g, o := notListening(s)
				if o != nil {
					return *o
				}
				// Lint errors on the guardian's answers fail this check in the runner.
				return conform.Passf("no lint errors on the guardian's answers to %d probes", len(g.Results))
			},
		},
	}
	for _, pc := range engaos.ProbeChecks() {
		level := conform.MUST
		if pc.Level == "SHOULD" {
			level = conform.SHOULD
		}
		out = append(out, &conform.Check{
			ID: pc.ID, Family: "guardian", Tier: pc.Tier, Level: level, Spec: pc.Spec,
			Requirement: pc.Requirement, Bad: pc.Bad, Good: pc.Good, After: []string{engaos.ListensID},
			Run: func(s *conform.Session) conform.Outcome {
				g, o := notListening(s)
				if o != nil {
					return *o
				}
				for _, r := range g.Results {
					if r.ID != pc.ID {
						continue
					}
					var out conform.Outcome
					if r.Verdict == "PASS" {
						out = conform.Passf("%s answered: %s", pc.Probe, r.Answer)
					} else {
						out = conform.Failf("%s: %s", pc.Probe, r.Detail)
					}
					out.Seq = r.Seq
					return out
				}
				return conform.NotTestedf("the probe %s was not sent (the guardian ended first, or the scenario deadline stopped it)", pc.Probe)
			},
		})
	}
	return out
}

// probeNames names the probe of each guardian check (ProbeCheck.Probe by ID).
var probeNames = sync.OnceValue(func() map[string]string {
	probes := map[string]string{}
	for _, pc := range engaos.ProbeChecks() {
		probes[pc.ID] = pc.Probe
	}
	return probes
})

// guardianDecisions is the decision sequence of a guardian run: which probe got
// which answer (no ids, no times), in the order they were sent.
func guardianDecisions(s *conform.Session) []string {
	g := guardianOf(s)
	if g == nil {
		return []string{"no guardian run"}
	}
	if !g.Listened {
		return []string{"guardian never listens"}
	}
	out := []string{"guardian listens"}
	probes := probeNames()
	for _, r := range g.Results {
		out = append(out, fmt.Sprintf("  %s: %s", probes[r.ID], r.Answer))
	}
	if att := s.Last(); att != nil && att.Terminated.IsZero() && !att.End.IsZero() {
		out = append(out, "guardian "+describeEnd(att)+" before it was stopped")
	}
	return out
}
