// Package aos is the reference AOS 0.1.0 agent of mockagent (specs/aos-0.1.0.md)
// under the aos binding: it reads its work script from stdin, pings the guardian at
// AOS_GUARDIAN_URL, reports the user message, asks steps/toolCallRequest before each
// tool call and obeys the decision (allow: run and send steps/toolCallResult; deny:
// never run; modify: run the modifiedRequest instead), prints one executed line per
// tool it ran and reports its answer with steps/message. Each fault breaks one rule.
//
// Its HTTP requests go through Env.HTTP: in-process (agentio.InProcess) they reach
// an engine serving in memory without a socket (virtual time); as a process they
// use the network.
package aos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aopkit/aopkit/conform/fault"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	spec "github.com/aopkit/aopkit/lint/spec/aos"
	"github.com/aopkit/aopkit/mockagent"
)

// faults is the catalogue of the mock agent, each fault declared once below.
var faults fault.Catalogue

// The faults of the AOS agent; Rule names the conform check (and the lint rule, where
// aoplint sees it in a transcript) each breaks: the fault matrix in
// docs/aopconform.md shows every check each one fails.
var (
	FaultHang                 = faults.Add(fault.Fault{Name: "hang", Rule: "aos/bind/all-tools-requested agent never requests its script's tool calls (stopped at the deadline)", Doc: "stops after the ping and never exits"})
	FaultExceedTimeout        = faults.Add(fault.Fault{Name: "exceed-timeout", Rule: "aos/bind/all-tools-requested agent exceeds the scenario deadline before its tool calls", Doc: "waits ten minutes before every tool call"})
	FaultCrashMidTask         = faults.Add(fault.Fault{Name: "crash-mid-task", Rule: "aos/bind/exit-zero crash (exit 2) after a tool ran, before its steps/toolCallResult", Doc: "runs the first allowed tool, then exits with code 2 before reporting its result"})
	FaultMalformedJSON        = faults.Add(fault.Fault{Name: "malformed-json", Rule: "aos/3.12.1/jsonrpc-request request body is not JSON (-32700)", Doc: "posts one request whose JSON is cut short"})
	FaultIgnoreDeny           = faults.Add(fault.Fault{Name: "ignore-deny", Rule: "aos/5.1/deny-enforced, AOS-SEQ-007 tool ran although the guardian denied it", Doc: "runs denied tools anyway and reports their results"})
	FaultIgnoreModify         = faults.Add(fault.Fault{Name: "ignore-modify", Rule: "aos/5.1/modify-enforced, AOS-SEQ-008 tool ran with the original, not the modified request", Doc: "runs the original request when the guardian answers modify"})
	FaultBadTimestamps        = faults.Add(fault.Fault{Name: "bad-timestamps", Rule: "aos/3.8/step-context, AOS-TIME-001 context.timestamp is not ISO 8601 (-32602)", Doc: "writes context.timestamp as \"22/11/2026 10:00\""})
	FaultStdoutGarbage        = faults.Add(fault.Fault{Name: "stdout-garbage", Rule: "aos/bind/stdout-protocol-only stdout line is not an executed line", Doc: "prints plain log lines on stdout"})
	FaultWrongJSONRPCVersion  = faults.Add(fault.Fault{Name: "wrong-jsonrpc-version", Rule: "aos/3.12.1/jsonrpc-request, AOS-RPC-001 jsonrpc must be exactly \"2.0\" (-32600)", Doc: "sends jsonrpc \"1.0\""})
	FaultMissingCitation      = faults.Add(fault.Fault{Name: "missing-citation", Rule: "aos/4.5/message-params, AOS-DIALECT-001 steps/message without citation (-32602)", Doc: "leaves citation out of steps/message (and sends the upstream spelling citations)"})
	FaultResultBeforeRequest  = faults.Add(fault.Fault{Name: "result-before-request", Rule: "aos/4.6/request-before-execute, AOS-SEQ-004 steps/toolCallResult before its steps/toolCallRequest", Doc: "reports the first tool's result before asking for it"})
	FaultDuplicateExecutionID = faults.Add(fault.Fault{Name: "duplicate-execution-id", Rule: "aos/4.6/unique-execution-ids, AOS-SEQ-012 executionId reused for a second tool call", Doc: "uses the same executionId for every tool call"})
	FaultOversizePayload      = faults.Add(fault.Fault{Name: "oversize-payload", Rule: "aos/3.12.1/jsonrpc-request request body over the guardian's 1 MiB limit (HTTP 413)", Doc: "sends a steps/memoryStore of 2 MiB"})
	FaultWrongContentType     = faults.Add(fault.Fault{Name: "wrong-content-type", Rule: "aos/2.2/content-type Content-Type must be application/json (HTTP 415)", Doc: "posts its requests as text/plain"})
	FaultUnknownMethod        = faults.Add(fault.Fault{Name: "unknown-method", Rule: "aos/3.12.1/jsonrpc-request, AOS-RPC-004 method not found (-32601)", Doc: "calls steps/toolCall instead of steps/toolCallRequest once"})
	FaultUnguardedExecution   = faults.Add(fault.Fault{Name: "unguarded-execution", Rule: "aos/4.6/request-before-execute, AOS-SEQ-004 tool ran without steps/toolCallRequest", Doc: "runs the last tool without asking the guardian"})
	FaultFailOpen             = faults.Add(fault.Fault{Name: "fail-open", Rule: "aos/5.2/fail-closed no execution when the guardian answers with an error (§5.2, §6)", Doc: "runs a tool whose steps/toolCallRequest the guardian answered with a JSON-RPC error, and reports its result"})
	FaultRawFileBytes         = faults.Add(fault.Fault{Name: "raw-file-bytes", Rule: "aos/lint/messages-valid, AOS-PART-002 FileWithBytes.bytes is base64 (§3.5.1)", Doc: "attaches its work log to its final steps/message as a FilePart whose bytes are the raw text, not base64"})
	FaultMissingResult        = faults.Add(fault.Fault{Name: "missing-result", Rule: "aos/4.6/result-after-execute, AOS-SEQ-017 steps/toolCallResult after every executed tool (§4.6)", Doc: "runs its last tool and never sends its steps/toolCallResult"})
	FaultIgnoreShutdown       = faults.Add(fault.Fault{Name: "ignore-shutdown", Rule: "aos/bind/stop-on-sigterm exit within the grace period after SIGTERM (bindings §Process control)", Doc: "ignores SIGTERM: waiting on a guardian that never answers, only SIGKILL stops it"})
)

