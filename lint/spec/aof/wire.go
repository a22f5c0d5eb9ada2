package aof

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// The wire messages of AOF/1, typed. Every member is a Member: whether the
// object has it (Set, null included), whether its value has the type the spec
// gives it (OK) and the value (V). A check can so tell "absent" from "present
// but no string" from "null", as the reference router does, and a misspelled
// member name is a compile error, not an absent member. Members are found by
// their exact names (the json tags; encoding/json would also match them in
// another case), the last of a repeated name winning, as encoding/json decodes
// into a map; members the spec does not name are ignored (the guide does not
// forbid them).

// Member is one member of a wire object whose spec type is T.
type Member[T any] struct {
	V   T               // the value, when OK; T's zero value otherwise
	Set bool            // the object has the member (its value may be null)
	OK  bool            // the value has the spec's type (a string, a number, ...)
	Raw json.RawMessage // the value as written, when Set
}

// Envelope is one AOF/1 message (aof-1 §Protocol Envelope, §Envelope Fields).
// The payload of a known type is decoded into the field of its type
// (Completion, Status, Handoff or Ack), when the payload is an object.
type Envelope struct {
	Protocol  Member[string]          `json:"protocol"`  // "aof"
	Version   Member[json.Number]     `json:"version"`   // 1
	Type      Member[string]          `json:"type"`      // a ProtocolMessageType (§Message Types)
	TaskID    Member[string]          `json:"taskId"`    // TASK-YYYY-MM-DD-NNN
	FromAgent Member[string]          `json:"fromAgent"` // the sender
	ToAgent   Member[string]          `json:"toAgent"`   // the recipient, typically "dispatcher"
	SentAt    Member[string]          `json:"sentAt"`    // ISO 8601 (ParseTime)
	Payload   Member[json.RawMessage] `json:"payload"`   // OK when an object

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
// fails when b is no JSON value, has more than one (as a json.Decoder's More
// tells it), or is no object (ErrNotObject). Everything else decodes, however
// wrong its members: the members' Set and OK say what is there.
func DecodeEnvelope(b []byte) (*Envelope, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("aof: more than one JSON value")
	}
	env := &Envelope{}
	if !decodeObject(raw, env) {
		return nil, ErrNotObject
	}
	if !env.Payload.OK {
		return env, nil
	}
	switch env.Type.V {
	case TypeCompletion:
		env.Completion = &CompletionReport{}
		decodeObject(env.Payload.V, env.Completion)
	case TypeStatusUpdate:
		env.Status = &StatusUpdate{}
		decodeObject(env.Payload.V, env.Status)
	case TypeHandoffRequest:
		env.Handoff = &HandoffRequest{}
		decodeObject(env.Payload.V, env.Handoff)
	case TypeHandoffAccepted, TypeHandoffRejected:
		env.Ack = &HandoffAck{}
		decodeObject(env.Payload.V, env.Ack)
	}
	return env, nil
}

// DecodeHandoff reads inputs/handoff.json (§Handoff Artifacts 1); ok is false
// when data is no JSON object.
func DecodeHandoff(data []byte) (h *HandoffRequest, ok bool) {
	h = &HandoffRequest{}
	return h, decodeObject(bytes.TrimSpace(data), h)
}

// member is a Member of any type, filled from its raw value.
type member interface{ decodeMember(raw json.RawMessage) }

// decodeObject fills the members of dst, a pointer to a struct of Members,
// from raw; false when raw is no JSON object.
func decodeObject(raw json.RawMessage, dst any) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	v := reflect.ValueOf(dst).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if r, ok := m[name]; ok && name != "-" {
			v.Field(i).Addr().Interface().(member).decodeMember(r)
		}
	}
	return true
}

func (m *Member[T]) decodeMember(raw json.RawMessage) {
	*m = Member[T]{Set: true, Raw: raw}
	if len(raw) == 0 {
		return
	}
	switch p := any(&m.V).(type) {
	case *string:
		m.OK = raw[0] == '"' && json.Unmarshal(raw, p) == nil
	case *json.Number:
		if raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' {
			*p, m.OK = json.Number(raw), true
		}
	case *bool:
		m.OK = (raw[0] == 't' || raw[0] == 'f') && json.Unmarshal(raw, p) == nil
	case *json.RawMessage:
		if m.OK = raw[0] == '{'; m.OK {
			*p = raw
		}
	case *[]Member[string]:
		var items []json.RawMessage
		if m.OK = raw[0] == '[' && json.Unmarshal(raw, &items) == nil; m.OK {
			*p = make([]Member[string], len(items))
			for i, it := range items {
				(*p)[i].decodeMember(it)
			}
		}
	default:
		m.OK = decodeObject(raw, p)
	}
}
