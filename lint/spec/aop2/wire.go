package aop2

import (
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/spec/wire"
)

// The wire messages of the contract: TASK (§2), RESPONSE (§5) and EVENT (§6),
// as typed structs with the spec's member names. DecodeTask, DecodeResponse,
// DecodeEvent and DecodeHeader read one line into them with lint/spec/wire: the
// keys exactly as the linter reads them, a member of another JSON type than the
// spec's left zero (aoplint's AOP2-SCHEMA-001 reports it), a pointer nil for
// "absent, null or of another type". Members a check or the engine does not
// read are not all typed: the schema files (schemas/aop2) are the complete list.

// Header is the version header (§1.1) and message_type (§1.2) every message
// carries.
type Header struct {
	AOPVersion    string `json:"aop_version"`
	SchemaVersion string `json:"schema_version"`
	// ProtocolFamily is nil when absent (or not a string): the header of an
	// EVENT may leave it out.
	ProtocolFamily *string `json:"protocol_family"`
	MessageType    string  `json:"message_type"`
}

// Envelope is what every decoded message keeps besides its typed members: the
// tree it was read from, for the members only a walk finds (extensions keys
// anywhere, §3) and for what is present.
type Envelope struct {
	Header
	root *jsonread.Node
}

// Has reports whether the message has the top-level member key, whatever its
// value, null included (as aoplint's AOP2-ENVELOPE-003 reads "contains").
func (e *Envelope) Has(key string) bool { return e.root.Get(key) != nil }

// HasValue reports whether the top-level member key is present and not null.
func (e *Envelope) HasValue(key string) bool {
	n := e.root.Get(key)
	return n != nil && n.Kind != jsonread.Null
}

// HasString reports whether the top-level member key is a string (the header's
// aop_version may be "" and still be one, §1.3 step 2).
func (e *Envelope) HasString(key string) bool { return e.root.Get(key).IsString() }

// Value is the message as encoding/json with UseNumber decodes it (objects
// map[string]any, numbers json.Number): for re-encoding it, not for reading
// members (read the typed fields).
func (e *Envelope) Value() map[string]any {
	if e.root == nil {
		return map[string]any{}
	}
	return e.root.Interface().(map[string]any)
}

// BadExtensionKeys calls bad for every extensions key of the message that
// ExtensionKeyOK refuses (§3, AOP2-EXT-001), as the package function does.
func (e *Envelope) BadExtensionKeys(bad func(pointer, key string)) {
	badExtensionKeys(e.root, "", bad)
}

// Task is a TASK envelope (§2.1, §2.2).
type Task struct {
	Envelope
	Session         Session         `json:"session"`
	Target          Target          `json:"target"`
	Task            TaskBody        `json:"task"`
	ExecutionPolicy ExecutionPolicy `json:"execution_policy"`
	// GuardRails is nil when the TASK has no guard_rails object (§5 guard
	// rails; require_minimal_report defaults to true only inside one).
	GuardRails *GuardRails    `json:"guard_rails"`
	Phases     []Phase        `json:"phases"`
	Extensions map[string]any `json:"extensions"`
}

// Session is a TASK's session (§2.1).
type Session struct {
	SessionID       string `json:"session_id"`
	CreatedAt       string `json:"created_at"`
	Orchestrator    string `json:"orchestrator"`
	Origin          string `json:"origin"`
	WorkflowPattern string `json:"workflow_pattern"`
}

// Target is a TASK's target (§2.1, §9).
type Target struct {
	AgentName        string       `json:"agent_name"`
	Role             string       `json:"role"`
	Provider         string       `json:"provider"`
	Model            string       `json:"model"`
	ExecutionProfile string       `json:"execution_profile"`
	Capabilities     Capabilities `json:"capabilities"`
}

// Capabilities are a target's capabilities (§2.2, §11.2).
type Capabilities struct {
	AOPVersionsSupported []string `json:"aop_versions_supported"`
	FileSystemAccess     *bool    `json:"file_system_access"`
	NetworkAccess        string   `json:"network_access"`
	HeadlessMode         *bool    `json:"headless_mode"`
}

// TaskBody is a TASK's task object (§2.1, §2.2).
type TaskBody struct {
	TaskID       string   `json:"task_id"`
	ParentTaskID string   `json:"parent_task_id"`
	Attempt      *float64 `json:"attempt"`
	Objective    string   `json:"objective"`
	Category     string   `json:"category"`
	Complexity   string   `json:"complexity"`
	Priority     *string  `json:"priority"`
	Environment  struct {
		WorkspaceRoot string `json:"workspace_root"`
	} `json:"environment"`
	// Inputs and ExpectedOutputs have one element per array item (an item
	// that is no object is a zero element).
	Inputs          []Input          `json:"inputs"`
	ExpectedOutputs []ExpectedOutput `json:"expected_outputs"`
	Constraints     Limits           `json:"constraints"`
	Budgets         Limits           `json:"budgets"`
	Access          Access           `json:"access"`
	Extensions      map[string]any   `json:"extensions"`
}