// Agent is the protocol's reference agent (conform/protocols lists it).
var Agent = mockagent.Register(&mockagent.Agent{Protocol: "aos", Faults: &faults, Run: Run})

type script struct {
	Task  string `json:"task"`
	Tools []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"tools"`
}

type agent struct {
	ctx    context.Context
	env    mockagent.Env
	fault  string
	url    string
	client *http.Client
	nextID int
	step   int
}

// Run plays the AOS agent; see the package doc.
func Run(ctx context.Context, env mockagent.Env, fault string) int {
	a := &agent{ctx: ctx, env: env, fault: fault, url: env.Getenv("AOS_GUARDIAN_URL"), client: &http.Client{Transport: env.HTTP}}
	if a.url == "" {
		fmt.Fprintln(env.Stderr, "mockagent aos: AOS_GUARDIAN_URL is not set")
		return 2
	}
	line, err := bufio.NewReader(env.Stdin).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		fmt.Fprintln(env.Stderr, "mockagent aos: no work script on stdin:", err)
		return 2
	}
	var sc script
	if err := json.Unmarshal(line, &sc); err != nil {
		fmt.Fprintln(env.Stderr, "mockagent aos: bad work script:", err)
		return 2
	}
	if _, err := a.call("ping", map[string]any{"timestamp": a.now(), "timeout": 5000}); err != nil {
		var ge guardianError
		if !errors.As(err, &ge) {
			fmt.Fprintln(env.Stderr, "mockagent aos: guardian unreachable:", err)
			return 1
		}
		fmt.Fprintln(env.Stderr, "mockagent aos: ping:", err)
	}
	if fault == FaultHang {
		for a.sleep(time.Minute) {
		}
		return 0
	}
	if fault == FaultMalformedJSON {
		a.post([]byte(`{"jsonrpc":"2.0","id":99,"method":"steps/message","params":{"context":`), "application/json")
	}
	if fault == FaultOversizePayload {
		a.call("steps/memoryStore", map[string]any{"context": a.context(), "memory": []string{strings.Repeat("x", 2<<20)}})
	}
	msg := map[string]any{"context": a.context(), "message": map[string]any{"id": "msg-user-1", "role": "user",
		"content": []any{map[string]any{"kind": "text", "text": sc.Task}}}, "citation": []any{}}
	if fault == FaultMissingCitation {
		delete(msg, "citation")
		msg["citations"] = []any{}
	}
	if res, err := a.call("steps/message", msg); err == nil && res.Decision.V == "deny" {
		fmt.Fprintln(env.Stderr, "mockagent aos: the guardian denied the user message; stopping")
		return 0
	}
	ran := 0
	for i, tool := range sc.Tools {
		if fault == FaultExceedTimeout && !a.sleep(10*time.Minute) {
			return 0
		}
		if fault == FaultStdoutGarbage {
			fmt.Fprintf(env.Stdout, "calling tool %s...\n", tool.Name)
		}
		execID := fmt.Sprintf("exec-%d", i+1)
		if fault == FaultDuplicateExecutionID {
			execID = "exec-1"
		}
		if fault == FaultUnguardedExecution && i == len(sc.Tools)-1 {
			a.execute(execID, tool.Name, tool.Arguments)
			a.result(execID)
			ran++
			continue
		}
		if fault == FaultResultBeforeRequest && i == 0 {
			a.result(execID)
		}
		method := "steps/toolCallRequest"
		if fault == FaultUnknownMethod && i == 0 {
			method = "steps/toolCall"
		}
		res, err := a.call(method, map[string]any{"context": a.context(),
			"toolCallRequest": map[string]any{"executionId": execID, "toolId": tool.Name, "inputs": inputs(tool.Arguments)},
			"reasoning":       fmt.Sprintf("Step %d of the work script.", i+1)})
		decision := res.Decision.V
		var ge guardianError
		if err != nil && fault == FaultFailOpen && errors.As(err, &ge) {
			fmt.Fprintf(env.Stderr, "mockagent aos: %s: %v; running %s anyway (fail open)\n", method, err, tool.Name)
			decision = "allow"
		} else if err != nil {
			fmt.Fprintf(env.Stderr, "mockagent aos: %s: %v; not running %s (fail closed)\n", method, err, tool.Name)
			decision = "deny"
		}
		name, args := tool.Name, tool.Arguments
		switch decision {
		case "allow":
		case "modify":
			if a.fault != FaultIgnoreModify {
				name, args = modified(res, name, args)
			}
		default: // deny, or anything the agent does not understand: fail closed
			if a.fault != FaultIgnoreDeny || err != nil {
				continue
			}
		}
		a.execute(execID, name, args)
		ran++
		if fault == FaultCrashMidTask {
			fmt.Fprintln(env.Stderr, "mockagent aos: simulated crash")
			return 2
		}
		if fault == FaultMissingResult && i == len(sc.Tools)-1 {
			continue
		}
		a.result(execID)
	}
	content := []any{map[string]any{"kind": "text", "text": fmt.Sprintf("Ran %d of %d tool calls.", ran, len(sc.Tools))}}
	if fault == FaultRawFileBytes {
		// The log as it is, where §3.5.1 wants it base64 encoded.
		content = append(content, map[string]any{"kind": "file", "file": map[string]any{"name": "work.log", "mimeType": "text/plain",
			"bytes": fmt.Sprintf("ran %d of %d tool calls; no errors!", ran, len(sc.Tools))}})
	}
	a.call("steps/message", map[string]any{"context": a.context(), "message": map[string]any{"id": "msg-agent-1", "role": "agent",
		"content": content},
		"citation": []any{}, "reasoning": "Summary of the work script."})
	return 0
}

// sleep waits d on the agent's clock; false when the agent must stop.
func (a *agent) sleep(d time.Duration) bool { return a.env.Sleep(a.ctx, d) }

func (a *agent) now() string { return spec.FormatTime(a.env.Clock.Now()) }

// context builds a StepContext (§3.8); every call is one step.
func (a *agent) context() map[string]any {
	a.step++
	ts := a.now()
	if a.fault == FaultBadTimestamps {
		ts = a.env.Clock.Now().UTC().Format("02/01/2006 15:04")
	}
	return map[string]any{
		"agent": map[string]any{"id": "mockagent-aos", "name": "aopkit mockagent", "instructions": "Follow the work script; obey the guardian.",
			"version": "1.0.0", "provider": map[string]any{"name": "aopkit", "url": "https://github.com/aopkit/aopkit"}},
		"session":   map[string]any{"id": "session-1"},
		"turnId":    "turn-1",
		"stepId":    fmt.Sprintf("step-%d", a.step),
		"timestamp": ts,
	}
}

// inputs renders arguments as ToolArgumentValue[] in name order.
func inputs(args map[string]any) []any {
	names := slices.Sorted(maps.Keys(args))
	out := []any{}
	for _, n := range names {
		out = append(out, map[string]any{"name": n, "value": args[n]})
	}
	return out
}

// modified reads the call to run from result.modifiedRequest.
func modified(res *spec.Result, name string, args map[string]any) (string, map[string]any) {
	tc, ok := res.ModifiedRequest.V.Params.V.ToolCallRequest.Get()
	if !ok {
		return name, args
	}
	if id, ok := tc.ToolID.Get(); ok && id != "" {
		name = id
	}
	if tc.Inputs.OK {
		args = tc.Args(false)
	}
	return name, args
}

func (a *agent) execute(execID, name string, args map[string]any) {
	if args == nil {
		args = map[string]any{}
	}
	data, _ := json.Marshal(map[string]any{"executed": map[string]any{"executionId": execID, "name": name, "arguments": args}})
	fmt.Fprintf(a.env.Stdout, "%s\n", data)
}

func (a *agent) result(execID string) {
	a.call("steps/toolCallResult", map[string]any{"context": a.context(), "executionId": execID,
		"result": map[string]any{"outputs": []any{map[string]any{"kind": "text", "text": "ok"}}, "isError": false}})
}

// call sends one request and returns its result, or an error for an error
// answer (and a result with no member).
func (a *agent) call(method string, params map[string]any) (*spec.Result, error) {
	a.nextID++
	req := map[string]any{"jsonrpc": "2.0", "id": a.nextID, "method": method, "params": params}
	if a.fault == FaultWrongJSONRPCVersion {
		req["jsonrpc"] = "1.0"
	}
	body, _ := json.Marshal(req)
	ct := "application/json"
	if a.fault == FaultWrongContentType {
		ct = "text/plain"
	}
	resp, err := a.post(body, ct)
	none := &spec.Result{}
	if err != nil {
		return none, err
	}
	if e, ok := resp.Error.Get(); ok {
		return none, guardianError(fmt.Sprintf("guardian error %v: %v", e.Code.Any(), e.Message.Any()))
	}
	res, ok := resp.Result.Get()
	if !ok {
		return none, fmt.Errorf("guardian answer without result")
	}
	return &res, nil
}

// guardianError is a JSON-RPC error answer (the guardian is there, but said no).
type guardianError string

func (e guardianError) Error() string { return string(e) }

func (a *agent) post(body []byte, ct string) (*spec.Response, error) {
	req, err := http.NewRequestWithContext(a.ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", ct)
	resp, err := a.client.Do(req)
	if err != nil {
		// The error without the guardian's URL (its path is a secret).
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("%s: %w", ue.Op, ue.Err)
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	out, err := spec.DecodeResponse(data)
	if err != nil {
		return nil, fmt.Errorf("guardian answer is not JSON: %v", err)
	}
	return out, nil
}
