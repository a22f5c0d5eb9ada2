package aos

import (
	"errors"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/spec/wire"
)

// Field is one member of a received message as the peer sent it: absent
// (Has false), present but no T (OK false; Raw and Any say what was sent), or
// its value V (lint/spec/wire; any-typed values have float64 numbers, as
// encoding/json decodes them into an any, and are no value when a number in
// them is past float64's range). A JSON-RPC id or a number whose digits
// matter is read with AnyNumber (json.Number), as the guardian reads it.
type Field[T any] = wire.Field[T]

// Request is a JSONRPCRequest object (§3.12.1), the body of every POST (§4).
type Request struct {
	JSONRPC Field[string] `json:"jsonrpc"` // MUST be exactly "2.0"
	// ID is "a String or Number(Integer) value" (RequestID).
	ID     Field[any]    `json:"id"`
	Method Field[string] `json:"method"` // one of Methods (§4)
	Params Field[Params] `json:"params"`
}

// RequestID reads the request's id as §3.12.1 allows it (numbers by their
// text: json.Number). ok is false when it is absent or none.
func (r *Request) RequestID() (id ID, ok bool) {
	if !r.ID.Has() {
		return ID{}, false
	}
	return RequestID(r.ID.AnyNumber())
}

// Params are the params of the ten methods (§4.x.1), one struct for all: each
// method uses the members its section names, the others are absent.
// ParamsProblem judges them (on the params as a map).
type Params struct {
	// Context is every steps/* method's StepContext (§3.8; StepContextProblem).
	Context Field[map[string]any] `json:"context"`
	// Trigger is steps/agentTrigger's AgentTrigger (§4.1).
	Trigger Field[map[string]any] `json:"trigger"`
	// KnowledgeStep is steps/knowledgeRetrieval's (§4.2, §3.14).
	KnowledgeStep Field[map[string]any] `json:"knowledgeStep"`
	// Memory is steps/memoryStore's and steps/memoryContextRetrieval's (§4.3, §4.4).
	Memory Field[any] `json:"memory"`
	// Message is steps/message's Message (§4.5, §3.3), or the A2A or MCP
	// message protocols/A2A and protocols/MCP wrap (§4.7, §4.8).
	Message Field[map[string]any] `json:"message"`
	// Citation is steps/message's Source[] (§4.5).
	Citation Field[[]any] `json:"citation"`
	// ToolCallRequest is steps/toolCallRequest's (§4.6, §3.15).
	ToolCallRequest Field[ToolCallRequest] `json:"toolCallRequest"`
	// ExecutionID and Result are steps/toolCallResult's (§4.6 toolCallResult).
	ExecutionID Field[string]         `json:"executionId"`
	Result      Field[map[string]any] `json:"result"`
	// Reasoning is the agent's, in most methods.
	Reasoning Field[string] `json:"reasoning"`
	// Timestamp, Timeout (ms, an integer: AnyNumber) and Metadata are ping's (§4.9.1).
	Timestamp Field[string]         `json:"timestamp"`
	Timeout   Field[any]            `json:"timeout"`
	Metadata  Field[map[string]any] `json:"metadata"`
}

// ToolCallRequest is a ToolCallRequest object (§3.15).
type ToolCallRequest struct {
	ExecutionID Field[string]                     `json:"executionId"`
	ToolID      Field[string]                     `json:"toolId"`
	Inputs      Field[[]Field[ToolArgumentValue]] `json:"inputs"`
}

// ToolArgumentValue is one input of a tool call (§3.15.1). Value is any JSON
// value: read it with AnyNumber to keep its numbers as sent.
type ToolArgumentValue struct {
	Name  Field[string] `json:"name"`
	ID    Field[string] `json:"id"`
	Value Field[any]    `json:"value"`
}

// Args are the inputs as name → value, the last of inputs with one name
// winning; inputs without a string name are left out. Numbers are
// json.Number with useNumber (as sent), float64 without.
func (t *ToolCallRequest) Args(useNumber bool) map[string]any {
	args := map[string]any{}
	for _, in := range t.Inputs.V {
		if name, ok := in.V.Name.Get(); ok {
			if useNumber {
				args[name] = in.V.Value.AnyNumber()
			} else {
				args[name] = in.V.Value.Any()
			}
		}
	}
	return args
}

