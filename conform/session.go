package conform

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/aopkit/aopkit/internal/transcript"
)

// TranscriptVersion is the value of the "aopkit" key of every transcript record.
const TranscriptVersion = transcript.Version

// TimeFormat is how transcript records write `at`.
const TimeFormat = transcript.TimeFormat

// StartupAllowance is how long an agent may take to show its first sign of life
// (before --timeout-scale). It belongs to no timing requirement: a scenario's
// timers (steps "on start", heartbeat and TTL limits, the effective timeout, the
// deadline) start at the first sign of life, or when the allowance runs out
// (docs/aopconform.md "Time model", docs/bindings.md).
const StartupAllowance = 10 * time.Second

// FirstOutputGrace is how long (× --timeout-scale) an agent whose start-up is over
// (all its processes asleep, as /proc shows) may stay silent before its timers
// start anyway: an agent may wait a little before its first output, but a silent
// agent that sleeps through its work is timed.
const FirstOutputGrace = 2500 * time.Millisecond

// Record is one transcript/1 line (docs/transcript-format.md).
type Record struct {
	Aopkit   string          `json:"aopkit"`
	Seq      int             `json:"seq"`
	At       string          `json:"at"`
	From     Actor           `json:"from"` // who acted: agent, orchestrator, harness
	Protocol string          `json:"protocol,omitempty"`
	Stream   string          `json:"stream,omitempty"`
	Session  string          `json:"session,omitempty"`
	Msg      json.RawMessage `json:"msg,omitempty"`
	Text     *string         `json:"text,omitempty"`
	Event    Event           `json:"event,omitempty"`
	Detail   Detail          `json:"detail,omitzero"`

	// Not written to the transcript:
	Time      time.Time `json:"-"`
	Attempt   int       `json:"-"` // 1-based launch the record belongs to
	Key       string    `json:"-"` // message key: "EVENT/HEARTBEAT", "request:ask-user", "completion.report", ...
	Truncated bool      `json:"-"`
}

// IsAgentMsg reports whether the record is a JSON message from the agent. Files the
// agent wrote (aof run_heartbeat.json, stream "file:...") are evidence, not
// messages.
func (r *Record) IsAgentMsg() bool {
	return r.From == ActorAgent && len(r.Msg) > 0 && !strings.HasPrefix(r.Stream, "file:")
}

// Decode unmarshals the record's message into v.
func (r *Record) Decode(v any) error { return json.Unmarshal(r.Msg, v) }

// Obj returns the message as a map (nil when it is not an object).
func (r *Record) Obj() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Msg, &m) != nil {
		return nil
	}
	return m
}

// Attempt is one launch of the agent within a scenario.
type Attempt struct {
	N     int
	Start time.Time
	// Alive is when the scenario's timers started for this attempt: the agent's
	// first sign of life (its first output line, an HTTP request, for aof its first
	// heartbeat write) or, when it stayed silent, the end of the start-up allowance
	// (StartupAllowance × --timeout-scale after Start). No timing requirement
	// covers the time between Start and Alive.
	Alive time.Time
	// AliveBy says what set Alive.
	AliveBy LifeSign
	// Idle is when the harness saw the silent agent's processes all asleep (its
	// start-up over, waiting on something); Alive follows FirstOutputGrace later
	// unless the agent writes first.
	Idle time.Time
	End  time.Time
	// Gone is when the harness saw the process end (before the rest of its
	// output was drained): after it, nothing that happens to the processes it
	// started is its doing (the supervisor's clean-up kills them).
	Gone    time.Time
	Exit    Exit
	Input   json.RawMessage // the task as sent
	Timeout bool            // the scenario deadline hit this attempt
	// Decided is when the harness stopped an orchestrator under test that was
	// still running once the scenario was decided (every agent it started had
	// ended, nothing more happened): a daemon, stopped through no fault of its own.
	Decided time.Time
	// When the harness did things to it (zero when it did not).
	StdinClosed time.Time
	Terminated  time.Time
	Killed      time.Time
	ShutdownAt  time.Time
	ShutdownFor time.Duration // the grace period announced with notify:shutdown
	CancelledAt time.Time
	// Discarded output bytes and whether the output cap was hit.
	Discarded int64
	Capped    bool
	// Slip is the harness's own lateness: the most any of its timers fired late
	// while the attempt ran (a loaded machine). A timing verdict within the slip
	// of its limit cannot be trusted.
	Slip time.Duration
	// CPUWait is the CPU time the machine's other load took from the agent's
	// processes after its timers started, as wall time (harness excusedWait:
	// never more than they waited on a CPU run queue, nothing for a wait the
	// agent's own load caused); the last reading before it exited, zero where
	// /proc cannot tell and in process.
	CPUWait time.Duration
}

// Origin is when the attempt's timers start: Alive, or Start when Alive was never
// set (the attempt ended before showing life and before the allowance ran out).
func (a *Attempt) Origin() time.Time {
	if a.Alive.IsZero() {
		return a.Start
	}
	return a.Alive
}

