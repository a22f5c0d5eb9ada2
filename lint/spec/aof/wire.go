package aof

import (
	"encoding/json"
	"errors"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/spec/wire"
)

// The wire messages of AOF/1, typed, read with lint/spec/wire (as aoplint
// reads them). Every member is a Member: whether the object has it (Has, null
// included), whether its value has the type the spec gives it (OK) and the
// value (V). A check can so tell "absent" from "present but no string" from
// "null", as the reference router does, and a misspelled member name is a
// compile error, not an absent member. Members are found by their exact names
// (the json tags; encoding/json would also match them in another case), the
// last of a repeated name winning, as encoding/json decodes into a map;
// members the spec does not name are ignored (the guide does not forbid them).

// Member is one member of a wire object whose spec type is T (a wire.Field):
// V the value when OK (numbers in a map as json.Number), Has whether the
// object has it, AnyNumber the value as encoding/json with UseNumber decodes
// it into any (nil when absent or null), to show in a message.
type Member[T any] = wire.Field[T]

// Envelope is one AOF/1 message (aof-1 §Protocol Envelope, §Envelope Fields).
// The payload of a known type is decoded into the field of its type
// (Completion, Status, Handoff or Ack), when the payload is an object.
type Envelope struct {
	Protocol  Member[string]         `json:"protocol"`  // "aof"
	Version   Member[json.Number]    `json:"version"`   // 1
	Type      Member[string]         `json:"type"`      // a ProtocolMessageType (§Message Types)
	TaskID    Member[string]         `json:"taskId"`    // TASK-YYYY-MM-DD-NNN
	FromAgent Member[string]         `json:"fromAgent"` // the sender
	ToAgent   Member[string]         `json:"toAgent"`   // the recipient, typically "dispatcher"
	SentAt    Member[string]         `json:"sentAt"`    // ISO 8601 (ParseTime)
	Payload   Member[map[string]any] `json:"payload"`   // OK when an object; read the typed payload below

	Completion *CompletionReport `json:"-"` // Type completion.report
	Status     *StatusUpdate     `json:"-"` // Type status.update
	Handoff    *HandoffRequest   `json:"-"` // Type handoff.request
	Ack        *HandoffAck       `json:"-"` // Type handoff.accepted or handoff.rejected
}

// CompletionReport is a completion.report payload (aof-1 §Completion Report
// Payload, §Payload Fields).
type CompletionReport struct {
	Outcome      Member[string]           `json:"outcome"`      // a CompletionOutcome
	SummaryRef   Member[string]           `json:"summaryRef"`   // required
	Deliverables Member[[]Member[string]] `json:"deliverables"` // optional
	Tests        Member[TestReport]       `json:"tests"`        // required
	Blockers     Member[[]Member[string]] `json:"blockers"`     // required when outcome is blocked
	Notes        Member[string]           `json:"notes"`        // required, at most MaxNotes
}

// TestReport is a completion.report's tests (aof-1 §Payload Fields).
type TestReport struct {
	Total  Member[json.Number] `json:"total"`
	Passed Member[json.Number] `json:"passed"`
	Failed Member[json.Number] `json:"failed"`
}

// StatusUpdate is a status.update payload (aof-1 §Status Update Payload): at
// least one of status, progress, blockers and notes.
type StatusUpdate struct {
	TaskID   Member[string]           `json:"taskId"`
	AgentID  Member[string]           `json:"agentId"`
	Status   Member[string]           `json:"status"` // a task status, when Set
	Progress Member[string]           `json:"progress"`
	Blockers Member[[]Member[string]] `json:"blockers"`
	Notes    Member[string]           `json:"notes"`
}

// HandoffRequest is a handoff.request payload (aof-1 §Handoff Request Payload),
// also the content of inputs/handoff.json (§Handoff Artifacts 1).
type HandoffRequest struct {
	TaskID             Member[string]           `json:"taskId"`       // the child task, = the envelope's taskId
	ParentTaskID       Member[string]           `json:"parentTaskId"` // the delegating task
	FromAgent          Member[string]           `json:"fromAgent"`
	ToAgent            Member[string]           `json:"toAgent"`
	AcceptanceCriteria Member[[]Member[string]] `json:"acceptanceCriteria"`
	ExpectedOutputs    Member[[]Member[string]] `json:"expectedOutputs"`
	ContextRefs        Member[[]Member[string]] `json:"contextRefs"`
	Constraints        Member[[]Member[string]] `json:"constraints"`
	DueBy              Member[string]           `json:"dueBy"` // ISO 8601
}

// HandoffAck is a handoff.accepted or handoff.rejected payload (aof-1 §Handoff
// Acceptance/Rejection): accepted is true, or false with an optional reason.
type HandoffAck struct {
	TaskID   Member[string] `json:"taskId"`
	Accepted Member[bool]   `json:"accepted"`
	Reason   Member[string] `json:"reason"`
}

// Strings are the string items of a list member, in order (items of another
// type left out).
func Strings(l Member[[]Member[string]]) []string {
	var out []string
	for _, it := range l.V {
		if it.OK {
			out = append(out, it.V)
		}
	}
	return out
}

// ErrNotObject is DecodeEnvelope's error for JSON that is no object (null
// included).
var ErrNotObject = errors.New("aof: the message is no JSON object")

// DecodeEnvelope reads one message: b is the JSON (after TrimPrefix). It
// reads b as a json.Decoder with UseNumber decodes it into any, and fails
// when b is no JSON value, has more than one (as the decoder's More tells it:
// data after the value that does not start with "}" or "]"), or is no object
// (ErrNotObject). Everything else decodes, however wrong its members: the
// members' Has and OK say what is there.
func DecodeEnvelope(b []byte) (*Envelope, error) {
	w, err := wire.Read(b)
	if se, ok := err.(*jsonread.SyntaxError); ok && se.Code == "trailing" {
		if c := w.Text[se.Offset]; c == '}' || c == ']' {
			err = nil // json.Decoder.More is false there: the decoder's reader took the line
		} else {
			err = errors.New("aof: more than one JSON value")
		}
	}
	if err != nil {
		return nil, err
	}
	if w.Root.Kind != jsonread.Object {
		return nil, ErrNotObject
	}
	env := &Envelope{}
	w.Bind(w.Root, env, wire.UseNumber)
	if !env.Payload.OK {
		return env, nil
	}
	var typed any
	switch env.Type.V {
	case TypeCompletion:
		env.Completion = &CompletionReport{}
		typed = env.Completion
	case TypeStatusUpdate:
		env.Status = &StatusUpdate{}
		typed = env.Status
	case TypeHandoffRequest:
		env.Handoff = &HandoffRequest{}
		typed = env.Handoff
	case TypeHandoffAccepted, TypeHandoffRejected:
		env.Ack = &HandoffAck{}
		typed = env.Ack
	default:
		return env, nil
	}
	w.Bind(w.Root.Get("payload"), typed, wire.UseNumber)
	return env, nil
}

// DecodeHandoff reads inputs/handoff.json (§Handoff Artifacts 1), as
// json.Unmarshal reads a file: ok is false when data is not one JSON object
// (no member is then set).
func DecodeHandoff(data []byte) (h *HandoffRequest, ok bool) {
	h = &HandoffRequest{}
	w, err := wire.Read(data)
	if err != nil || w.Root.Kind != jsonread.Object {
		return h, false
	}
	w.Bind(w.Root, h, wire.UseNumber)
	return h, true
}