// Response is a JSONRPCResponse object (§3.12.2): an AOSSuccessResponse
// (§5.1), a PingRequestSuccessResponse (§5.3) or a JSONRPCErrorResponse (§5.2).
type Response struct {
	JSONRPC Field[string]   `json:"jsonrpc"`
	ID      Field[any]      `json:"id"` // the request's id, or null (§3.12.2)
	Result  Field[Result]   `json:"result"`
	Error   Field[RPCError] `json:"error"`
}

// Result is an AOSSuccessResult (§5.1.1) or a PingRequestResult (§5.3), one
// struct for both.
type Result struct {
	Decision        Field[string]         `json:"decision"` // allow, deny or modify (IsDecision)
	Reasoning       Field[string]         `json:"reasoning"`
	ReasonCode      Field[[]any]          `json:"reasonCode"`
	Message         Field[string]         `json:"message"`
	Data            Field[map[string]any] `json:"data"`
	ModifiedRequest Field[Request]        `json:"modifiedRequest"` // with decision modify
	// PingRequestResult's.
	Status    Field[string]         `json:"status"`
	Version   Field[string]         `json:"version"`
	Timestamp Field[string]         `json:"timestamp"`
	Metadata  Field[map[string]any] `json:"metadata"`
}

// RPCError is a JSONRPCError object (§3.13): code an integer (AnyNumber),
// message a string, data any value.
type RPCError struct {
	Code    Field[any]    `json:"code"`
	Message Field[string] `json:"message"`
	Data    Field[any]    `json:"data"`
}

// UnmarshalJSON reads the request's members by their exact names.
func (r *Request) UnmarshalJSON(b []byte) error { return decodeObject(b, r) }

// UnmarshalJSON reads the params' members by their exact names.
func (p *Params) UnmarshalJSON(b []byte) error { return decodeObject(b, p) }

// UnmarshalJSON reads the tool call's members by their exact names.
func (t *ToolCallRequest) UnmarshalJSON(b []byte) error { return decodeObject(b, t) }

// UnmarshalJSON reads the input's members by their exact names.
func (a *ToolArgumentValue) UnmarshalJSON(b []byte) error { return decodeObject(b, a) }

// UnmarshalJSON reads the response's members by their exact names.
func (r *Response) UnmarshalJSON(b []byte) error { return decodeObject(b, r) }

// UnmarshalJSON reads the result's members by their exact names.
func (r *Result) UnmarshalJSON(b []byte) error { return decodeObject(b, r) }

// UnmarshalJSON reads the error's members by their exact names.
func (e *RPCError) UnmarshalJSON(b []byte) error { return decodeObject(b, e) }

// DecodeRequest reads one request body. It fails when the body is no single
// JSON object (trailing data too: "data after the JSON value"). Numbers are
// kept as their text (Raw; AnyNumber), as the guardian and aoplint read them,
// so a number past float64's range is no error here. Members are matched by
// their exact names, the last of duplicates wins, and a member of the wrong
// type is kept, not an error (Field).
func DecodeRequest(body []byte) (*Request, error) {
	r := new(Request)
	if err := decodeOne(body, r); err != nil {
		return nil, err
	}
	return r, nil
}

// DecodeResponse reads one response body as DecodeRequest reads a request.
func DecodeResponse(body []byte) (*Response, error) {
	r := new(Response)
	if err := decodeOne(body, r); err != nil {
		return nil, err
	}
	return r, nil
}

// decodeOne decodes body, one JSON object and nothing after it, into dst.
func decodeOne(body []byte, dst any) error {
	w, err := wire.Read(body)
	if se, ok := err.(*jsonread.SyntaxError); ok && se.Code == "trailing" {
		return ErrTrailing
	}
	if err != nil {
		return err
	}
	if w.Root.Kind != jsonread.Object {
		return errNotObject
	}
	w.Bind(w.Root, dst, wire.Float64)
	return nil
}

// decodeObject is an UnmarshalJSON of a wire struct: b is one JSON value.
func decodeObject(b []byte, dst any) error { return decodeOne(b, dst) }

// ErrTrailing is the error of a body with more after its JSON value.
var ErrTrailing = errors.New("data after the JSON value")

var errNotObject = errors.New("the message is no JSON object")
