package aos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// CheckResult is the verdict of one probe of a guardian at a URL.
type CheckResult struct {
	ID      string // aos/orch/...
	Spec    string // AOS 0.1.0 section
	Level   string // MUST, SHOULD
	Verdict string // PASS, FAIL
	Detail  string
	// Unreachable: no HTTP answer at all (connection refused, reset, timeout).
	Unreachable bool
	// Seq are the transcript records of the probe and its answer (none when the
	// prober records nothing).
	Seq []int
	// Answer is what the guardian decided, without ids or times ("result:
	// decision allow", "error -32700", "no answer"): one line of the decision
	// sequence compared with the reference guardian's.
	Answer string
}

// ProbeCheck is what a guardian check is: its stable ID, spec section, level,
// tier, the requirement quoted from the spec, and a bad and a good guardian.
// conform/orchside registers them as the aos checks of the orchestrator side;
// aopconform guardian prints their verdicts.
type ProbeCheck struct {
	ID, Spec, Level, Requirement, Bad, Good string
	Tier                                    conform.Tier
	// Probe names the request in the decision sequence ("ping", "invalid JSON").
	Probe string
}

// The check IDs of the guardian side that are not probes: the guardian listens
// where the binding says, and every answer passes aoplint.
const (
	ListensID       = "aos/orch/bind/listens"
	MessagesValidID = "aos/orch/3/messages-valid"
)

// ProbeChecks lists the guardian checks, in the order the probes are sent.
func ProbeChecks() []ProbeCheck {
	var out []ProbeCheck
	for _, p := range (&Prober{}).probes() {
		out = append(out, p.ProbeCheck)
	}
	return out
}

// Prober tests a guardian at a URL: aopkit plays the agent and checks the
// guardian's answers (aopconform guardian; the aos case of certifying the
// orchestrator side). Its requests are the agent's records and the answers the
// guardian's in the harness's transcript, as in an agent run.
type Prober struct {
	URL    string
	Client *http.Client
	// H records the exchanges (nil: nothing is recorded).
	H *harness.H
	// Timeout bounds each request (0: only the context does): a guardian that
	// does not answer fails that probe and the next is sent.
	Timeout time.Duration
}

type probe struct {
	ProbeCheck
	body      []byte
	malformed bool                                                    // deliberately off the protocol: recorded as a probe
	check     func(status int, ct string, resp map[string]any) string // "" = pass
}

// StepContext builds a valid StepContext (§3.8) for the prober's own requests in
// session.
func StepContext(session, step string) map[string]any {
	return map[string]any{
		"agent": map[string]any{"id": "aopkit-probe", "name": "aopkit guardian probe", "instructions": "Probe the guardian.",
			"version": "1.0.0", "provider": map[string]any{"name": "aopkit", "url": "https://github.com/aopkit/aopkit"}},
		"session":   map[string]any{"id": session},
		"turnId":    "turn-1",
		"stepId":    step,
		"timestamp": spec.FormatTime(time.Now()),
	}
}

func rpc(id any, method string, params map[string]any) []byte {
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return data
}

