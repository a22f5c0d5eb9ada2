package runner

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// AOSDecision is what the guardian answered to one steps/toolCallRequest.
type AOSDecision struct {
	Seq         int             `json:"seq"` // the request record
	ExecutionID string          `json:"executionId"`
	Tool        string          `json:"tool"`
	Decision    string          `json:"decision"` // allow, deny, modify, error
	Arguments   json.RawMessage `json:"arguments,omitempty"`
}

// AOSKey names an AOS message: the request method, or "response" for answers.
func AOSKey(r *conform.Record) string {
	m := r.Obj()
	if m == nil {
		if r.Text != nil {
			return ""
		}
		return ""
	}
	if meth, ok := m["method"].(string); ok {
		return meth
	}
	if _, ok := m["executed"]; ok {
		return "executed"
	}
	return ""
}

var aosMethods = map[string]bool{
	"steps/agentTrigger": true, "steps/knowledgeRetrieval": true, "steps/memoryStore": true,
	"steps/memoryContextRetrieval": true, "steps/message": true, "steps/toolCallRequest": true,
	"steps/toolCallResult": true, "protocols/A2A": true, "protocols/MCP": true, "ping": true,
}

const aosMaxBody = 1 << 20

// driveAOS serves a guardian on 127.0.0.1 and sends the work script on stdin.
func driveAOS(h *H) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return harnessErrorf("guardian listen: %v", err)
	}
	url := "http://" + ln.Addr().String() + "/"
	var mu sync.Mutex
	var decisions []AOSDecision
	attempt := 1
	stalled := make(chan struct{})
	byTool := map[string]conform.Decision{}
	for _, d := range h.sc.Decisions {
		byTool[d.Tool] = d
	}
	srv := &http.Server{
		ReadHeaderTimeout: 5 * time.Second,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			body, err := io.ReadAll(io.LimitReader(req.Body, aosMaxBody+1))
			ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
			rec := conform.Record{From: "agent", Stream: "http", Attempt: attempt, Key: ""}
			if isJSONObject(body) && len(body) <= aosMaxBody {
				rec.Msg = append(json.RawMessage(nil), body...)
			} else {
				t := toValidUTF8(body)
				if len(t) > 4096 {
					t = t[:4096]
				}
				rec.Text = &t
			}
			if rec.Msg != nil {
				rec.Key = AOSKey(&rec)
			}
			if ct != "application/json" || req.Method != http.MethodPost {
				rec.Detail = map[string]any{"content_type": req.Header.Get("Content-Type"), "method": req.Method}
			}
			rec = h.rec.add(rec)
			if d, ok := byTool[toolOf(rec)]; ok && d.Decision == "stall" {
				mu.Lock()
				decisions = append(decisions, AOSDecision{Seq: rec.Seq, ExecutionID: str(rec, "params", "toolCallRequest", "executionId"), Tool: d.Tool, Decision: "stall"})
				mu.Unlock()
				h.rec.event(attempt, "withheld", map[string]any{"request_seq": rec.Seq})
				select {
				case <-stalled:
				case <-req.Context().Done():
				}
				return
			}
			resp, status := aosAnswer(rec, body, err, ct, req.Method, byTool, func(d AOSDecision) {
				mu.Lock()
				decisions = append(decisions, d)
				mu.Unlock()
			})
			b, _ := json.Marshal(resp)
			h.rec.add(conform.Record{From: "orchestrator", Stream: "http", Msg: b, Attempt: attempt})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(b)
		}),
	}
	go srv.Serve(ln)
	defer func() {
		close(stalled)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		mu.Lock()
		sort.Slice(decisions, func(i, j int) bool { return decisions[i].Seq < decisions[j].Seq })
		h.Fact("aos.decisions", append([]AOSDecision(nil), decisions...))
		mu.Unlock()
	}()
	script := h.Expand(h.sc.Task)
	h.Fact("aos.script", json.RawMessage(script))
	a, err := h.Launch(script, "AOS_GUARDIAN_URL="+url)
	if err != nil {
		return err
	}
	a.Send(script)
	return a.Run(Handler{Key: AOSKey})
}

