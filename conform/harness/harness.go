// Package harness is the generic side of playing one scenario against an agent:
// it launches attempts through an agentio.Launcher, keeps the time model (the
// start-up allowance, the first sign of life, the scenario deadline, the agent's
// CPU wait), fires the scenario's steps on agent events, stops the agent, and
// records everything in one transcript. The protocol logic is not here: each
// protocol's reference engine (conform/engine/<protocol>) drives an H.
//
// The same code runs against real processes (aopconform) and, inside a
// testing/synctest bubble on virtual time, against mockagent in-process (the
// engines' tests and reference transcripts).
package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
)

// Error is a failure of the harness itself (it could not launch the agent, write
// the transcript, ...), never the agent's doing.
type Error struct{ Err error }

func (e Error) Error() string { return "harness error: " + e.Err.Error() }
func (e Error) Unwrap() error { return e.Err }

// Errorf returns an Error.
func Errorf(format string, a ...any) error {
	return Error{fmt.Errorf(format, a...)}
}

// H is the harness side of one scenario: it launches the agent, records both sides,
// runs the scenario's steps and stops the agent at the deadline.
type H struct {
	ctx      context.Context
	sc       *conform.Scenario
	sess     *conform.Session
	rec      *recorder
	launcher agentio.Launcher
	command  []string
	scale    float64
	start    time.Time
	// deadline is the scenario deadline; dmu guards it, for engines that drive
	// several agents at once (one Run per agent, each in its own goroutine).
	dmu      sync.Mutex
	deadline time.Time
	grace    time.Duration
	scratch  string
	env      []string // binding environment common to every protocol
	// engineFault is Config.EngineFault.
	engineFault string
	specTimers  bool // Config.SpecTimers
	// emit is Config.Emit (emu serialises the lines).
	emu  sync.Mutex
	emit io.Writer
	// side carries agent records made outside the line loop (aos HTTP requests) to
	// it, so that they arm "message:KEY" steps too.
	side chan conform.Record
}

// Config is one scenario run of the harness.
type Config struct {
	Scenario *conform.Scenario
	// Transcript receives the records as transcript/1 lines (nil: kept in memory
	// only, in the Session).
	Transcript io.Writer
	Launcher   agentio.Launcher
	Command    []string // the agent's command line (agentio.Spec.Args)
	Scale      float64  // --timeout-scale (1 when 0)
	Scratch    string   // the scenario's scratch directory (absolute)
	// EngineFault names a fault of the reference engine (the orchestrator side
	// misbehaving on purpose, for certifying orchestrator-side checks); "" is
	// the correct engine. Each engine documents its faults.
	EngineFault string
	// Emit, when set, receives the protocol messages the engine itself emits,
	// one line each (H.Emit): `aopconform engine` sets its stdout, so that an
	// orchestrator-side run sees them as the orchestrator's output.
	Emit io.Writer
	// SpecTimers: the engine plays an orchestrator that is itself under test
	// (`aopconform engine`), so its grace periods end when the spec says. When
	// the harness judges the agent it runs, they grow by the CPU wait the
	// machine's load caused the agent (Agent.TerminateDue).
	SpecTimers bool
}

// New starts one scenario run: it records "scenario-start" and starts the
// scenario deadline, which counts from the agent's first sign of life (until the
// agent shows it, the whole start-up allowance is added; Agent.Alive takes back
// what was not used). End must be called when the protocol driver returns.
func New(ctx context.Context, cfg Config) *H {
	sc := cfg.Scenario
	if cfg.Scale <= 0 {
		cfg.Scale = 1
	}
	sess := &conform.Session{Scenario: sc, Scale: cfg.Scale, Scratch: cfg.Scratch}
	grace := sc.Grace.D(cfg.Scale)
	if grace <= 0 {
		grace = time.Duration(2 * float64(time.Second) * cfg.Scale)
	}
	h := &H{
		ctx: ctx, sc: sc, sess: sess, rec: newRecorder(cfg.Transcript, sc.Protocol, sess),
		launcher: cfg.Launcher, command: cfg.Command, scale: cfg.Scale, start: time.Now(),
		grace: grace, scratch: cfg.Scratch, engineFault: cfg.EngineFault, emit: cfg.Emit, specTimers: cfg.SpecTimers,
		env:  []string{"AOP_PROTOCOL=" + sc.Protocol, "AOPKIT_SCRATCH=" + cfg.Scratch, "AOPKIT_SCENARIO=" + sc.ID},
		side: make(chan conform.Record, 256),
	}
	h.deadline = h.start.Add(sc.Deadline.D(cfg.Scale) + h.allowance())
	h.rec.event(0, conform.EventScenarioStart, conform.Details(conform.KeyScenario.Is(sc.ID), conform.KeyDeadlineMS.Is(sc.Deadline.D(cfg.Scale).Milliseconds()), conform.KeyTimeoutScale.Is(cfg.Scale)))
	return h
}