func (p *Prober) probes() []probe {
	// A session and an executionId of this run's own: a guardian that keeps state
	// across sessions must not see a reused executionId when it is probed again.
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	session := "probe-session-" + run
	toolCall := rpc("probe-tool-1", spec.MethodToolCallRequest, map[string]any{
		"context": StepContext(session, "step-1"),
		"toolCallRequest": map[string]any{"executionId": "probe-exec-" + run, "toolId": "search_docs",
			"inputs": []any{map[string]any{"name": "query", "value": "quarterly report"}}},
		"reasoning": "The user asked for the quarterly report.",
	})
	// expectError checks an error response: its code, a string message, and its id:
	// null when the request's id cannot be read (wantNullID), else the request's id
	// echoed with its value and type (§3.12.1) or, for a request refused as
	// invalid, null (JSON-RPC 2.0 §5: "If there was an error in detecting the id in
	// the Request object ... it MUST be Null").
	expectError := func(code int, wantNullID bool, wantID any, nullOK bool) func(int, string, map[string]any) string {
		return func(_ int, _ string, r map[string]any) string {
			e, ok := r["error"].(map[string]any)
			if !ok {
				return fmt.Sprintf("expected an error object with code %d, got %s", code, brief(r))
			}
			if c, _ := e["code"].(json.Number); c.String() != fmt.Sprint(code) {
				return fmt.Sprintf("expected error code %d, got %v", code, e["code"])
			}
			if _, ok := e["message"].(string); !ok {
				return "error.message must be a string"
			}
			if wantNullID && r["id"] != nil {
				return fmt.Sprintf("id must be null when the request id cannot be read, got %v", r["id"])
			}
			if wantID != nil && !SameID(r["id"], wantID) && !(nullOK && r["id"] == nil) {
				want := showID(wantID)
				if nullOK {
					want += " or null"
				}
				return fmt.Sprintf("id must echo the request id %s (the same value and type, §3.12.1), got %s", want, showID(r["id"]))
			}
			return ""
		}
	}
	return []probe{
		{ProbeCheck: ProbeCheck{ID: "aos/orch/5.3/ping", Spec: "AOS 0.1.0 §4.9, §5.3", Level: "MUST", Tier: conform.Core, Probe: "ping",
			Requirement: "ping answers a result {status: connected or error, version, timestamp}; the id of the response MUST be the same as the value of the id member in the Request Object (§3.12.2).",
			Bad:         `{"jsonrpc":"2.0","id":"1","result":{"status":"ok"}} to a ping with id 1`,
			Good:        `{"jsonrpc":"2.0","id":1,"result":{"status":"connected","version":"0.1.0","timestamp":"2026-11-22T10:00:00Z"}}`},
			body: rpc(1, spec.MethodPing, map[string]any{"timestamp": spec.FormatTime(time.Now()), "timeout": 5000}),
			check: func(_ int, _ string, r map[string]any) string {
				res, ok := r["result"].(map[string]any)
				if !ok {
					return "ping must answer a result, got " + brief(r)
				}
				if s := res["status"]; s != "connected" && s != "error" {
					return fmt.Sprintf("result.status %v must be connected or error", s)
				}
				if _, ok := res["version"].(string); !ok {
					return "result.version must be a string"
				}
				if ts, _ := res["timestamp"].(string); !isTimestamp(ts) {
					return fmt.Sprintf("result.timestamp %q is not ISO 8601", ts)
				}
				if !SameID(r["id"], 1) {
					return fmt.Sprintf("id must echo the request id 1 (the same value and type, §3.12.1), got %s", showID(r["id"]))
				}
				return ""
			}},
		{ProbeCheck: ProbeCheck{ID: "aos/orch/5.1/decision", Spec: "AOS 0.1.0 §4.6, §5.1", Level: "MUST", Tier: conform.Core, Probe: "steps/toolCallRequest",
			Requirement: "A valid steps/toolCallRequest gets an AOSSuccessResult: decision MUST be one of allow, deny, modify, with a message; modify carries modifiedRequest (§5.1.1).",
			Bad:         `{"jsonrpc":"2.0","id":"probe-tool-1","result":{"decision":"approve"}}`,
			Good:        `{"jsonrpc":"2.0","id":"probe-tool-1","result":{"decision":"allow","message":"Allowed."}}`},
			body: toolCall,
			check: func(_ int, _ string, r map[string]any) string {
				res, ok := r["result"].(map[string]any)
				if !ok {
					return "a valid steps/toolCallRequest must get a result, got " + brief(r)
				}
				d := res["decision"]
				if d != spec.Allow && d != spec.Deny && d != spec.Modify {
					return fmt.Sprintf("result.decision %v must be allow, deny or modify", d)
				}
				if _, ok := res["message"].(string); !ok {
					return "result.message is required (a string)"
				}
				if d == spec.Modify {
					if _, ok := res["modifiedRequest"].(map[string]any); !ok {
						return "decision modify needs result.modifiedRequest"
					}
				}
				if !SameID(r["id"], "probe-tool-1") {
					return fmt.Sprintf("id must echo \"probe-tool-1\" (same value and type), got %s", showID(r["id"]))
				}
				return ""
			}},
		{ProbeCheck: ProbeCheck{ID: "aos/orch/6.1/parse-error", Spec: "AOS 0.1.0 §6.1, §3.12.2", Level: "MUST", Tier: conform.Resilient, Probe: "invalid JSON",
			Requirement: "-32700 Parse error: Server received JSON that was not well-formed. If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be null (§3.12.2).",
			Bad:         `{"jsonrpc":"2.0","id":2,"result":{"decision":"allow","message":"Allowed."}} to {"jsonrpc":"2.0","id":2,"method":`,
			Good:        `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Invalid JSON payload"}}`},
			malformed: true, body: []byte(`{"jsonrpc":"2.0","id":2,"method":`),
			check: expectError(CodeParseError, true, nil, false)},
		{ProbeCheck: ProbeCheck{ID: "aos/orch/6.1/invalid-request", Spec: "AOS 0.1.0 §6.1, §3.12.1", Level: "MUST", Tier: conform.Resilient, Probe: "request without method",
			Requirement: "-32600 Invalid Request: The JSON payload was valid JSON, but not a valid JSON-RPC Request object.",
			Bad:         `{"jsonrpc":"2.0","id":3,"error":"bad request"} (error as a string) to {"jsonrpc":"2.0","id":3}`,
			Good:        `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid JSON-RPC Request"}}`},
			malformed: true, body: []byte(`{"jsonrpc":"2.0","id":3}`),
			check: expectError(CodeInvalidRequest, false, 3, true)},
		{ProbeCheck: ProbeCheck{ID: "aos/orch/3.12.1/jsonrpc-version", Spec: "AOS 0.1.0 §3.12.1", Level: "MUST", Tier: conform.Full, Probe: `jsonrpc "1.0"`,
			Requirement: `jsonrpc: A String specifying the version of the JSON-RPC protocol. MUST be exactly "2.0". (A request with another version is an Invalid Request, -32600.)`,
			Bad:         `a ping with "jsonrpc":"1.0" answered with a ping result`,
			Good:        `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid JSON-RPC Request"}}`},
			malformed: true,
			body:      bytes.Replace(rpc(4, spec.MethodPing, map[string]any{"timestamp": spec.FormatTime(time.Now())}), []byte(`"2.0"`), []byte(`"1.0"`), 1),
			check:     expectError(CodeInvalidRequest, false, 4, true)},
		{ProbeCheck: ProbeCheck{ID: "aos/orch/6.1/method-not-found", Spec: "AOS 0.1.0 §6.1", Level: "MUST", Tier: conform.Resilient, Probe: "steps/foo",
			Requirement: `-32601 Method not found: The requested AOS RPC method (e.g., "steps/foo") does not exist or is not supported.`,
			Bad:         `{"jsonrpc":"2.0","id":5,"result":{"decision":"allow","message":"Allowed."}} to the method steps/foo`,
			Good:        `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`},
			malformed: true, body: rpc(5, "steps/foo", map[string]any{}),
			check: expectError(CodeMethodNotFound, false, 5, false)},
		{ProbeCheck: ProbeCheck{ID: "aos/orch/6.1/invalid-params", Spec: "AOS 0.1.0 §6.1, §4.6.1", Level: "MUST", Tier: conform.Full, Probe: "steps/toolCallRequest without toolCallRequest",
			Requirement: "-32602 Invalid params: The params provided for the method are invalid (e.g., wrong type, missing required field).",
			Bad:         "a steps/toolCallRequest without params.toolCallRequest answered with an allow decision",
			Good:        `{"jsonrpc":"2.0","id":"probe-bad-params","error":{"code":-32602,"message":"Invalid method parameters"}}`},
			malformed: true,
			body:      rpc("probe-bad-params", spec.MethodToolCallRequest, map[string]any{"context": StepContext(session, "step-2")}),
			check:     expectError(CodeInvalidParams, false, "probe-bad-params", false)},
	}
}