// aosAnswer builds the guardian's JSON-RPC response.
func aosAnswer(rec conform.Record, body []byte, readErr error, ct, method string, byTool map[string]conform.Decision, note func(AOSDecision)) (map[string]any, int) {
	errResp := func(id any, code int, msg string) (map[string]any, int) {
		return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}}, http.StatusOK
	}
	if readErr != nil || len(body) > aosMaxBody {
		return errResp(nil, -32600, "Invalid Request: body too large or unreadable")
	}
	if method != http.MethodPost {
		return errResp(nil, -32600, "Invalid Request: AOS methods are invoked with HTTP POST")
	}
	var raw any
	if err := json.Unmarshal(body, &raw); err != nil {
		return errResp(nil, -32700, "Parse error: "+err.Error())
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return errResp(nil, -32600, "Invalid Request: not a JSON-RPC request object")
	}
	id, hasID := m["id"]
	switch id.(type) {
	case string, float64:
	default:
		hasID = false
	}
	if !hasID {
		id = nil
	}
	meth, _ := m["method"].(string)
	if m["jsonrpc"] != "2.0" || meth == "" || !hasID {
		return errResp(id, -32600, "Invalid Request: jsonrpc \"2.0\", method and a string or integer id are required")
	}
	if ct != "application/json" {
		return errResp(id, -32600, "Invalid Request: Content-Type must be application/json")
	}
	if !aosMethods[meth] {
		return errResp(id, -32601, "Method not found: "+meth)
	}
	params, _ := m["params"].(map[string]any)
	if meth == "ping" {
		return map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"status": "connected", "version": "aopconform-guardian/1", "timestamp": nowISO()}}, http.StatusOK
	}
	allow := map[string]any{"decision": "allow", "message": "Allowed by the conformance guardian", "reasonCode": []any{}, "data": map[string]any{"x_aopkit": "unknown fields in results must be ignored"}}
	if meth != "steps/toolCallRequest" {
		return map[string]any{"jsonrpc": "2.0", "id": id, "result": allow}, http.StatusOK
	}
	tcr, _ := params["toolCallRequest"].(map[string]any)
	if tcr == nil {
		return errResp(id, -32602, "Invalid params: toolCallRequest is required")
	}
	tool, _ := tcr["toolId"].(string)
	execID, _ := tcr["executionId"].(string)
	d, ok := byTool[tool]
	if !ok {
		d = conform.Decision{Tool: tool, Decision: "allow"}
	}
	dec := AOSDecision{Seq: rec.Seq, ExecutionID: execID, Tool: tool, Decision: d.Decision}
	result := map[string]any{"decision": d.Decision, "message": orDefault(d.Message, d.Decision+" by the conformance guardian"), "reasoning": "scenario policy"}
	switch d.Decision {
	case "modify":
		dec.Arguments = d.Arguments
		var args map[string]any
		json.Unmarshal(d.Arguments, &args)
		names := make([]string, 0, len(args))
		for k := range args {
			names = append(names, k)
		}
		sort.Strings(names)
		inputs := []any{}
		for _, k := range names {
			inputs = append(inputs, map[string]any{"name": k, "value": args[k]})
		}
		newTCR := map[string]any{}
		for k, v := range tcr {
			newTCR[k] = v
		}
		newTCR["inputs"] = inputs
		newParams := map[string]any{}
		for k, v := range params {
			newParams[k] = v
		}
		newParams["toolCallRequest"] = newTCR
		result["modifiedRequest"] = map[string]any{"jsonrpc": "2.0", "id": id, "method": meth, "params": newParams}
	case "error":
		note(dec)
		return errResp(id, -32603, "Internal error: the guardian could not decide")
	}
	note(dec)
	return map[string]any{"jsonrpc": "2.0", "id": id, "result": result}, http.StatusOK
}

// toolOf is the toolId of a steps/toolCallRequest record ("" otherwise).
func toolOf(r conform.Record) string {
	if r.Key != "steps/toolCallRequest" {
		return ""
	}
	return str(r, "params", "toolCallRequest", "toolId")
}

func str(r conform.Record, keys ...string) string {
	var v any = r.Obj()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}