// EndedCleanly reports whether the attempt ended by itself with exit code 0, before
// any scenario deadline (it may have been asked to, by a protocol message or a
// scripted SIGTERM it obeyed).
func (a *Attempt) EndedCleanly() bool {
	return a.Exited() && a.Exit.Code == 0 && !a.Timeout && a.Killed.IsZero()
}

// Stopped reports whether the harness signalled the attempt (SIGTERM or
// SIGKILL: a scripted step, the scenario deadline, the end of a grace period,
// clean-up). However it then ended, when it ended was the harness's doing.
func (a *Attempt) Stopped() bool { return !a.Terminated.IsZero() || !a.Killed.IsZero() }

// Exited reports whether the agent ended by itself (not by a signal from the harness).
func (a *Attempt) Exited() bool { return a.Exit.Signal == "" && a.Exit.Err == nil }

// LintFinding is one linter diagnostic on an agent record.
type LintFinding struct {
	Seq      int    `json:"seq"`
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Pointer  string `json:"pointer,omitempty"`
	Spec     string `json:"spec,omitempty"`
	// Measured and Limit are a timing rule's measurement and limit (zero
	// Limit: none), for the margin of the check that takes the finding.
	Measured time.Duration `json:"-"`
	Limit    time.Duration `json:"-"`
}

// Session is everything recorded while one scenario ran; checks judge it.
type Session struct {
	Scenario *Scenario
	Scale    float64
	Scratch  string // the scratch directory (removed after the run unless kept)
	Records  []Record
	Attempts []*Attempt
	Lint     []LintFinding
	// facts are observations of the orchestrator side that are not messages: the aos
	// tools the agent executed, the aof task's final status, the files found, ...
	// (Fact: typed keys).
	facts map[any]any
}

// Attempt returns attempt n (1-based) or nil.
func (s *Session) Attempt(n int) *Attempt {
	if n < 1 || n > len(s.Attempts) {
		return nil
	}
	return s.Attempts[n-1]
}

// Last is the last attempt (nil when none started).
func (s *Session) Last() *Attempt {
	if len(s.Attempts) == 0 {
		return nil
	}
	return s.Attempts[len(s.Attempts)-1]
}

// AgentMsgs returns the agent's JSON messages of attempt n (0 = all).
func (s *Session) AgentMsgs(n int) []*Record {
	var out []*Record
	for i := range s.Records {
		r := &s.Records[i]
		if r.IsAgentMsg() && (n == 0 || r.Attempt == n) {
			out = append(out, r)
		}
	}
	return out
}

// AgentLines returns every stdout/stderr record of the agent in attempt n (0 = all).
func (s *Session) AgentLines(n int, stream string) []*Record {
	var out []*Record
	for i := range s.Records {
		r := &s.Records[i]
		if r.From == ActorAgent && (stream == "" || r.Stream == stream) && (n == 0 || r.Attempt == n) {
			out = append(out, r)
		}
	}
	return out
}

// ByKey returns the agent's messages with key in attempt n (0 = all).
func (s *Session) ByKey(n int, key string) []*Record {
	var out []*Record
	for _, r := range s.AgentMsgs(n) {
		if r.Key == key {
			out = append(out, r)
		}
	}
	return out
}

// Events returns the harness events named e, in order.
func (s *Session) Events(e Event) []*Record {
	var out []*Record
	for i := range s.Records {
		if r := &s.Records[i]; r.From == ActorHarness && r.Event == e {
			out = append(out, r)
		}
	}
	return out
}

// Result is the verdict of one check in one scenario.
type Result struct {
	Check       string  `json:"check"`
	Scenario    string  `json:"scenario"`
	Protocol    string  `json:"protocol"`
	Family      string  `json:"family"`
	Tier        Tier    `json:"tier"`
	Level       Level   `json:"level"`
	Spec        string  `json:"spec"`
	Requirement string  `json:"requirement"`
	Verdict     Verdict `json:"verdict"`
	Message     string  `json:"message,omitempty"`
	Expected    string  `json:"expected,omitempty"`
	Actual      string  `json:"actual,omitempty"`
	// Lint holds the lint errors that belong to this check.
	Lint []LintFinding `json:"lint,omitempty"`
	// Evidence lists the transcript records (seq) the verdict rests on.
	Evidence []int `json:"evidence,omitempty"`
	// Rerun is the command line that reruns just this check.
	Rerun string `json:"rerun,omitempty"`
	// Runs is how often the scenario ran (--repeat, or a confirmation run after a
	// failed timing check) and Passed how often this check passed; both are 0 for
	// a single run.
	Runs   int `json:"runs,omitempty"`
	Passed int `json:"passed_runs,omitempty"`
	// SlipMS is the harness's largest timer lateness in the scenario, in ms.
	SlipMS int64 `json:"harness_slip_ms,omitempty"`
	// EscalatedScale is the timeout scale of the last run at a slower timescale
	// (ScenarioRun.Escalations) that judged this check again: a FAIL confirmed
	// there, or a HARNESS-ERROR it could not resolve. Runs and Passed count only
	// the runs at the requested scale.
	EscalatedScale float64 `json:"escalated_scale,omitempty"`
	// Sent is Outcome.Sent: a failure on what the agent sent, which neither a
	// deadline nor timer slip can explain (not in reports).
	Sent bool `json:"-"`
	// DependsOn is the check whose failure left this one NOT-JUDGED.
	DependsOn string `json:"depends_on,omitempty"`
	// MeasuredMS and LimitMS are a timing check's measurement and limit, in ms, and
	// MarginMS their difference (measured − limit: positive = over the limit by
	// that much). Of a merged result (FLAKY, a failure in several runs): the failing
	// run's.
	MeasuredMS int64  `json:"measured_ms,omitempty"`
	LimitMS    int64  `json:"limit_ms,omitempty"`
	MarginMS   *int64 `json:"margin_ms,omitempty"`
	// CPUWaitMS is, on a failure that may rest on timing, how long the
	// implementation's processes waited on a CPU run queue in that run after
	// their timers started (Attempt.CPUWait, the most of any attempt): a miss no
	// larger than it may be the machine's delay (docs/aopconform.md "Verdicts").
	CPUWaitMS int64 `json:"cpu_wait_ms,omitempty"`
}