// ProbeScenario is the scenario of guardian mode: aopkit plays the agent and
// sends the probes; the guardian at the URL is the side under test.
var ProbeScenario = &conform.Scenario{ID: "aos-guardian-probe", Protocol: "aos", Family: "guardian",
	Title:    "aopkit plays the agent: requests to a guardian at a URL, its answers checked",
	Deadline: conform.Duration(30 * time.Second)}

// ProbeHarness is the harness of one guardian-mode run: its recorder (the one
// transcript/1 writer) writes the probes and the answers to transcript (nil: kept
// in memory only). End it when the prober is done.
func ProbeHarness(ctx context.Context, transcript io.Writer) *harness.H {
	return harness.New(ctx, harness.Config{Scenario: ProbeScenario, Transcript: transcript, Scale: 1})
}

// NoRedirectClient is the prober's HTTP client: it never follows a redirect (a
// redirect is the guardian's answer, graded as such, never a reason to send the
// probe, or grade, somewhere else).
func NoRedirectClient() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Run sends every probe and returns the verdicts, in a fixed order.
func (p *Prober) Run(ctx context.Context) []CheckResult {
	if p.Client == nil {
		p.Client = NoRedirectClient()
	}
	var out []CheckResult
	for _, pr := range p.probes() {
		res := CheckResult{ID: pr.ID, Spec: pr.Spec, Level: pr.Level, Verdict: "PASS"}
		status, ct, body, seq, err := p.post(ctx, pr.body, "application/json", pr.malformed)
		res.Seq = seq
		var resp map[string]any
		switch {
		case err != nil:
			res.Detail = err.Error()
			res.Unreachable = status == 0
			res.Answer = "no answer"
		default:
			res.Detail = checkEnvelope(ct, body, &resp)
			res.Answer = answerOf(status, resp, res.Detail != "")
			if res.Detail == "" {
				res.Detail = pr.check(status, ct, resp)
			}
		}
		if res.Detail != "" {
			res.Verdict = "FAIL"
		}
		out = append(out, res)
	}
	return out
}

