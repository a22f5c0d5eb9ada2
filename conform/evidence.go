package conform

import (
	"bytes"
	"encoding/json"
	"sort"
)

// This file is the contract between the code that records a scenario (the
// harness, the engines, the orchestrator side) and the code that judges it (the
// checks, the runner, the reports): who acted (Actor), what happened (Event) and
// the typed values of a record's detail (Key). A misspelled actor, event or key
// is a compile error, not a silent NOT-TESTED.

// Actor says who acted in a record: its "from" in the transcript.
type Actor string

const (
	// ActorAgent is the agent: the implementation under test (agent side), or the
	// agent the orchestrator under test started.
	ActorAgent Actor = "agent"
	// ActorOrchestrator is the orchestrator: the harness's engine speaking to
	// the agent under test, or the orchestrator under test.
	ActorOrchestrator Actor = "orchestrator"
	// ActorHarness is aopconform itself: its deadline, its clean-up, a scenario
	// step, the supervisor of the processes. Its events say which (Event, and the
	// detail's KeyBy or KeyReason).
	ActorHarness Actor = "harness"
)

// By says whose act a harness record of the orchestrator side shows (the
// detail's KeyBy): the orchestrator under test's, or one of the harness's own,
// which is never evidence for or against the orchestrator (conform/orchside
// attributes them).
type By string

const (
	// ByUnderTest: the orchestrator under test did it.
	ByUnderTest By = "the orchestrator under test"
	// ByHarnessTerm: the harness signalled the orchestrator's process group
	// (the scenario decided); ByDeadlineTerm: at the scenario deadline.
	ByHarnessTerm  By = "the harness: SIGTERM to the orchestrator's process group"
	ByDeadlineTerm By = ByHarnessTerm + " at the scenario deadline"
	ByHarnessKill  By = "the harness: SIGKILL to the orchestrator's process group"
	// ByCleanUp: the supervisor's clean-up of what the orchestrator left running.
	ByCleanUp By = "the harness: clean-up after the orchestrator exited"
)

// LifeSign says what started an attempt's timers (Attempt.AliveBy; the
// "timers-start" event's KeyAliveBy): the agent's first sign of life, or the
// harness's allowance for a silent one.
type LifeSign string

const (
	LifeFirstOutput         LifeSign = "first-output"
	LifeFirstHeartbeatWrite LifeSign = "first-heartbeat-write" // aof: run_heartbeat.json
	LifeFirstRequest        LifeSign = "first-request"         // aos: an HTTP request
	LifeIdleAfterInput      LifeSign = "idle-after-input"
	LifeIdleAfterStartUp    LifeSign = "idle-after-start-up"
	LifeStartupAllowance    LifeSign = "startup-allowance"
)

// Event names a harness record.
type Event string

// The events of transcript/1 (docs/transcript-format.md).
const (
	EventScenarioStart     Event = "scenario-start"
	EventScenarioEnd       Event = "scenario-end"
	EventScenarioDecided   Event = "scenario-decided"
	EventNotStarted        Event = "not-started"
	EventAgentStart        Event = "agent-start"
	EventAgentExit         Event = "agent-exit"
	EventTimersStart       Event = "timers-start"
	EventSendFailed        Event = "send-failed"
	EventCloseStdin        Event = "close-stdin"
	EventSignal            Event = "signal"
	EventKill              Event = "kill"
	EventDeadlineExtended  Event = "deadline-extended"
	EventTimeout           Event = "timeout"
	EventLineTruncated     Event = "line-truncated"
	EventOutputTruncated   Event = "output-truncated"
	EventStderrTruncated   Event = "stderr-truncated"
	EventHTTPTruncated     Event = "http-truncated"
	EventLaunchesTruncated Event = "launches-truncated"
	// EventContainment records, per attempt, how the implementation was
	// confined: KeyMode ("landlock-abi-N", or "none: REASON"), KeyMeasures
	// ("enforced WHAT", "missing WHAT: WHY") and KeyWritesOutside (paths).
	// conform/agentio decides them.
	EventContainment Event = "containment"
	// EventFileRefused records a file the agent controls (a heartbeat, a run
	// result, a task or state file, a details file) that the harness refused to
	// read: KeyFile (relative to the scratch directory) and KeyReason (not a
	// regular file (a named pipe), larger than 4 MiB, a symbolic link leading out
	// of the directory it belongs to). The engines record it (harness.H.Refused).
	EventFileRefused      Event = "file-refused"
	EventOrchestratorGone Event = "orchestrator-gone"
	// Engine events: aop2.
	EventEngineOutcome    Event = "engine-outcome"
	EventBackoff          Event = "backoff"
	EventTaskTimeout      Event = "task-timeout"
	EventHeartbeatFailure Event = "heartbeat-failure"
	EventSnapshotStrategy Event = "snapshot-strategy"
	// aof.
	EventDispatchChild      Event = "dispatch-child"
	EventDelegationRejected Event = "delegation-rejected"
	EventStaleHeartbeat     Event = "stale-heartbeat"
	// aos and orchmsg: a request the engine does not answer.
	EventWithheld Event = "withheld"
	// orchmsg: what the orchestrator decided.
	EventDecision Event = "decision"
	// aop-output: what the parent took of the report.
	EventReportTaken Event = "report-taken"
	// aos orchestrator side: the guardian the orchestrator must start.
	EventGuardianListening    Event = "guardian-listening"
	EventGuardianNotListening Event = "guardian-not-listening"
)