// SetTiming copies an outcome's measurement and limit into the result.
func (r *Result) SetTiming(o Outcome) {
	if o.Limit <= 0 {
		return
	}
	measured, limit := o.Measured.Round(time.Millisecond).Milliseconds(), o.Limit.Round(time.Millisecond).Milliseconds()
	m := measured - limit
	r.MeasuredMS, r.LimitMS, r.MarginMS = measured, limit, &m
}

// ScenarioRun is how one scenario went.
type ScenarioRun struct {
	ID         string        `json:"id"`
	Title      string        `json:"title"`
	Protocol   string        `json:"protocol"`
	Family     string        `json:"family"`
	Source     string        `json:"source,omitempty"`
	Transcript string        `json:"transcript,omitempty"` // path of the JSONL transcript
	Duration   time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
	Attempts   []AttemptInfo `json:"attempts"`
	// HarnessError is set when the harness itself failed: the scenario's checks are
	// HARNESS-ERROR and the run exits 2.
	HarnessError string `json:"harness_error,omitempty"`
	Skipped      bool   `json:"skipped,omitempty"` // every check deselected
	// Spoke: the agent sent at least one protocol message in this scenario.
	Spoke bool `json:"spoke"`
	// SlipMS is the harness's largest timer lateness in the (first) run, in ms.
	SlipMS int64 `json:"harness_slip_ms"`
	// CPUWaitMS is the implementation's largest CPU run-queue wait of an
	// attempt in the (first) run, in ms (Attempt.CPUWait; 0 where unknown).
	CPUWaitMS int64 `json:"cpu_wait_ms,omitempty"`
	// Confirmed: a failed timing check made the harness run the scenario again.
	Confirmed bool `json:"confirmed,omitempty"`
	// Escalations are the runs at a slower timescale that followed when a check
	// failed in every run while the harness's own timers were late beyond their
	// tolerance (docs/aopconform.md "Time model").
	Escalations []Escalation `json:"escalations,omitempty"`
	// Records is the transcript, kept for the HTML report (not in JSON). Once the
	// scenario is judged the runner keeps only its first KeptRecords records (the
	// HTML report shows no more) and those beyond that the report's containment
	// line reads; RecordCount is how many the transcript has, and TranscriptID
	// its digest, taken before.
	Records      []Record      `json:"-"`
	RecordCount  int           `json:"-"`
	TranscriptID *TranscriptID `json:"-"`
}

// Escalation is one run of a scenario at a slower timescale than the one asked
// for: every run at --timeout-scale failed a check while the harness's own
// timers were late beyond their tolerance, and this run tells the agent's failure
// from the machine's slowness.
type Escalation struct {
	// Run is the run's number: its transcript is <scenario id>.run<Run>.jsonl.
	Run int `json:"run"`
	// TimeoutScale is the scale it was played at (--timeout-scale × the factor).
	TimeoutScale float64 `json:"timeout_scale"`
	// SlipMS is the harness's largest timer lateness in it, in ms.
	SlipMS     int64  `json:"harness_slip_ms"`
	Transcript string `json:"transcript,omitempty"`
	// HarnessError is set when the harness could not play it.
	HarnessError string `json:"harness_error,omitempty"`
}

// TimedOut reports whether some attempt hit the scenario deadline.
func (r *ScenarioRun) TimedOut() bool {
	for _, a := range r.Attempts {
		if a.TimedOut {
			return true
		}
	}
	return false
}

// AttemptInfo summarises one launch for reports.
type AttemptInfo struct {
	N        int    `json:"n"`
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Error    string `json:"error,omitempty"`
}