// checkEnvelope checks what every response must be (§2.2, §3.12.2): JSON with
// Content-Type application/json, jsonrpc "2.0", an id, exactly one of result/error.
func checkEnvelope(ct string, body []byte, out *map[string]any) string {
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return fmt.Sprintf("response Content-Type must be application/json, got %q", ct)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Sprintf("response is not a JSON object: %v", err)
	}
	r := *out
	if r["jsonrpc"] != "2.0" {
		return fmt.Sprintf("response jsonrpc must be \"2.0\", got %v", r["jsonrpc"])
	}
	if _, ok := r["id"]; !ok {
		return "response must carry id (null when the request id could not be read)"
	}
	_, hasRes := r["result"]
	_, hasErr := r["error"]
	if hasRes == hasErr {
		return "response must hold exactly one of result and error"
	}
	return ""
}

// AnswerKey is the key of the guardian's answers in the prober's transcript: what
// the guardian says (the requests are keyed by their method, as in an agent run).
const AnswerKey = "response"

func (p *Prober) post(ctx context.Context, body []byte, ct string, malformed bool) (status int, ctype string, data []byte, seq []int, err error) {
	// Roles as in an agent run: requests are the agent's, answers the guardian's.
	if p.H != nil {
		r := bodyRecord(conform.ActorAgent, 1, body)
		r.Key = Key(&r)
		if malformed {
			r.Detail = conform.Details(conform.KeyProbe.Is("a malformed request: tests how the guardian answers it"))
		}
		seq = append(seq, p.H.Record(r).Seq)
	}
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, seq, err
	}
	req.Header.Set("Content-Type", ct)
	resp, err := p.Client.Do(req)
	if err != nil {
		if p.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", p.Timeout)
		}
		return 0, "", nil, seq, err
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(io.LimitReader(resp.Body, DefaultBodyLimit))
	if p.H != nil {
		r := bodyRecord(conform.ActorOrchestrator, 1, bytes.TrimSpace(data))
		r.Key = AnswerKey
		seq = append(seq, p.H.Record(r).Seq)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), data, seq, err
}

// answerOf renders one answer without ids or times: the result's decision or
// status, the error's code, or what is wrong with the envelope.
func answerOf(status int, resp map[string]any, badEnvelope bool) string {
	if badEnvelope {
		return fmt.Sprintf("an answer that is not a JSON-RPC response (HTTP %d)", status)
	}
	if e, ok := resp["error"].(map[string]any); ok {
		return fmt.Sprintf("error %v", e["code"])
	}
	if _, ok := resp["error"]; ok {
		return "error (not an object)"
	}
	res, ok := resp["result"].(map[string]any)
	switch {
	case !ok:
		return "result (not an object)"
	case res["decision"] != nil:
		return fmt.Sprintf("result: decision %v", res["decision"])
	case res["status"] != nil:
		return fmt.Sprintf("result: status %v", res["status"])
	}
	return "result"
}

// brief renders an answer for a detail, clipped to 200 characters.
func brief(r map[string]any) string {
	b, _ := json.Marshal(r)
	return conform.Clip(string(b), 200)
}

func isTimestamp(s string) bool { return spec.TimestampProblem(s) == "" }

// SameID reports whether a response id (decoded with UseNumber) echoes the request
// id want (a string or an int) with the same value and the same JSON type
// (§3.12.1: 1 answered with "1" is wrong; lint/spec/aos.Echoes).
func SameID(got, want any) bool {
	w, ok := spec.RequestID(want)
	return ok && spec.Echoes(got, w)
}

// showID renders an id with its JSON type visible ("1" for a string, 1 for a number).
func showID(id any) string {
	b, err := json.Marshal(id)
	if err != nil {
		return fmt.Sprint(id)
	}
	return string(b)
}