// End records "scenario-end" and flushes the transcript. derr is the driver's
// error; End returns it, or the transcript's write error, as a plain error (the
// harness's, never the agent's).
func (h *H) End(derr error) error {
	h.rec.event(0, conform.EventScenarioEnd, conform.Details(conform.KeyScenario.Is(h.sc.ID)))
	if cerr := h.rec.close(); cerr != nil && derr == nil {
		derr = Errorf("writing the transcript: %v", cerr)
	}
	var he Error
	if errors.As(derr, &he) {
		return he.Err
	}
	return derr
}

// Session is what the run recorded, for the checks.
func (h *H) Session() *conform.Session { return h.sess }

// Scenario is the scenario being played.
func (h *H) Scenario() *conform.Scenario { return h.sc }

// Context is the run's context.
func (h *H) Context() context.Context { return h.ctx }

// Event records an event of the harness (attempt 0: the scenario's).
func (h *H) Event(attempt int, name conform.Event, detail conform.Detail) {
	h.rec.event(attempt, name, detail)
}

// Record adds a record to the transcript (its Seq, At, Protocol and Session are
// filled in) and returns it as recorded.
func (h *H) Record(r conform.Record) conform.Record { return h.rec.add(r) }

// SideRecord records an agent message that did not come through the agent's
// output (an HTTP request) and lets the running attempt's steps see it.
func (h *H) SideRecord(r conform.Record) conform.Record {
	r = h.rec.add(r)
	select {
	case h.side <- r:
	default:
	}
	return r
}

// Scratch is the scenario's scratch directory.
func (h *H) Scratch() string { return h.scratch }

// Scale stretches a duration by --timeout-scale.
func (h *H) Scale(d time.Duration) time.Duration { return time.Duration(float64(d) * h.scale) }

// SetFact records an observation of the orchestrator side for the checks.
func SetFact[T any](h *H, f *conform.Fact[T], v T) {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	f.Set(h.sess, v)
}

// FactOf reads a fact while the scenario runs.
func FactOf[T any](h *H, f *conform.Fact[T]) (T, bool) {
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	return f.Of(h.sess)
}

