package aos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/internal/memhttp"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// DecisionFact is what the guardian answered to one steps/toolCallRequest: the
// fact conform.FactAOSDecisions the checks read.
type DecisionFact = conform.AOSDecision

// Key names an AOS record for step triggers and checks: the request method, or
// "executed" for the binding's executed line.
func Key(r *conform.Record) string {
	// A body a decode into any does not read (a number past float64's range)
	// has no key, as ever: r.Obj.
	m := r.Obj()
	if m == nil {
		return ""
	}
	req, err := spec.DecodeRequest(r.Msg)
	if err != nil {
		return ""
	}
	if meth, ok := req.Method.Get(); ok {
		return meth
	}
	// The binding's line {"executed": {...}} (docs/bindings.md §aos), no
	// JSON-RPC message.
	if _, ok := m["executed"]; ok {
		return "executed"
	}
	return ""
}

// MaxBody bounds one request body the engine reads and records (1 MiB).
const MaxBody = DefaultBodyLimit

// Drive plays the guardian side of one aos scenario against the agent (aos
// binding, docs/bindings.md): it serves the reference Guardian with a policy built
// from the scenario's decisions, gives the agent its URL in AOS_GUARDIAN_URL, writes
// the work script on stdin and closes it, and records every request and answer
// in the transcript. Two answers a policy has no words for are scenario answers:
// "error" (a JSON-RPC internal error, §5.2) and "stall" (no answer at all: the
// request is held until the agent gives up or is stopped).
//
// A real agent reaches the guardian on 127.0.0.1 at an unguessable path; an
// in-process agent (agentio.InProcess) reaches it in memory (internal/memhttp),
// so that the engine's tests run on virtual time.
func Drive(h *harness.H) error {
	sc := h.Scenario()
	policy, err := policyOf(sc.Decisions)
	if err != nil {
		return harness.Errorf("scenario %s: decisions: %v", sc.ID, err)
	}
	g := NewGuardian(policy)
	if err := faults.Check("aos", h.EngineFault()); err != nil {
		return harness.Error{Err: err}
	}
	g.Fault = h.EngineFault()
	d := &driver{h: h, g: g, budget: &httpBudget{h: h, attempt: 1}, attempt: 1,
		execSeq: map[string]int{}, stalled: make(chan struct{}), byTool: map[string]conform.Decision{}}
	for _, dec := range sc.Decisions {
		d.byTool[dec.Tool] = dec
	}
	url, stop, err := d.serve(inProcess(h.Launcher()))
	if err != nil {
		return err
	}
	if g.Fault == FaultNoListen {
		// The fault: the agent's URL leads nowhere.
		stop()
		stop = func() {}
	}
	defer func() {
		close(d.stalled)
		d.budget.report()
		stop()
		harness.SetFact(h, conform.FactAOSDecisions, d.decisions())
	}()
	script := h.Expand(sc.Task)
	harness.SetFact(h, conform.FactAOSScript, json.RawMessage(script))
	a, err := h.Launch(script, "AOS_GUARDIAN_URL="+url)
	if err != nil {
		return err
	}
	a.Send(script)
	a.CloseInput()
	return a.Run(harness.Handler{Key: Key})
}

// inProcess reports whether the launcher runs the agent in this process.
func inProcess(l agentio.Launcher) bool {
	switch l.(type) {
	case agentio.InProcess, *agentio.InProcess:
		return true
	}
	return false
}

type driver struct {
	h       *harness.H
	g       *Guardian
	budget  *httpBudget
	attempt int
	stalled chan struct{} // closed when the scenario ends: stalled requests return
	byTool  map[string]conform.Decision

	mu      sync.Mutex
	own     []DecisionFact // the scenario's own answers (error, stall)
	execSeq map[string]int // executionId → seq of its first toolCallRequest
}

// serve starts the guardian: in memory, or on 127.0.0.1 at a secret path.
func (d *driver) serve(memory bool) (url string, stop func(), err error) {
	if memory {
		// memhttp answers only at the URL's own path, as OnPath does below.
		url, stop = memhttp.Serve(http.HandlerFunc(d.answer))
		return url, stop, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, harness.Errorf("guardian listen: %v", err)
	}
	// An unguessable path: other local processes cannot reach the guardian.
	path := SecretPath()
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, MaxHeaderBytes: MaxHeaderBytes,
		Handler: OnPath(path, http.HandlerFunc(d.answer))}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + path, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}