// Detail is the detail of a record: values under the keys this file declares
// (Key), written as one JSON object with its keys sorted.
type Detail struct{ m map[string]any }

// Key is a typed key of a record's detail. Keys are declared in this file only:
// two keys may share a JSON name when their events give it different types.
type Key[T any] struct{ name string }

func key[T any](name string) Key[T] { return Key[T]{name} }

// Name is the key's JSON name.
func (k Key[T]) Name() string { return k.name }

// Is is the field that sets the key to v.
func (k Key[T]) Is(v T) Field { return Field{k.name, v} }

// Of returns the key's value in d (false when d does not set it, or sets it to
// a value of another type).
func (k Key[T]) Of(d Detail) (T, bool) {
	var zero T
	v, ok := d.m[k.name]
	if !ok {
		return zero, false
	}
	if t, ok := v.(T); ok {
		return t, true
	}
	// A detail decoded from JSON holds float64, []any, map[string]any.
	b, err := json.Marshal(v)
	if err != nil {
		return zero, false
	}
	var t T
	if json.Unmarshal(b, &t) != nil {
		return zero, false
	}
	return t, true
}

// Get returns the key's value in d, or T's zero value.
func (k Key[T]) Get(d Detail) T {
	v, _ := k.Of(d)
	return v
}

// Field is one key and its value.
type Field struct {
	name string
	v    any
}

// Details builds a detail of fields (a later field replaces an earlier one of
// the same name).
func Details(fs ...Field) Detail {
	var d Detail
	d.Add(fs...)
	return d
}

// Add sets fields in d.
func (d *Detail) Add(fs ...Field) {
	if len(fs) == 0 {
		return
	}
	if d.m == nil {
		d.m = make(map[string]any, len(fs))
	}
	for _, f := range fs {
		d.m[f.name] = f.v
	}
}

// IsZero reports whether d has no field (a record then has no "detail").
func (d Detail) IsZero() bool { return len(d.m) == 0 }