// Input is one task.inputs entry.
type Input struct {
	Type     string `json:"type"`
	Path     string `json:"path"`
	ReadOnly *bool  `json:"read_only"`
}

// ExpectedOutput is one task.expected_outputs entry (§2.2, §7).
type ExpectedOutput struct {
	Type             string `json:"type"`
	Path             string `json:"path"`
	RollbackSnapshot *struct {
		Enabled          bool   `json:"enabled"`
		SnapshotPath     string `json:"snapshot_path"`
		SnapshotStrategy string `json:"snapshot_strategy"`
	} `json:"rollback_snapshot"`
}

// Limits are task.constraints and task.budgets (§2.2, §12
// E_COST_LIMIT_EXCEEDED): budgets are the more specific.
type Limits struct {
	MaxTokens         *float64 `json:"max_tokens"`
	MaxCostUSD        *float64 `json:"max_cost_usd"`
	ReadOnlyMode      *bool    `json:"read_only_mode"`
	DelegationAllowed *bool    `json:"delegation_allowed"` // constraints only (§10)
}

// Access is task.access (§11.2). A path list is nil when absent; an item that
// is no string is nil (Strings drops it).
type Access struct {
	Filesystem struct {
		ReadPaths  []*string `json:"read_paths"`
		WritePaths []*string `json:"write_paths"`
	} `json:"filesystem"`
	Network string `json:"network"`
}