// Expand replaces the scenario placeholders in a task.
func (h *H) Expand(task []byte) []byte {
	r := strings.NewReplacer(
		"${SCRATCH}", jsonEscape(h.scratch),
		"${WORKSPACE}", jsonEscape(filepath.Join(h.scratch, "workspace")),
		"${SCENARIO}", jsonEscape(h.sc.ID),
		"${NOW}", time.Now().UTC().Format(time.RFC3339),
	)
	return []byte(r.Replace(string(task)))
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// MaxAgentLines bounds the stdout lines of one attempt kept in the transcript; the
// bytes are bounded by the launcher (MaxAgentBytes).
const MaxAgentLines = 20000

// MaxAgentBytes bounds what one scenario keeps of each channel of the agent: its
// stdout (the launcher's cap) and its HTTP requests with their answers (aos).
const MaxAgentBytes = 16 << 20

// MaxStderrLines bounds the stderr lines of one attempt kept in the transcript:
// stderr has its own budget (lines here, bytes in the launcher) and is never
// judged, so logging never costs the agent protocol output.
const MaxStderrLines = 2000

// ErrNoTime is returned by Launch when the scenario deadline has passed (an earlier
// attempt used it up): the agent's doing, not a harness error.
var ErrNoTime = errors.New("the scenario deadline has passed")

// Agent is one launch of the agent under test.
type Agent struct {
	h      *H
	n      int
	conn   agentio.Conn
	att    *conform.Attempt
	killAt time.Time
	// term is a SIGTERM arranged by TerminateAt: at the end of a grace period
	// the implementation under test was given, which grows by the CPU wait the
	// machine's other load caused it meanwhile (TerminateDue).
	term    arrangedTerm
	timeout bool
	steps   []*pendingStep
	// allowanceExtra and deadlineExtra are what the start-up allowance and the
	// deadline grew by: the agent's CPU wait (cpu.go); cpuWaitAtLife is the wait
	// counted when its timers started.
	allowanceExtra, deadlineExtra, cpuWaitAtLife time.Duration
	nextCPUSample                                time.Time  // sampleCPUWait
	cpu                                          cpuReading // starved
	// busyCPU is the CPU time of the agent's processes at the last Busy look.
	busyCPU int64
	// nextIdleCheck and idleSeen follow the start-up: two idle looks in a row end it.
	nextIdleCheck time.Time
	idleSeen      int
	// sent: something was written to the agent's stdin; inputRead is the first
	// look that saw all of it read (zero until then, or where it cannot be told);
	// asleepSinceInput counts the idle looks in a row since, and atWork is the
	// second of them: the agent read its task and waits (it is at work).
	sent             atomic.Bool
	inputRead        time.Time
	asleepSinceInput int
	atWork           time.Time
	wake             chan struct{}                // Wake
	done             func(r *conform.Record) bool // Handler.Done
	out              lineBudget                   // agent stdout lines (MaxAgentLines)
	errs             lineBudget                   // agent stderr lines (MaxStderrLines), a budget of its own
}

// lineBudget counts the lines of one stream kept and dropped.
type lineBudget struct{ kept, dropped int }

// admit reports whether one more line of stream is kept; the first line dropped
// records the stream's truncation event.
func (a *Agent) admit(stream string) bool {
	b, max, event := &a.out, MaxAgentLines, conform.EventOutputTruncated
	if stream == "stderr" {
		b, max, event = &a.errs, MaxStderrLines, conform.EventStderrTruncated
	}
	if b.kept >= max {
		// Bounded memory whatever the agent writes: the rest is counted, not kept.
		b.dropped++
		if b.dropped == 1 {
			a.h.rec.event(a.n, event, conform.Details(conform.KeyKeptLines.Is(max)))
		}
		return false
	}
	b.kept++
	return true
}

// Launch starts attempt number len(Attempts)+1 with extra environment.
func (h *H) Launch(input json.RawMessage, env ...string) (*Agent, error) {
	n := len(h.sess.Attempts) + 1
	if time.Now().After(h.getDeadline()) {
		h.rec.event(n, conform.EventNotStarted, conform.Details(conform.KeyReason.Is("the scenario deadline passed before this attempt")))
		return nil, ErrNoTime
	}
	fullEnv := append(append([]string(nil), h.env...), env...)
	for k, v := range h.sc.Env {
		fullEnv = append(fullEnv, k+"="+v)
	}
	if n > 1 {
		// Each attempt has its own start-up allowance (Alive takes back what it
		// did not use).
		h.moveDeadline(h.allowance())
	}
	att := &conform.Attempt{N: n, Input: input, Start: time.Now()}
	h.sess.Attempts = append(h.sess.Attempts, att)
	conn, err := h.launcher.Launch(h.ctx, agentio.Spec{Dir: h.scratch, Env: fullEnv, Args: h.command, Scale: h.scale})
	if err != nil {
		att.Exit = agentio.Exit{Code: -1, Err: err}
		h.rec.event(n, conform.EventAgentStart, conform.Details(conform.KeyError.Is(err.Error()), conform.KeyCommand.Is(h.command)))
		return nil, Errorf("launch %q: %v", strings.Join(h.command, " "), err)
	}
	att.Start = time.Now()
	h.rec.event(n, conform.EventAgentStart, conform.Details(conform.KeyCommand.Is(h.command), conform.KeyAttempt.Is(n),
		conform.KeyTimeoutScale.Is(h.scale), conform.KeyStartupAllowance.Is(h.allowance().Milliseconds())))
	return &Agent{h: h, n: n, conn: conn, att: att, wake: make(chan struct{}, 1)}, nil
}

// getDeadline is the scenario deadline.
func (h *H) getDeadline() time.Time {
	h.dmu.Lock()
	defer h.dmu.Unlock()
	return h.deadline
}

// moveDeadline moves the scenario deadline by d and returns it.
func (h *H) moveDeadline(d time.Duration) time.Time {
	h.dmu.Lock()
	defer h.dmu.Unlock()
	h.deadline = h.deadline.Add(d)
	return h.deadline
}

// Wake makes the attempt's Run look at its Handler.Monitor again now: another
// goroutine (the engine, acting for another agent) gave it something to do.
func (a *Agent) Wake() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// allowance is the start-up allowance, stretched by --timeout-scale.
func (h *H) allowance() time.Duration { return h.Scale(conform.StartupAllowance) }

// Alive starts the attempt's timers at t, the agent's first sign of life (by says
// which), unless they already run. The scenario deadline moves by the time the
// agent took to start, so that start-up counts against no timing requirement; the
// "timers-start" event writes the origin and the scale into the transcript, where
// the lint step and aoplint read them.
func (a *Agent) Alive(t time.Time, by conform.LifeSign) {
	if !a.att.Alive.IsZero() {
		return
	}
	if lim := a.allowanceEnd(); t.After(lim) {
		t = lim
	}
	if t.Before(a.att.Start) {
		t = a.att.Start
	}
	a.att.Alive, a.att.AliveBy = t, by
	deadline := a.h.moveDeadline(t.Sub(a.att.Start) - a.h.allowance())
	a.cpuWaitAtLife = a.starved()
	a.h.rec.add(conform.Record{From: conform.ActorHarness, Event: conform.EventTimersStart, Attempt: a.n, Time: t, Detail: conform.Details(
		conform.KeyAliveBy.Is(by), conform.KeyStartupMS.Is(t.Sub(a.att.Start).Milliseconds()), conform.KeyTimeoutScale.Is(a.h.scale),
		conform.KeyDeadlineMS.Is(deadline.Sub(t).Milliseconds()),
	)})
	for _, p := range a.steps {
		if p.armed.IsZero() && (p.On == "" || p.On == "start") {
			p.armed = t
		}
	}
}

// Send writes one JSON message to the agent's stdin and records it.
func (a *Agent) Send(msg json.RawMessage) error {
	var buf = make([]byte, 0, len(msg))
	if c, err := Compact(msg); err == nil {
		buf = c
	} else {
		buf = append(buf, msg...)
	}
	a.h.rec.add(conform.Record{From: conform.ActorOrchestrator, Stream: "stdin", Msg: buf, Attempt: a.n})
	if err := a.conn.Send(buf); err != nil {
		a.h.rec.event(a.n, conform.EventSendFailed, conform.Details(conform.KeyError.Is(err.Error())))
		return err
	}
	a.sent.Store(true)
	return nil
}

// SendText writes free text (a prompt of several lines, no JSON message) to the
// agent's stdin and records it as one text record. A final newline is added when
// the text has none.
func (a *Agent) SendText(text string) error {
	text = strings.TrimSuffix(text, "\n")
	a.h.rec.add(conform.Record{From: conform.ActorOrchestrator, Stream: "stdin", Text: &text, Attempt: a.n})
	if err := a.conn.Send([]byte(text)); err != nil {
		a.h.rec.event(a.n, conform.EventSendFailed, conform.Details(conform.KeyError.Is(err.Error())))
		return err
	}
	return nil
}

// sendProbe writes a scenario's deliberately off-protocol message (an unknown
// notification, ...) and records it as a probe: evidence for the sequence rules,
// not a message aoplint judges (docs/transcript-format.md "Probes").
func (a *Agent) sendProbe(msg json.RawMessage) error {
	buf, err := Compact(msg)
	if err != nil {
		buf = msg
	}
	a.h.rec.add(conform.Record{From: conform.ActorOrchestrator, Stream: "stdin", Msg: buf, Attempt: a.n,
		Detail: conform.Details(conform.KeyProbe.Is("a scenario step: tests how the agent copes"))})
	if err := a.conn.Send(buf); err != nil {
		a.h.rec.event(a.n, conform.EventSendFailed, conform.Details(conform.KeyError.Is(err.Error())))
		return err
	}
	a.sent.Store(true)
	return nil
}

// Compact re-encodes a JSON value without insignificant space.
func Compact(b []byte) ([]byte, error) {
	var v json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// CloseInput closes the agent's stdin.
func (a *Agent) CloseInput() {
	if a.att.StdinClosed.IsZero() {
		a.att.StdinClosed = time.Now()
		a.h.rec.event(a.n, conform.EventCloseStdin, conform.Detail{})
		a.conn.CloseInput()
	}
}

// Terminate sends SIGTERM to the agent's group; SIGKILL follows after the grace
// period unless the agent exits.
func (a *Agent) Terminate(reason string) {
	if a.signal(&a.att.Terminated, conform.EventSignal, "SIGTERM", reason) {
		a.conn.Terminate()
		a.StopBy(time.Now().Add(a.h.grace))
	}
}

// StopBy arranges a SIGKILL at t unless the agent has exited by then.
func (a *Agent) StopBy(t time.Time) {
	if a.killAt.IsZero() || t.Before(a.killAt) {
		a.killAt = t
	}
}

// Kill sends SIGKILL to the agent's group.
func (a *Agent) Kill(reason string) {
	if a.signal(&a.att.Killed, conform.EventKill, "SIGKILL", reason) {
		a.conn.Kill()
	}
}

// signal records the first sending of sig (at *sent, and as an event) and
// reports whether this is it: a signal is sent once an attempt.
func (a *Agent) signal(sent *time.Time, ev conform.Event, sig, reason string) bool {
	if !sent.IsZero() {
		return false
	}
	*sent = time.Now()
	a.h.rec.event(a.n, ev, conform.Details(conform.KeySignal.Is(sig), conform.KeyReason.Is(reason)))
	return true
}

// N is the attempt number.
func (a *Agent) N() int { return a.n }

// PID is the process id of the launched program (its process group), 0 when
// the connection cannot tell (in-process).
func (a *Agent) PID() int {
	if p, ok := a.conn.(interface{ Pgid() int }); ok {
		return p.Pgid()
	}
	return 0
}

// Attempt is the attempt's record.
func (a *Agent) Attempt() *conform.Attempt { return a.att }

// Handler is the protocol-specific part of driving one attempt.
type Handler struct {
	// Key names an agent message for step triggers and checks ("" when it has none).
	Key func(r *conform.Record) string
	// OnLine sees every agent line after it was recorded.
	OnLine func(a *Agent, r conform.Record)
	// Act performs protocol actions of steps (cancel, shutdown).
	Act func(a *Agent, st conform.Step) error
	// Monitor runs on every wake-up; it returns when it next wants to run (zero: no
	// need).
	Monitor func(a *Agent, now time.Time) time.Time
	// Extra steps of the driver itself (the aop2 timeout).
	Extra []conform.Step
	// Done reports whether an agent record says its task is done (orchmsg: progress
	// 1 or event:error for the assigned task); it arms the steps "on":"done".
	Done func(r *conform.Record) bool
	// Collect, when set, may hold agent lines back and record several as one
	// (the aop-output report block). It returns the records to add now; at the
	// end it is called once with final set (and a zero record) to flush.
	Collect func(r conform.Record, final bool) []conform.Record
}

type pendingStep struct {
	conform.Step
	armed time.Time
	fired bool
}

// Run drives the attempt until the agent has exited and its output is drained. At
// the scenario deadline the agent is stopped (SIGTERM, then SIGKILL after the grace
// period). It returns an error only when the harness itself fails.
func (a *Agent) Run(hd Handler) error {
	h := a.h
	var steps []*pendingStep
	for _, st := range append(append([]conform.Step(nil), h.sc.Steps...), hd.Extra...) {
		if st.Attempt != 0 && st.Attempt != a.n {
			continue
		}
		// Steps "on start" are armed when the timers start (Alive); steps "on
		// launch" now, when the attempt was started (an action of the orchestrator
		// that must reach every agent, however fast: no timing requirement counts
		// from it).
		p := &pendingStep{Step: st}
		if st.On == "launch" {
			p.armed = a.att.Start
		}
		steps = append(steps, p)
	}
	a.steps = steps
	a.done = hd.Done
	lines := a.conn.Lines()
	done := a.conn.Done()
	exited := false
	var lastOut time.Time // the last stdout line (zero before the first)
	sawMsg := false
	quietFrom := func() time.Time {
		if !lastOut.IsZero() {
			return lastOut
		}
		return a.att.Alive
	}
	for {
		if exited && lines == nil {
			break
		}
		now := time.Now()
		if !exited {
			a.sampleCPUWait(now)
		}
		if !exited && a.att.Alive.IsZero() && !now.Before(a.nextIdleCheck) {
			// Start-up is over when the agent's processes all sleep (it waits on
			// something): from then on it has a short grace for its first output,
			// unless it has read its input (the task): then it is at work.
			a.nextIdleCheck = now.Add(idlePoll)
			if a.inputRead.IsZero() && a.readAllInput() {
				a.inputRead = now
			}
			asleep := a.agentIdle()
			if a.att.Idle.IsZero() {
				if asleep {
					a.idleSeen++
				} else {
					a.idleSeen = 0
				}
				if a.idleSeen >= 2 {
					a.att.Idle = now
				}
			}
			if !a.inputRead.IsZero() && a.atWork.IsZero() {
				// Asleep twice in a row after it read its task: it waits on
				// something while at work, which no grace covers.
				if asleep {
					a.asleepSinceInput++
				} else {
					a.asleepSinceInput = 0
				}
				if a.asleepSinceInput >= 2 {
					a.atWork = now
				}
			}
		}
		// A line already read but not yet handled is the first sign of life: the
		// idle and allowance fallbacks wait until the agent's output is drained.
		pending := len(lines) > 0
		if !exited && !pending && a.att.Alive.IsZero() && !a.atWork.IsZero() {
			a.Alive(a.atWork, conform.LifeIdleAfterInput)
		}
		if !exited && !pending && a.att.Alive.IsZero() && !a.att.Idle.IsZero() && !now.Before(a.att.Idle.Add(h.Scale(conform.FirstOutputGrace))) {
			a.Alive(a.att.Idle.Add(h.Scale(conform.FirstOutputGrace)), conform.LifeIdleAfterStartUp)
		}
		if !exited && !pending && a.att.Alive.IsZero() && !now.Before(a.allowanceEnd()) {
			// The allowance grows by the time the agent waited for a CPU (at most
			// by its own length): a saturated machine is not the agent's slowness.
			if !a.extendAllowance() || !now.Before(a.allowanceEnd()) {
				a.Alive(a.allowanceEnd(), conform.LifeStartupAllowance)
			}
		}
		if !exited {
			for _, p := range steps {
				due := p.armed
				if p.On == "quiet" {
					due = quietFrom()
				}
				if p.fired || due.IsZero() || now.Before(due.Add(p.After.D(h.scale))) {
					continue
				}
				p.fired = true
				if err := a.act(hd, p.Step); err != nil {
					return err
				}
			}
			if !a.timeout && !now.Before(h.getDeadline()) && a.extendDeadline() {
				// The deadline moved by the time the agent waited for a CPU.
				h.rec.event(a.n, conform.EventDeadlineExtended, conform.Details(conform.KeyCPUWaitMS.Is(a.deadlineExtra.Milliseconds()), conform.KeyReason.Is("the agent waited for a CPU (machine load)")))
			}
			if !a.timeout && !now.Before(h.getDeadline()) {
				a.timeout = true
				a.att.Timeout = true
				// What the agent was doing, for whoever reads why a correct agent
				// missed its deadline: its CPU wait (the deadline grew by it) and
				// its threads' states (an uninterruptible wait is not counted).
				d := conform.Details(conform.KeyDeadlineMS.Is(h.sc.Deadline.D(h.scale).Milliseconds()), conform.KeyCountedFrom.Is("the first sign of life"))
				if w := a.waitSinceLife(); w > 0 {
					d.Add(conform.KeyCPUWaitMS.Is(w.Milliseconds()))
				}
				if st := a.deadlineState(); st != "" {
					d.Add(conform.KeyAgentState.Is(st))
				}
				h.rec.event(a.n, conform.EventTimeout, d)
				a.Terminate("scenario deadline")
			}
			if !a.killAt.IsZero() && !now.Before(a.killAt) && a.att.Killed.IsZero() {
				a.Kill("grace period over")
			}
		}
		next := now.Add(time.Hour)
		consider := func(t time.Time) {
			if !t.IsZero() && t.Before(next) {
				next = t
			}
		}
		if !exited {
			for _, p := range steps {
				if p.fired {
					continue
				}
				if p.On == "quiet" {
					if q := quietFrom(); !q.IsZero() {
						consider(q.Add(p.After.D(h.scale)))
					}
				} else if !p.armed.IsZero() {
					consider(p.armed.Add(p.After.D(h.scale)))
				}
			}
			if !a.timeout {
				consider(h.getDeadline())
			}
			if a.att.Alive.IsZero() {
				consider(a.allowanceEnd())
				consider(a.nextIdleCheck)
				if !a.att.Idle.IsZero() {
					consider(a.att.Idle.Add(h.Scale(conform.FirstOutputGrace)))
				}
			}
			if hd.Monitor != nil {
				// First: the monitor may stop the agent (Terminate arranges the
				// SIGKILL, considered next).
				consider(hd.Monitor(a, now))
			}
			if a.att.Killed.IsZero() {
				consider(a.killAt)
			}
		}
		wait := next.Sub(now)
		if wait < 0 {
			wait = 0
		}
		timer := time.NewTimer(wait)
		select {
		case <-a.wake:
			timer.Stop()
		case r := <-h.side:
			timer.Stop()
			a.Alive(r.Time, conform.LifeFirstRequest)
			a.arm(steps, &sawMsg, r)
		case l, ok := <-lines:
			timer.Stop()
			if !ok {
				lines = nil
				continue
			}
			if !a.admit(l.Stream) {
				continue
			}
			r := lineRecord(l, a.n)
			if hd.Key != nil && (r.Msg != nil || (r.Text != nil && l.Stream == "stdout")) {
				r.Key = hd.Key(&r)
			}
			if l.Stream == "stdout" {
				lastOut = r.Time
				a.Alive(r.Time, conform.LifeFirstOutput)
			}
			recs := []conform.Record{r}
			if hd.Collect != nil {
				recs = hd.Collect(r, false)
			}
			for _, r := range recs {
				a.deliver(hd, steps, &sawMsg, r)
			}
			if l.Truncated {
				h.rec.event(a.n, conform.EventLineTruncated, conform.Details(conform.KeyKeptBytes.Is(int64(len(l.Data)))))
			}
		case <-done:
			timer.Stop()
			exited = true
			done = nil
			a.att.Gone = time.Now()
		case <-timer.C:
			// The harness's own lateness: how late this timer fired.
			if slip := time.Since(now.Add(wait)); slip > a.att.Slip {
				a.att.Slip = slip
			}
		case <-h.ctx.Done():
			timer.Stop()
			a.Kill("harness interrupted")
			<-a.conn.Done()
			return Error{h.ctx.Err()}
		}
	}
	if hd.Collect != nil {
		for _, r := range hd.Collect(conform.Record{}, true) {
			a.deliver(hd, steps, &sawMsg, r)
		}
	}
	return a.finish()
}

// deliver records one agent record, arms the steps it triggers and hands it to
// the handler.
func (a *Agent) deliver(hd Handler, steps []*pendingStep, sawMsg *bool, r conform.Record) {
	r = a.h.rec.add(r)
	a.arm(steps, sawMsg, r)
	if hd.OnLine != nil {
		hd.OnLine(a, r)
	}
}

// arm starts the timers of the steps a record triggers.
func (a *Agent) arm(steps []*pendingStep, sawMsg *bool, r conform.Record) {
	if r.Key != "" {
		for _, p := range steps {
			if !p.armed.IsZero() {
				continue
			}
			if (p.On == "first-message" && !*sawMsg) || p.On == "message:"+r.Key || (p.On == "done" && a.done != nil && a.done(&r)) {
				p.armed = r.Time
			}
		}
		*sawMsg = true
	}
}

// finish records how the attempt ended.
func (a *Agent) finish() error {
	h := a.h
	a.att.End = time.Now()
	a.att.Exit = a.conn.Exit()
	if pc, ok := a.conn.(interface{ Discarded() (int64, bool) }); ok {
		a.att.Discarded, a.att.Capped = pc.Discarded()
	}
	detail := conform.Details(conform.KeyExitCode.Is(a.att.Exit.Code))
	if a.att.Exit.Signal != "" {
		detail.Add(conform.KeySignal.Is(a.att.Exit.Signal))
	}
	if a.att.Discarded > 0 {
		detail.Add(conform.KeyDiscardedBytes.Is(a.att.Discarded))
	}
	if a.att.Capped {
		detail.Add(conform.KeyOutputCapped.Is(true))
	}
	if a.out.dropped > 0 {
		detail.Add(conform.KeyDroppedLines.Is(a.out.dropped))
	}
	if a.errs.dropped > 0 {
		detail.Add(conform.KeyDroppedStderr.Is(a.errs.dropped))
	}
	if pc, ok := a.conn.(interface{ StderrCapped() bool }); ok && pc.StderrCapped() {
		detail.Add(conform.KeyStderrCapped.Is(true))
	}
	detail.Add(conform.KeyHarnessSlipMS.Is(a.att.Slip.Milliseconds()))
	if a.att.CPUWait > 0 {
		detail.Add(conform.KeyCPUWaitMS.Is(a.att.CPUWait.Milliseconds()))
	}
	h.rec.event(a.n, conform.EventAgentExit, detail)
	a.containment()
	if a.att.Exit.Err != nil && !errors.Is(a.att.Exit.Err, os.ErrProcessDone) {
		var ee interface{ ExitCode() int }
		if !errors.As(a.att.Exit.Err, &ee) {
			return Errorf("waiting for the agent: %v", a.att.Exit.Err)
		}
	}
	return nil
}

func (a *Agent) act(hd Handler, st conform.Step) error {
	switch st.Do {
	case "terminate":
		a.Terminate(orDefault(st.Reason, "scenario step"))
	case "kill":
		a.Kill(orDefault(st.Reason, "scenario step"))
	case "close-stdin":
		a.CloseInput()
	case "send":
		a.sendProbe(a.h.Expand(st.Message))
	default:
		if hd.Act == nil {
			return Errorf("scenario %s: step %q does not apply to protocol %s", a.h.sc.ID, st.Do, a.h.sc.Protocol)
		}
		return hd.Act(a, st)
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// idlePoll is how often the harness looks whether a silent agent's start-up is
// over: whether its processes all sleep, and whether it has read its input.
const idlePoll = 100 * time.Millisecond

// readAllInput reports whether the agent has read everything written to its stdin
// so far (and something was): a connection that can tell (agentio.ProcessConn:
// FIONREAD on the pipe) says so. An agent that read its task has started its work.
func (a *Agent) readAllInput() bool {
	if !a.sent.Load() {
		return false
	}
	in, ok := a.conn.(interface{ InputPending() (int, bool) })
	if !ok {
		return false
	}
	n, known := in.InputPending()
	return known && n == 0
}

// allowanceEnd is when the start-up allowance runs out.
func (a *Agent) allowanceEnd() time.Time {
	return a.att.Start.Add(a.h.allowance() + a.allowanceExtra)
}

// extendAllowance grows the allowance to the agent's CPU wait so far (at most one
// more allowance); it reports whether it grew.
func (a *Agent) extendAllowance() bool {
	w := min(a.starved(), a.h.allowance())
	if w <= a.allowanceExtra+10*time.Millisecond {
		return false
	}
	a.allowanceExtra = w
	return true
}

// extendDeadline moves the scenario deadline by the agent's CPU wait since its
// timers started (at most one more deadline); it reports whether it moved.
func (a *Agent) extendDeadline() bool {
	w := min(a.waitSinceLife(), a.h.sc.Deadline.D(a.h.scale))
	if w <= a.deadlineExtra+50*time.Millisecond {
		return false
	}
	a.h.moveDeadline(w - a.deadlineExtra)
	a.deadlineExtra = w
	return true
}

// ScaleFactor is --timeout-scale.
func (h *H) ScaleFactor() float64 { return h.scale }

// Grace is the time between SIGTERM and SIGKILL (the scenario's, or 2 s), scaled.
func (h *H) Grace() time.Duration { return h.grace }

// H is the harness of the attempt.
func (a *Agent) H() *H { return a.h }

// arrangedTerm is a SIGTERM arranged at the end of a grace period.
type arrangedTerm struct {
	set, at time.Time     // when it was arranged, and for when
	wait    time.Duration // the agent's excused CPU wait when it was arranged (starved)
	extra   time.Duration // what the grace period grew by
}

// TerminateAt arranges a SIGTERM at t, the end of a grace period the agent was
// given from now (orchmsg: a shutdown's; aop-output: the linger after
// [AOP:END]); the protocol's Monitor fires it with TerminateDue.
func (a *Agent) TerminateAt(t time.Time) {
	a.term = arrangedTerm{set: time.Now(), at: t, wait: a.starved()}
}

// TerminateDue is when a SIGTERM arranged by TerminateAt is due (zero: none, or
// the agent was already terminated). When it comes due, the grace period grows
// by the CPU wait the machine's other load caused the agent since it was
// arranged (at most by its own length), as the scenario deadline does, and a
// deadline-extended event records it: a correct agent starved of CPU while it
// exits is not stopped for the machine's slowness, and an agent the harness
// stops at the end has no margin to excuse (it did not exit by itself). With
// Config.SpecTimers it never grows.
func (a *Agent) TerminateDue() time.Time {
	t := &a.term
	if !a.att.Terminated.IsZero() || t.at.IsZero() {
		return time.Time{}
	}
	if due := t.at.Add(t.extra); a.h.specTimers || time.Now().Before(due) {
		return due
	}
	w := min(a.starved()-t.wait, t.at.Sub(t.set))
	if w > t.extra+10*time.Millisecond {
		t.extra = w
		a.h.rec.event(a.n, conform.EventDeadlineExtended, conform.Details(conform.KeyCPUWaitMS.Is(w.Milliseconds()), conform.KeyReason.Is("the agent waited for a CPU (machine load): its grace period grew")))
	}
	return t.at.Add(t.extra)
}

// Inside resolves p (absolute, or relative to the scratch directory) and reports
// whether it lies inside the scratch directory.
func (h *H) Inside(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(h.Scratch(), p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(h.Scratch(), p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return p, true
}

// Launcher is the launcher of the agent's attempts (an engine serving the agent
// over HTTP serves an in-process agent in memory).
func (h *H) Launcher() agentio.Launcher { return h.launcher }

// EngineFault is the reference engine's fault to play ("" for none).
func (h *H) EngineFault() string { return h.engineFault }

// Emit writes one protocol message the engine emits (a line, without its newline)
// to Config.Emit, if set. The transcript record is the engine's own (Record).
func (h *H) Emit(line []byte) {
	if h.emit == nil {
		return
	}
	h.emu.Lock()
	defer h.emu.Unlock()
	h.emit.Write(append(append([]byte(nil), line...), '\n'))
}