// Names returns d's keys, sorted.
func (d Detail) Names() []string {
	out := make([]string, 0, len(d.m))
	for k := range d.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Value returns the value under a key name, untyped: for the reports, which
// show every key alike.
func (d Detail) Value(name string) any { return d.m[name] }

// MarshalJSON writes d as a JSON object, keys sorted.
func (d Detail) MarshalJSON() ([]byte, error) {
	if d.m == nil {
		return []byte("null"), nil
	}
	return json.Marshal(d.m)
}

// UnmarshalJSON reads a detail back from a transcript.
func (d *Detail) UnmarshalJSON(b []byte) error {
	d.m = nil
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	return json.Unmarshal(b, &d.m)
}

// The keys of a record's detail.
var (
	KeyAction           = key[string]("action")
	KeyAddress          = key[string]("address")
	KeyAfterMS          = key[int64]("after_ms")
	KeyAgent            = key[string]("agent")
	KeyAgentState       = key[string]("agent_state") // timeout: what the agent's threads were doing (harness processStates)
	KeyAsked            = key[string]("asked")
	KeyAttempt          = key[int]("attempt")
	KeyAutoTerminate    = key[bool]("auto_terminate")
	KeyAliveBy          = key[LifeSign]("by") // timers-start: what started the timers (Attempt.AliveBy)
	KeyBy               = key[By]("by")
	KeyCode             = key[string]("code")
	KeyCodes            = key[[]string]("codes")
	KeyCommand          = key[[]string]("command")
	KeyContentType      = key[string]("content_type")
	KeyCountedFrom      = key[string]("counted_from")
	KeyCPUWaitMS        = key[int64]("cpu_wait_ms")
	KeyCut              = key[bool]("cut")
	KeyCutOff           = key[bool]("cut_off")
	KeyDeadlineMS       = key[int64]("deadline_ms")
	KeyDecision         = key[string]("decision")
	KeyDiscardedBytes   = key[int64]("discarded_bytes")
	KeyDropped          = key[int]("dropped")
	KeyDroppedLines     = key[int]("dropped_lines")
	KeyDroppedStderr    = key[int]("dropped_stderr_lines")
	KeyError            = key[string]("error")
	KeyExitCode         = key[int]("code")
	KeyExpiresAt        = key[string]("expiresAt")
	KeyFile             = key[string]("file")
	KeyFinalSignal      = key[string]("final_signal")
	KeyFrom             = key[string]("from")
	KeyHarnessSlipMS    = key[int64]("harness_slip_ms")
	KeyID               = key[any]("id")
	KeyKept             = key[int]("kept")
	KeyKeptBytes        = key[int64]("kept_bytes")
	KeyKeptChars        = key[int]("kept_chars")
	KeyKeptLines        = key[int]("kept_lines")
	KeyKeptRecords      = key[int]("kept_records")
	KeyLastHeartbeat    = key[string]("lastHeartbeat")
	KeyLaunch           = key[int]("launch")
	KeyLaunchedBy       = key[By]("launched_by")
	KeyLaunches         = key[int]("launches")
	KeyLimit            = key[int]("limit")
	KeyLimitMS          = key[int64]("limit_ms")
	KeyLimitPerSecond   = key[int]("limit_per_second")
	KeyLines            = key[int]("lines")
	KeyMaxBytes         = key[int]("max_bytes")
	KeyMaxRecords       = key[int]("max_records")
	KeyMeasures         = key[[]string]("measures")
	KeyMethod           = key[string]("method")
	KeyMissedForMS      = key[int64]("missed_for_ms")
	KeyMode             = key[string]("mode")
	KeyNote             = key[string]("note")
	KeyOutputCapped     = key[bool]("output_capped")
	KeyPath             = key[string]("path")
	KeyPID              = key[int]("pid")
	KeyProbe            = key[string]("probe")
	KeyReason           = key[string]("reason")
	KeyReport           = key[string]("report")
	KeyRequestSeq       = key[int]("request_seq")
	KeyRetry            = key[int]("retry")
	KeyScenario         = key[string]("scenario")
	KeyScripted         = key[string]("scripted")
	KeySeenBy           = key[string]("seen_by")
	KeySeq              = key[int]("seq")
	KeySettleMS         = key[int64]("settle_ms")
	KeySignal           = key[string]("signal")
	KeySilentMS         = key[int64]("silent_ms")
	KeyStartupAllowance = key[int64]("startup_allowance_ms")
	KeyStartupMS        = key[int64]("startup_ms")
	KeyState            = key[string]("state")
	KeyStatus           = key[string]("status")
	KeyStderrCapped     = key[bool]("stderr_capped")
	KeySummaryChars     = key[int]("summary_chars")
	KeyTaskID           = key[string]("taskId")
	KeyTimeoutMS        = key[int64]("timeout_ms")
	KeyTimeoutScale     = key[float64]("timeout_scale")
	KeyTruncated        = key[bool]("truncated")
	KeyType             = key[string]("type")
	KeyUsed             = key[string]("used")
	KeyWaitMS           = key[int64]("wait_ms")
	KeyWritesOutside    = key[[]string]("writes_outside_scratch")
)