// answer records one request, answers it (the guardian, or the scenario's error or
// stall) and records the answer.
func (d *driver) answer(w http.ResponseWriter, req *http.Request) {
	h := d.h
	if !d.budget.take(MaxBody + 1) {
		// Over the channel's budget: answered, not read, not recorded.
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the harness stopped reading requests (budget spent)"}}`+"\n")
		return
	}
	body, _ := io.ReadAll(io.LimitReader(http.MaxBytesReader(w, req.Body, MaxBody+1), MaxBody+1))
	d.budget.spend(len(body), MaxBody+1)
	rec := conform.Record{From: conform.ActorAgent, Stream: "http", Attempt: d.attempt}
	if harness.IsJSONObject(body) && len(body) <= MaxBody {
		rec.Msg = append(json.RawMessage(nil), body...)
		rec.Key = Key(&rec)
	} else {
		t := harness.ToValidUTF8(body)
		if len(t) > 4096 {
			t = t[:4096]
		}
		rec.Text = &t
	}
	if ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); ct != "application/json" || req.Method != http.MethodPost {
		rec.Detail = conform.Details(conform.KeyContentType.Is(req.Header.Get("Content-Type")), conform.KeyMethod.Is(req.Method))
	}
	rec = h.SideRecord(rec)
	// In memory (virtual time), the harness handles the request before the answer.
	memhttp.Settle(req.Context())
	call := requestOf(rec)
	execID := call.Params.V.ToolCallRequest.V.ExecutionID.V
	if rec.Key == spec.MethodToolCallRequest {
		d.mu.Lock()
		if _, seen := d.execSeq[execID]; !seen {
			d.execSeq[execID] = rec.Seq
		}
		d.mu.Unlock()
	}
	dec, special := d.byTool[toolOf(rec)]
	special = special && (dec.Decision == "stall" || dec.Decision == "error")
	if special {
		d.mu.Lock()
		d.own = append(d.own, DecisionFact{Seq: rec.Seq, ExecutionID: execID, Tool: dec.Tool, Decision: dec.Decision})
		d.mu.Unlock()
	}
	if special && dec.Decision == "stall" {
		// The id lets aoplint tell this request from one the guardian forgot.
		h.Event(d.attempt, conform.EventWithheld, conform.Details(conform.KeyRequestSeq.Is(rec.Seq), conform.KeyID.Is(call.ID.Any())))
		select {
		case <-d.stalled:
		case <-req.Context().Done():
		}
		return
	}
	var status int
	var out []byte
	if special {
		out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": call.ID.Any(), "error": map[string]any{"code": CodeInternalError, "message": "Internal error: the guardian could not decide"}})
		status = http.StatusOK
	} else {
		// The reference guardian answers; it reads the body again.
		req.Body = io.NopCloser(bytes.NewReader(body))
		status, out = d.g.Answer(req)
	}
	if d.budget.take(int64(len(out))) {
		h.Record(bodyRecord(conform.ActorOrchestrator, d.attempt, out))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(out, '\n'))
}

// decisions are the guardian's tool-call decisions and the scenario's own
// answers, in the order of their requests.
func (d *driver) decisions() []DecisionFact {
	d.mu.Lock()
	defer d.mu.Unlock()
	ds := append([]DecisionFact(nil), d.own...)
	for _, gd := range d.g.Decisions() {
		if gd.Method != spec.MethodToolCallRequest {
			continue
		}
		f := DecisionFact{Seq: d.execSeq[gd.ExecutionID], ExecutionID: gd.ExecutionID, Tool: gd.Tool, Decision: gd.Decision}
		if gd.Decision == spec.Modify {
			f.Arguments, _ = json.Marshal(gd.ModArgs)
		}
		ds = append(ds, f)
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Seq < ds[j].Seq })
	return ds
}

// bodyRecord is one HTTP body as a transcript record: a JSON object as msg, else text.
func bodyRecord(from conform.Actor, attempt int, body []byte) conform.Record {
	r := conform.Record{From: from, Stream: "http", Attempt: attempt}
	if harness.IsJSONObject(body) {
		r.Msg = append(json.RawMessage(nil), body...)
	} else {
		t := harness.ToValidUTF8(body)
		r.Text = &t
	}
	return r
}

// policyOf turns scenario decisions into a guardian policy: allow by default,
// one rule per tool; modify sets the given arguments. "error" and "stall" are
// answered by Drive itself.
func policyOf(ds []conform.Decision) (*Policy, error) {
	p := &Policy{Default: Verdict{Decision: spec.Allow, Message: "Allowed by the conformance guardian",
		Data: map[string]any{"x_aopkit": "unknown fields in results must be ignored"}}}
	for i, d := range ds {
		if d.Decision == "stall" || d.Decision == "error" {
			continue
		}
		msg := d.Message
		if msg == "" {
			msg = d.Decision + " by the conformance guardian"
		}
		r := Rule{ID: fmt.Sprintf("scenario-%d", i+1), Method: spec.MethodToolCallRequest, Tool: d.Tool, Verdict: Verdict{Decision: d.Decision, Message: msg}}
		if d.Decision == spec.Modify {
			if err := json.Unmarshal(d.Arguments, &r.Set); err != nil || len(r.Set) == 0 {
				return nil, fmt.Errorf("decision %d: modify needs arguments", i+1)
			}
		}
		p.Rules = append(p.Rules, r)
	}
	// The policy file's checks (decisions, modify with set, ...) apply as well.
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return ParsePolicy(b)
}

// toolOf is the toolId of a steps/toolCallRequest record ("" otherwise).
func toolOf(r conform.Record) string {
	if r.Key != spec.MethodToolCallRequest {
		return ""
	}
	return requestOf(r).Params.V.ToolCallRequest.V.ToolID.V
}

// requestOf is the request of an agent's record (lint/spec/aos): one with no
// member when its body is none, or one a decode into any does not read (a
// number past float64's range: r.Obj), as the engine has always read it.
func requestOf(r conform.Record) *spec.Request {
	if r.Obj() == nil {
		return &spec.Request{}
	}
	req, err := spec.DecodeRequest(r.Msg)
	if err != nil {
		return &spec.Request{}
	}
	return req
}