// Strings are the strings of a path list (nil for nil: not stated).
func Strings(list []*string) []string {
	if list == nil {
		return nil
	}
	out := []string{}
	for _, s := range list {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// ExecutionPolicy is a TASK's execution_policy (§6.1, §9, §11).
type ExecutionPolicy struct {
	TimeoutSeconds *float64 `json:"timeout_seconds"`
	MaxRetries     *float64 `json:"max_retries"`
	// RetryBackoffSeconds has one element per array item (nil: not a number).
	RetryBackoffSeconds       []*float64       `json:"retry_backoff_seconds"`
	AbortOnFirstCriticalError *bool            `json:"abort_on_first_critical_error"`
	AutoTerminateOnTimeout    *bool            `json:"auto_terminate_on_timeout"`
	OnFailure                 *string          `json:"on_failure"`
	AlternativeModels         []Alternative    `json:"alternative_models"`
	Heartbeat                 *HeartbeatPolicy `json:"heartbeat"`
}

// Alternative is one execution_policy.alternative_models entry (§9).
type Alternative struct {
	Provider        string `json:"provider"`
	Model           string `json:"model"`
	FallbackTrigger string `json:"fallback_trigger"`
}

// HeartbeatPolicy is execution_policy.heartbeat (§6.1); Heartbeat applies its
// defaults.
type HeartbeatPolicy struct {
	Enabled            bool     `json:"enabled"`
	IntervalSeconds    *float64 `json:"interval_seconds"`
	MaxMissedBeats     *float64 `json:"max_missed_beats"`
	OnHeartbeatFailure *string  `json:"on_heartbeat_failure"`
}

// GuardRails is a TASK's guard_rails (§5 guard rails, §11).
type GuardRails struct {
	RequireMinimalReport      *bool    `json:"require_minimal_report"`
	RequireFinalSignal        *bool    `json:"require_final_signal"`
	AutoTerminateOnTimeout    *bool    `json:"auto_terminate_on_timeout"`
	TimeoutSeconds            *float64 `json:"timeout_seconds"`
	AbortOnFirstCriticalError *bool    `json:"abort_on_first_critical_error"`
}

// Phase is one phases entry (§2.2); Checkpoints has one element per item.
type Phase struct {
	PhaseID     string `json:"phase_id"`
	Checkpoints []struct {
		CheckpointID string `json:"checkpoint_id"`
		Status       string `json:"status"`
	} `json:"checkpoints"`
}

// Response is a RESPONSE (§5).
type Response struct {
	Envelope
	SessionID        string            `json:"session_id"`
	TaskID           string            `json:"task_id"`
	Agent            *Agent            `json:"agent"`
	TaskStatus       *TaskStatus       `json:"task_status"`
	ExecutionSummary *ExecutionSummary `json:"execution_summary"`
	ErrorDetails     *ErrorDetails     `json:"error_details"`
	Timing           *Timing           `json:"timing"`
	CostTracking     *CostTracking     `json:"cost_tracking"`
	Extensions       map[string]any    `json:"extensions"`
}

// Agent is a RESPONSE's agent: the model it ran as (§5, §9).
type Agent struct {
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// TaskStatus is a RESPONSE's task_status (§5). FinalSignal is nil when absent
// (or not a string).
type TaskStatus struct {
	State       string  `json:"state"`
	FinalSignal *string `json:"final_signal"`
	Message     string  `json:"message"`
}

// Signal is final_signal, "" when absent.
func (s *TaskStatus) Signal() string {
	if s == nil || s.FinalSignal == nil {
		return ""
	}
	return *s.FinalSignal
}

// ExecutionSummary is a RESPONSE's execution_summary (§5). Actions and
// OutputArtifacts have one element per array item.
type ExecutionSummary struct {
	Summary         string     `json:"summary"`
	Actions         []*string  `json:"actions"`
	OutputArtifacts []Artifact `json:"output_artifacts"`
}

// Artifact is one output_artifacts entry (§5).
type Artifact struct {
	Type      string   `json:"type"`
	Path      string   `json:"path"`
	Hash      string   `json:"hash"`
	Status    string   `json:"status"`
	SizeBytes *float64 `json:"size_bytes"`
}

// ErrorDetails is a RESPONSE's error_details (§5, §12).
type ErrorDetails struct {
	ErrorCode string `json:"error_code"`
	Message   string `json:"message"`
}

// Timing is a RESPONSE's timing (§5).
type Timing struct {
	StartedAt        string   `json:"started_at"`
	CompletedAt      string   `json:"completed_at"`
	DurationSeconds  *float64 `json:"duration_seconds"`
	RetriesAttempted *float64 `json:"retries_attempted"`
}

// CostTracking is a RESPONSE's cost_tracking (§5, §12 E_COST_LIMIT_EXCEEDED).
type CostTracking struct {
	EstimatedCostUSD *float64 `json:"estimated_cost_usd"`
	ActualCostUSD    *float64 `json:"actual_cost_usd"`
	TokensInput      *float64 `json:"tokens_input"`
	TokensOutput     *float64 `json:"tokens_output"`
	ModelPricingTier string   `json:"model_pricing_tier"`
}

// Event is an EVENT (§6.1 HEARTBEAT, §6.2 PROGRESS_UPDATE; the orchestrator's
// events of §1.3, §7, §8, §10 share the header and event).
type Event struct {
	Envelope
	Event     string `json:"event"`
	SessionID string `json:"session_id"`
	TaskID    string `json:"task_id"`
	Timestamp string `json:"timestamp"`
	// Agent is the executor's name (a string, unlike a RESPONSE's agent).
	Agent              string   `json:"agent"`
	ProgressPercentage *float64 `json:"progress_percentage"`
}

// DecodeHeader reads one message line: its header, and the tree AsTask,
// AsResponse and AsEvent read the body from by the message_type it names. The
// error says why the line is not one JSON object (then the message is nil).
func DecodeHeader(line []byte) (*Envelope, error) {
	root, err := wire.Parse(line)
	if err != nil {
		return nil, err
	}
	e := &Envelope{root: root}
	wire.Bind(root, &e.Header)
	return e, nil
}

// AsTask reads the message as a TASK (whatever its message_type says).
func (e *Envelope) AsTask() *Task {
	t := &Task{Envelope: *e}
	wire.Bind(e.root, t)
	return t
}

// AsResponse reads the message as a RESPONSE.
func (e *Envelope) AsResponse() *Response {
	r := &Response{Envelope: *e}
	wire.Bind(e.root, r)
	return r
}

// AsEvent reads the message as an EVENT.
func (e *Envelope) AsEvent() *Event {
	ev := &Event{Envelope: *e}
	wire.Bind(e.root, ev)
	return ev
}

// DecodeTask reads one TASK line (DecodeHeader, AsTask).
func DecodeTask(line []byte) (*Task, error) {
	e, err := DecodeHeader(line)
	if err != nil {
		return nil, err
	}
	return e.AsTask(), nil
}

// DecodeResponse reads one RESPONSE line (DecodeHeader, AsResponse).
func DecodeResponse(line []byte) (*Response, error) {
	e, err := DecodeHeader(line)
	if err != nil {
		return nil, err
	}
	return e.AsResponse(), nil
}

// DecodeEvent reads one EVENT line (DecodeHeader, AsEvent).
func DecodeEvent(line []byte) (*Event, error) {
	e, err := DecodeHeader(line)
	if err != nil {
		return nil, err
	}
	return e.AsEvent(), nil
}
