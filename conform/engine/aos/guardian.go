package aos

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// JSON-RPC 2.0 error codes (AOS 0.1.0 §6.1).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Version is what the guardian answers to ping.
const Version = "0.1.0"

// DefaultBodyLimit bounds one request body.
const DefaultBodyLimit = 1 << 20

// Decision is one tool-call decision the guardian made, for the enforcement check.
type Decision struct {
	RequestID   any
	Method      string
	ExecutionID string
	Tool        string
	Args        map[string]any
	Decision    string
	Rule        string // the policy rule id, "" for the default
	// ModTool and ModArgs are the call the agent must execute instead (modify).
	ModTool string
	ModArgs map[string]any
}

// Guardian answers AOS requests. The zero value is not usable; use NewGuardian.
// It keeps its decisions; the transcript is the harness's (Drive records every
// exchange, within the channel's budget).
type Guardian struct {
	Policy    *Policy
	BodyLimit int64
	// Fault is a fault of the reference guardian to play on purpose (Faults), ""
	// for none: what certifying a guardian must catch.
	Fault string

	mu        sync.Mutex
	decisions []Decision
	requested map[string]string // executionId → decision
	results   map[string]bool   // executionId → toolCallResult seen
	pings     int
}

// NewGuardian returns a guardian with policy (DefaultPolicy when nil).
func NewGuardian(policy *Policy) *Guardian {
	if policy == nil {
		policy = DefaultPolicy()
	}
	return &Guardian{Policy: policy, BodyLimit: DefaultBodyLimit,
		requested: map[string]string{}, results: map[string]bool{}}
}

// Decisions returns the tool-call decisions so far, in order.
func (g *Guardian) Decisions() []Decision {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Decision(nil), g.decisions...)
}

// Server is a served guardian.
type Server struct {
	URL    string
	srv    *http.Server
	served chan error
}

// MaxHeaderBytes bounds the request headers a served guardian reads.
const MaxHeaderBytes = 64 << 10

// SecretPath returns a fresh unguessable URL path ("/<128 random bits in hex>/"):
// a guardian served on a loopback port answers only requests to it, so other local
// processes cannot talk to (or be graded as) the agent under test.
func SecretPath() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("aos: no randomness: " + err.Error())
	}
	return "/" + hex.EncodeToString(b) + "/"
}

