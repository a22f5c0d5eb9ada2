package aof

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"

	"github.com/aopkit/aopkit/lint/internal/wirejson"
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
	V   T    // the value, when OK; T's zero value otherwise
	Set bool // the object has the member (its value may be null)
	OK  bool // the value has the spec's type (a string, a number, ...)
	// Value is the value as encoding/json decodes it into any, numbers as
	// json.Number (nil when absent or null), to show in a message.
	Value any
}

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
// decodes b as a json.Decoder with UseNumber does into any, and fails when
// b is no JSON value, has more than one (as the decoder's More tells it), or
// is no object (ErrNotObject). Everything else decodes, however wrong its
// members: the members' Set and OK say what is there.
func DecodeEnvelope(b []byte) (*Envelope, error) {
	obj, err := decodeObject(b, (*json.Decoder).More)
	if err != nil {
		return nil, err
	}
	env := &Envelope{}
	fill(obj, env)
	p := env.Payload.V
	if !env.Payload.OK {
		return env, nil
	}
	switch env.Type.V {
	case TypeCompletion:
		env.Completion = &CompletionReport{}
		fill(p, env.Completion)
	case TypeStatusUpdate:
		env.Status = &StatusUpdate{}
		fill(p, env.Status)
	case TypeHandoffRequest:
		env.Handoff = &HandoffRequest{}
		fill(p, env.Handoff)
	case TypeHandoffAccepted, TypeHandoffRejected:
		env.Ack = &HandoffAck{}
		fill(p, env.Ack)
	}
	return env, nil
}

// DecodeHandoff reads inputs/handoff.json (§Handoff Artifacts 1), as
// json.Unmarshal reads a file: ok is false when data is not one JSON object
// (no member is then set).
func DecodeHandoff(data []byte) (h *HandoffRequest, ok bool) {
	h = &HandoffRequest{}
	obj, err := decodeObject(data, func(dec *json.Decoder) bool {
		_, err := dec.Token()
		return err != io.EOF
	})
	if err == nil {
		fill(obj, h)
	}
	return h, err == nil
}

// decodeObject decodes the JSON object at the start of b as a json.Decoder
// with UseNumber decodes it into any; more reports whether the decoder has
// more than the one value (an error then).
func decodeObject(b []byte, more func(*json.Decoder) bool) (map[string]any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := dec.Decode(&v)
	obj, isObj := v.(map[string]any)
	switch {
	case err != nil:
		return nil, err
	case more(dec):
		return nil, errors.New("aof: more than one JSON value")
	case !isObj:
		return nil, ErrNotObject
	}
	return obj, nil
}

// member is a Member of any type, filled from its decoded value.
type member interface{ set(v any) }

// fill sets the members of dst, a pointer to a struct of Members, from obj
// (each field from the member its json tag names exactly).
func fill(obj map[string]any, dst any) {
	v := reflect.ValueOf(dst).Elem()
	for i, name := range wirejson.MemberNames(v.Type()) {
		if name == "" || name == "-" {
			continue
		}
		if x, ok := obj[name]; ok {
			v.Field(i).Addr().Interface().(member).set(x)
		}
	}
}

func (m *Member[T]) set(v any) {
	*m = Member[T]{Set: true, Value: v}
	switch p := any(&m.V).(type) {
	case *string:
		*p, m.OK = v.(string)
	case *json.Number:
		*p, m.OK = v.(json.Number)
	case *bool:
		*p, m.OK = v.(bool)
	case *map[string]any:
		*p, m.OK = v.(map[string]any)
	case *[]Member[string]:
		var items []any
		if items, m.OK = v.([]any); m.OK {
			*p = make([]Member[string], len(items))
			for i, it := range items {
				(*p)[i].set(it)
			}
		}
	default:
		var obj map[string]any
		if obj, m.OK = v.(map[string]any); m.OK {
			fill(obj, p)
		}
	}
}
