package orchmsg

import (
	"errors"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/spec/wire"
)

// Field is one member of a received message as the peer sent it: absent
// (Has false), present but no T (OK false; Raw and Any say what was sent), or
// its value V (lint/spec/wire; any-typed values have float64 numbers, as
// encoding/json decodes them into an any).
type Field[T any] = wire.Field[T]

// Message is one message of either side (§Base Message Structure), with the
// members of responses (§Request/Response Pattern: correlationId, error) and
// its payload (Payload: the members of every type's payload).
type Message struct {
	Type          Field[string]    `json:"type"`          // §Message Types
	ID            Field[string]    `json:"id"`            // "UUID for correlation"
	Timestamp     Field[string]    `json:"timestamp"`     // ISO 8601 (ParseTime)
	AgentID       Field[string]    `json:"agentId"`       // optional, "set by orchestrator if missing"
	CorrelationID Field[string]    `json:"correlationId"` // responses: the request's id (§Correlation)
	Payload       Field[Payload]   `json:"payload"`
	Error         Field[ErrorBody] `json:"error"` // response:error (§Orchestrator Response (Error))
	// TaskID is the upstream prototype's top-level taskId of its
	// task_notification (lint/orchmsg DialectTaskNotification); no orchmsg
	// message has it.
	TaskID Field[string] `json:"taskId"`
}

// Payload is a message's payload: one struct for every type's members (each
// type uses the ones its section names; the others are absent).
type Payload struct {
	// request:get-task (§Supported Requests 4), event:progress, event:error,
	// notify:task-assigned, notify:task-cancelled (§Orchestrator Notifications).
	TaskID Field[string] `json:"taskId"`

	// request:query-agents (§Supported Requests 1): role and status filters,
	// capabilities. Status is query-tasks' filter too.
	Role         Field[string] `json:"role"`
	Status       Field[string] `json:"status"`
	Capabilities Field[[]any]  `json:"capabilities"`

	// request:query-tasks (§Supported Requests 2); RequiredRole is also a
	// member of request:submit-task.
	RequiredRole Field[string]  `json:"requiredRole"`
	Limit        Field[float64] `json:"limit"`

	// request:submit-task (§Supported Requests 3). Type is the task's type,
	// Payload the task's own payload.
	Type                 Field[string]         `json:"type"`
	Name                 Field[string]         `json:"name"`
	Description          Field[string]         `json:"description"`
	Payload              Field[map[string]any] `json:"payload"`
	RequiredCapabilities Field[[]any]          `json:"requiredCapabilities"`
	Dependencies         Field[[]any]          `json:"dependencies"`
	Priority             Field[float64]        `json:"priority"`

	// request:ask-user (§Supported Requests 5) and event:question (§Supported
	// Events 4): the question, its options and timeout (ms).
	Question Field[string]          `json:"question"`
	Options  Field[[]Field[Option]] `json:"options"`
	Timeout  Field[float64]         `json:"timeout"`

	// event:progress (§Supported Events 1): progress 0..1 and a message;
	// Message is event:log's and notify:task-assigned's too.
	Progress Field[float64] `json:"progress"`
	Message  Field[string]  `json:"message"`

	// event:log (§Supported Events 2): level, and context (event:question's too).
	Level   Field[string] `json:"level"`
	Context Field[any]    `json:"context"`

	// event:error (§Supported Events 3).
	Error       Field[string] `json:"error"`
	Stack       Field[string] `json:"stack"`
	Recoverable Field[bool]   `json:"recoverable"`

	// response:success: the answers of §Supported Requests 1-5.
	Agents   Field[[]any]          `json:"agents"`
	Tasks    Field[[]any]          `json:"tasks"`
	Task     Field[TaskInfo]       `json:"task"`
	Answer   Field[string]         `json:"answer"`
	Metadata Field[map[string]any] `json:"metadata"`

	// notify:task-cancelled's reason, notify:shutdown's reason and gracePeriod
	// (ms; §Orchestrator Notifications 2-3).
	Reason      Field[string]  `json:"reason"`
	GracePeriod Field[float64] `json:"gracePeriod"`
}

// TaskInfo is the task of a response:success to request:submit-task or
// request:get-task (§Supported Requests 3-4).
type TaskInfo struct {
	ID           Field[string] `json:"id"`
	Name         Field[string] `json:"name"`
	Status       Field[string] `json:"status"`
	RequiredRole Field[string] `json:"requiredRole"`
	Dependencies Field[[]any]  `json:"dependencies"`
	Result       Field[any]    `json:"result"`
	// Payload is the task's own payload (submit-task's payload.payload).
	Payload Field[map[string]any] `json:"payload"`
}

// Option is one of request:ask-user's options (§Supported Requests 5).
type Option struct {
	Label Field[string] `json:"label"`
	Value Field[string] `json:"value"`
}

// UnmarshalJSON reads the option's members by their exact names.
func (o *Option) UnmarshalJSON(b []byte) error { return decodeObject(b, o) }

// ErrorBody is a response:error's error (§Error Codes: code is one of
// ErrorCodes).
type ErrorBody struct {
	Code    Field[string]         `json:"code"`
	Message Field[string]         `json:"message"`
	Details Field[map[string]any] `json:"details"`
}

// UnmarshalJSON reads the payload's members by their exact names.
func (p *Payload) UnmarshalJSON(b []byte) error { return decodeObject(b, p) }

// UnmarshalJSON reads the task's members by their exact names.
func (t *TaskInfo) UnmarshalJSON(b []byte) error { return decodeObject(b, t) }

// UnmarshalJSON reads the error's members by their exact names.
func (e *ErrorBody) UnmarshalJSON(b []byte) error { return decodeObject(b, e) }

// UnmarshalJSON reads the message's members by their exact names.
func (m *Message) UnmarshalJSON(b []byte) error { return decodeObject(b, m) }

// ErrNotObject is Decode's error for a line that is JSON but no object.
var ErrNotObject = errors.New("the message is no JSON object")

// Decode reads one message (one line) with lint/spec/wire, as aoplint reads
// it. It fails when the line is no JSON object, or one encoding/json cannot
// decode into an any (a number past float64's range anywhere in it): the line
// is then no message to the orchestrator's handler (§Parsing Strategy), as
// when the engine and the checks decoded it into a map. Members are matched by
// their exact names (encoding/json's own struct decoding would take "TaskID"
// for "taskId"), the last of duplicates wins, and a member of the wrong type
// is kept, not an error (Field).
func Decode(line []byte) (*Message, error) {
	w, err := wire.Read(line)
	if err != nil {
		return nil, err
	}
	if w.Root.Kind != jsonread.Object {
		return nil, ErrNotObject
	}
	if err := wire.Float64Range(w.Root); err != nil {
		return nil, err
	}
	m := new(Message)
	w.Bind(w.Root, m, wire.Float64)
	return m, nil
}

// decodeObject decodes the JSON object b into dst by exact member names.
func decodeObject(b []byte, dst any) error {
	w, err := wire.Read(b)
	if err != nil {
		return err
	}
	if w.Root.Kind != jsonread.Object {
		return ErrNotObject
	}
	w.Bind(w.Root, dst, wire.Float64)
	return nil
}

// Completes reports whether the message says its task is over: CompletesTask
// on its type and its payload's progress and recoverable (neither, when the
// payload is absent or no object).
func (m *Message) Completes() bool {
	p := &m.Payload.V
	prog, hasProg := p.Progress.Get()
	rec, hasRec := p.Recoverable.Get()
	return CompletesTask(m.Type.V, prog, hasProg, rec, hasRec)
}