// OnPath serves h on path only (with or without its trailing slash); anything else
// gets 404 and never reaches h.
func OnPath(path string, h http.Handler) http.Handler {
	bare := strings.TrimSuffix(path, "/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path && r.URL.Path != bare {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Serve starts g on 127.0.0.1 on a free port, at a secret path (URL has it).
func (g *Guardian) Serve() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return g.ServeOn(ln, SecretPath()), nil
}

// ServeOn starts g on ln, answering at path only (OnPath); URL is
// http://ADDR<path>. The server owns ln from then on.
func (g *Guardian) ServeOn(ln net.Listener, path string) *Server {
	s := &Server{URL: "http://" + ln.Addr().String() + path, served: make(chan error, 1), srv: &http.Server{
		Handler: OnPath(path, g), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: MaxHeaderBytes,
	}}
	go func() { s.served <- s.srv.Serve(ln) }()
	return s
}

// Stopped yields once, when the server stops serving: the error of
// http.Server.Serve (http.ErrServerClosed after Shutdown or Close).
func (s *Server) Stopped() <-chan error { return s.served }

// Shutdown stops the server, giving the requests under way up to grace to be
// answered, then closing every connection.
func (s *Server) Shutdown(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	s.srv.Shutdown(ctx)
	return s.srv.Close()
}

// Close stops the server at once.
func (s *Server) Close() error { return s.Shutdown(0) }

// response is a JSON-RPC response object.
type response struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      any       `json:"id"`
	Result  any       `json:"result,omitempty"`
	Error   *rpcError `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func errResp(id any, code int, msg string, data any) *response {
	return &response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg, Data: data}}
}

// ServeHTTP answers one POST (AOS 0.1.0 §2, §4).
func (g *Guardian) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status, data := g.Answer(r)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// Answer decides one request: the HTTP status and the JSON-RPC response body
// (always a JSON object, sent as application/json).
func (g *Guardian) Answer(r *http.Request) (status int, data []byte) {
	status, resp, _ := g.handle(r)
	var v any = g.misanswer(resp)
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(errResp(nil, CodeInternalError, "Internal server error", nil))
	}
	return status, data
}

func (g *Guardian) handle(r *http.Request) (status int, resp *response, method string) {
	defer func() {
		if p := recover(); p != nil {
			status, resp = http.StatusOK, errResp(nil, CodeInternalError, "Internal server error", fmt.Sprint(p))
		}
	}()
	limit := g.BodyLimit
	if limit <= 0 {
		limit = DefaultBodyLimit
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err == nil && int64(len(body)) > limit {
		return http.StatusRequestEntityTooLarge, errResp(nil, CodeInvalidRequest, "Invalid JSON-RPC Request",
			fmt.Sprintf("request body exceeds %d bytes", limit)), ""
	}
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, errResp(peekID(body), CodeInvalidRequest, "Invalid JSON-RPC Request",
			"AOS requests are HTTP POST (AOS 0.1.0 §4), not "+r.Method), ""
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return http.StatusUnsupportedMediaType, errResp(peekID(body), CodeInvalidRequest, "Invalid JSON-RPC Request",
			fmt.Sprintf("Content-Type must be application/json (AOS 0.1.0 §2.2), got %q", r.Header.Get("Content-Type"))), ""
	}
	if err != nil {
		return http.StatusBadRequest, errResp(nil, CodeParseError, "Invalid JSON payload", err.Error()), ""
	}
	refused, method, req := check(body)
	if refused != nil {
		return http.StatusOK, refused, method
	}
	rid, _ := req.RequestID()
	id := rid.Value()
	if method == spec.MethodPing {
		g.mu.Lock()
		g.pings++
		g.mu.Unlock()
		return http.StatusOK, &response{JSONRPC: "2.0", ID: id, Result: map[string]any{
			"status": "connected", "version": Version, "timestamp": spec.FormatTime(time.Now())}}, method
	}
	return http.StatusOK, g.decide(id, method, body, req), method
}

// check reads one request body as the guardian does before it decides: the
// JSON-RPC answer that refuses it (nil when it is admitted), its method and
// the request as read. Whether it is refused is aoplint's decision.
func check(body []byte) (refused *response, method string, req *spec.Request) {
	var err error
	var hand *response
	var handPtr string
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return errResp(nil, CodeParseError, "Invalid JSON payload", err.Error()), "", nil
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errResp(nil, CodeParseError, "Invalid JSON payload", "data after the JSON value"), "", nil
	}
	req, err = spec.DecodeRequest(body)
	if err != nil {
		msg := "the request must be a JSON-RPC Request object"
		if _, isArr := v.([]any); isArr {
			msg = "batch requests are not part of AOS 0.1.0: send one Request object per POST"
		}
		return errResp(nil, CodeInvalidRequest, "Invalid JSON-RPC Request", msg), "", nil
	}
	// Whether the request is refused is aoplint's decision (Refusing: an error
	// of lint/aos's rules of one message); the JSON-RPC code is its
	// presentation (refusal). The checks below only word the refusal the
	// way JSON-RPC 2.0 answers an invalid request (-32600, -32601, -32602 with
	// the id when it is readable), and read what the guardian needs.
	hand, handPtr, method = readRequest(req)
	rid, _ := req.RequestID()
	id := rid.Value()
	if findings := Refusing(body); len(findings) > 0 {
		return refusal(id, method, spec.IsMethod(method), findings, hand, handPtr), method, req
	}
	if hand != nil {
		// A request the guardian cannot read although aoplint finds no error
		// in it (conform/difftest finds none in the corpora).
		return hand, method, req
	}
	return nil, method, req
}

// Admits reports whether the guardian takes a request body (a JSON-RPC
// request as an agent POSTs it) to its decision, rather than answering it
// with a JSON-RPC error. conform/difftest holds it to aoplint.
func Admits(body []byte) bool {
	refused, _, _ := check(body)
	return refused == nil
}

// readRequest reads a decoded request: its method, and the
// guardian's own answer to the first thing in it JSON-RPC 2.0 refuses (nil
// when none) with the member it names. The answer is only wording: the
// decision is aoplint's (Refusing).
func readRequest(req *spec.Request) (hand *response, ptr, method string) {
	rid, idOK := req.RequestID()
	id := rid.Value()
	if !idOK {
		return errResp(nil, CodeInvalidRequest, "Invalid JSON-RPC Request",
			"id must be a string or an integer (AOS 0.1.0 §3.12.1)"), "/id", ""
	}
	if v, ok := req.JSONRPC.Get(); !ok || v != "2.0" {
		return errResp(id, CodeInvalidRequest, "Invalid JSON-RPC Request", `jsonrpc must be exactly "2.0"`), "/jsonrpc", ""
	}
	method, isStr := req.Method.Get()
	if !isStr {
		return errResp(id, CodeInvalidRequest, "Invalid JSON-RPC Request", "method must be a string"), "/method", ""
	}
	// The params as a map, numbers as json.Number: ParamsProblem judges them.
	params := map[string]any{}
	switch p := req.Params.AnyNumber().(type) {
	case nil:
		if req.Params.Has() {
			return errResp(id, CodeInvalidRequest, "Invalid JSON-RPC Request", "params must be an object"), "/params", method
		}
	case map[string]any:
		params = p
	case []any:
		return errResp(id, CodeInvalidParams, "Invalid method parameters", "AOS methods take params as an object, not an array"), "/params", method
	default:
		return errResp(id, CodeInvalidRequest, "Invalid JSON-RPC Request", "params must be an object"), "/params", method
	}
	if !spec.IsMethod(method) {
		return errResp(id, CodeMethodNotFound, "Method not found", fmt.Sprintf("%q is not an AOS 0.1.0 method", method)), "/method", method
	}
	if perr := spec.ParamsProblem(method, params); perr != nil {
		return errResp(id, CodeInvalidParams, "Invalid method parameters", map[string]any{"pointer": perr.Pointer, "problem": perr.Problem}), perr.Pointer, method
	}
	return nil, "", method
}

// peekID reads the id of a request refused before parsing (wrong method or
// Content-Type), so that the answer still correlates; nil when it cannot be read.
func peekID(body []byte) any {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&req) != nil || len(req.ID) == 0 {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(req.ID))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil
	}
	if id, ok := spec.RequestID(v); ok {
		return id.Value()
	}
	return nil
}

// decide applies the sequence checks and the policy.
// body is the request's body, req the request as read from it (ParamsProblem
// passed its params).
func (g *Guardian) decide(id any, method string, body []byte, req *spec.Request) *response {
	c := call{Method: method}
	var execID string
	params := &req.Params.V
	switch method {
	case spec.MethodToolCallRequest:
		tc := &params.ToolCallRequest.V
		execID = tc.ExecutionID.V
		c.Tool = tc.ToolID.V
		c.Args = tc.Args(true)
		g.mu.Lock()
		_, dup := g.requested[execID]
		g.mu.Unlock()
		if dup {
			return errResp(id, CodeInvalidParams, "Invalid method parameters", map[string]any{"pointer": "/params/toolCallRequest/executionId",
				"problem": fmt.Sprintf("executionId %q was already used in this session; each tool call needs its own", execID)})
		}
	case spec.MethodToolCallResult:
		execID = params.ExecutionID.V
		g.mu.Lock()
		decision, known := g.requested[execID]
		seen := g.results[execID]
		if known && !seen {
			g.results[execID] = true
		}
		g.mu.Unlock()
		switch {
		case !known:
			return errResp(id, CodeInvalidParams, "Invalid method parameters", map[string]any{"pointer": "/params/executionId",
				"problem": fmt.Sprintf("executionId %q has no earlier steps/toolCallRequest in this session", execID)})
		case seen:
			return errResp(id, CodeInvalidParams, "Invalid method parameters", map[string]any{"pointer": "/params/executionId",
				"problem": fmt.Sprintf("executionId %q already has a toolCallResult", execID)})
		case decision == spec.Deny:
			// The agent ran a tool the guardian denied: answer deny.
			return &response{JSONRPC: "2.0", ID: id, Result: map[string]any{"decision": spec.Deny, "reasonCode": []string{"DENIED_CALL_EXECUTED"},
				"message": fmt.Sprintf("Tool call %s was denied; its result must not reach the model.", execID)}}
		}
	case spec.MethodMCP:
		// The MCP message (numbers as json.Number): MCP's, not AOS's.
		if m, ok := params.Message.AnyNumber().(map[string]any); ok && m["method"] == "tools/call" {
			if p, ok := m["params"].(map[string]any); ok {
				c.Tool, _ = p["name"].(string)
				c.Args, _ = p["arguments"].(map[string]any)
			}
		}
	}
	verdict, ruleID := g.Policy.Default, ""
	var rule *Rule
	if rule = g.Policy.Match(c); rule != nil {
		verdict, ruleID = rule.Verdict, rule.ID
	}
	result := map[string]any{"decision": verdict.Decision, "message": verdict.Message}
	if verdict.Reasoning != "" {
		result["reasoning"] = verdict.Reasoning
	}
	if len(verdict.ReasonCode) > 0 {
		result["reasonCode"] = verdict.ReasonCode
	}
	if len(verdict.Data) > 0 {
		result["data"] = verdict.Data
	}
	d := Decision{RequestID: id, Method: method, ExecutionID: execID, Tool: c.Tool, Args: c.Args, Decision: verdict.Decision, Rule: ruleID}
	if verdict.Decision == spec.Modify && rule != nil {
		mod, modArgs := modifiedRequest(body, method, c.Args, rule.Set)
		result["modifiedRequest"] = mod
		d.ModTool, d.ModArgs = c.Tool, modArgs
	}
	if method == spec.MethodToolCallRequest || c.Tool != "" {
		g.mu.Lock()
		if execID != "" {
			g.requested[execID] = verdict.Decision
		}
		g.decisions = append(g.decisions, d)
		g.mu.Unlock()
	}
	return &response{JSONRPC: "2.0", ID: id, Result: result}
}

// modifiedRequest copies the request (its body: every member, as a map with
// numbers as json.Number) with the policy's argument values set
// (AOSSuccessResult.modifiedRequest, §5.1.1), and gives the arguments it
// carries then (args: the request's own, for steps/toolCallRequest).
func modifiedRequest(body []byte, method string, args, set map[string]any) (map[string]any, map[string]any) {
	var cp map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	dec.Decode(&cp)
	params := cp["params"].(map[string]any)
	switch method {
	case spec.MethodToolCallRequest:
		tc := params["toolCallRequest"].(map[string]any)
		inputs, _ := tc["inputs"].([]any)
		for _, name := range slices.Sorted(maps.Keys(set)) {
			found := false
			for _, x := range inputs {
				if in, ok := x.(map[string]any); ok && in["name"] == name {
					in["value"] = set[name]
					found = true
				}
			}
			if !found {
				inputs = append(inputs, map[string]any{"name": name, "value": set[name]})
			}
		}
		tc["inputs"] = inputs
		// The inputs' arguments (ToolCallRequest.Args: the last input of a
		// name wins), every input named in set now set's.
		mod := maps.Clone(args)
		maps.Copy(mod, set)
		return cp, mod
	case spec.MethodMCP:
		m := params["message"].(map[string]any)
		p := m["params"].(map[string]any)
		margs, _ := p["arguments"].(map[string]any)
		if margs == nil {
			margs = map[string]any{}
		}
		for k, v := range set {
			margs[k] = v
		}
		p["arguments"] = margs
		return cp, margs
	}
	return cp, nil
}
