package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform/harness"

	"github.com/aopkit/aopkit/conform"
	engaos "github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/conform/engine/clock"
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

const aosMaxBody = 1 << 20

// driveAOS serves the reference guardian (conform/engine/aos) on 127.0.0.1 with a
// policy built from the scenario's decisions, and sends the work script on stdin.
// Two answers the reference policy has no words for are the harness's own: "error"
// (a JSON-RPC internal error) and "stall" (no answer at all).
func driveAOS(h *harness.H) error {
	policy, err := aosPolicy(h.Scenario().Decisions)
	if err != nil {
		return harness.Errorf("scenario %s: decisions: %v", h.Scenario().ID, err)
	}
	g := engaos.NewGuardian(policy, clock.Real{}, nil)
	g.Rec = nil // the transcript is the record, within the channel's budget
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return harness.Errorf("guardian listen: %v", err)
	}
	// An unguessable path: other local processes cannot reach the guardian.
	path := engaos.SecretPath()
	url := "http://" + ln.Addr().String() + path
	budget := &httpBudget{h: h, attempt: 1}
	var mu sync.Mutex
	var own []AOSDecision       // decisions of the harness itself (error, stall)
	execSeq := map[string]int{} // executionId → seq of its first toolCallRequest
	attempt := 1
	stalled := make(chan struct{})
	byTool := map[string]conform.Decision{}
	for _, d := range h.Scenario().Decisions {
		byTool[d.Tool] = d
	}
	srv := &http.Server{
		ReadHeaderTimeout: 5 * time.Second,
		MaxHeaderBytes:    engaos.MaxHeaderBytes,
		Handler: engaos.OnPath(path, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if !budget.take(aosMaxBody + 1) {
				// Over the channel's budget: answered, not read, not recorded.
				w.Header().Set("Connection", "close")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the harness stopped reading requests (budget spent)"}}`+"\n")
				return
			}
			body, _ := io.ReadAll(io.LimitReader(http.MaxBytesReader(w, req.Body, aosMaxBody+1), aosMaxBody+1))
			budget.spend(len(body), aosMaxBody+1)
			rec := conform.Record{From: "agent", Stream: "http", Attempt: attempt}
			if harness.IsJSONObject(body) && len(body) <= aosMaxBody {
				rec.Msg = append(json.RawMessage(nil), body...)
				rec.Key = AOSKey(&rec)
			} else {
				t := harness.ToValidUTF8(body)
				if len(t) > 4096 {
					t = t[:4096]
				}
				rec.Text = &t
			}
			ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
			if ct != "application/json" || req.Method != http.MethodPost {
				rec.Detail = map[string]any{"content_type": req.Header.Get("Content-Type"), "method": req.Method}
			}
			rec = h.SideRecord(rec)
			execID := str(rec, "params", "toolCallRequest", "executionId")
			if rec.Key == "steps/toolCallRequest" {
				mu.Lock()
				if _, seen := execSeq[execID]; !seen {
					execSeq[execID] = rec.Seq
				}
				mu.Unlock()
			}
			d, special := byTool[toolOf(rec)]
			special = special && (d.Decision == "stall" || d.Decision == "error")
			if special {
				mu.Lock()
				own = append(own, AOSDecision{Seq: rec.Seq, ExecutionID: execID, Tool: d.Tool, Decision: d.Decision})
				mu.Unlock()
			}
			if special && d.Decision == "stall" {
				h.Event(attempt, "withheld", map[string]any{"request_seq": rec.Seq})
				select {
				case <-stalled:
				case <-req.Context().Done():
				}
				return
			}
			var status int
			var out []byte
			if special {
				id := rec.Obj()["id"]
				out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": "Internal error: the guardian could not decide"}})
				status = http.StatusOK
			} else {
				// The reference guardian answers; it reads the body again.
				req.Body = io.NopCloser(bytes.NewReader(body))
				rw := httptest.NewRecorder()
				g.ServeHTTP(rw, req)
				status, out = rw.Code, bytes.TrimSpace(rw.Body.Bytes())
			}
			orec := conform.Record{From: "orchestrator", Stream: "http", Attempt: attempt}
			if harness.IsJSONObject(out) {
				orec.Msg = out
			} else {
				t := string(out)
				orec.Text = &t
			}
			if budget.take(int64(len(out))) {
				h.Record(orec)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(append(out, '\n'))
		})),
	}
	go srv.Serve(ln)
	defer func() {
		close(stalled)
		budget.report()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		mu.Lock()
		ds := append([]AOSDecision(nil), own...)
		for _, d := range g.Decisions() {
			if d.Method != "steps/toolCallRequest" {
				continue
			}
			ad := AOSDecision{Seq: execSeq[d.ExecutionID], ExecutionID: d.ExecutionID, Tool: d.Tool, Decision: d.Decision}
			if d.Decision == "modify" {
				ad.Arguments, _ = json.Marshal(d.ModArgs)
			}
			ds = append(ds, ad)
		}
		mu.Unlock()
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].Seq < ds[j].Seq })
		h.Fact("aos.decisions", ds)
	}()
	script := h.Expand(h.Scenario().Task)
	h.Fact("aos.script", json.RawMessage(script))
	a, err := h.Launch(script, "AOS_GUARDIAN_URL="+url)
	if err != nil {
		return err
	}
	a.Send(script)
	a.CloseInput()
	return a.Run(harness.Handler{Key: AOSKey})
}

// aosPolicy turns scenario decisions into a reference guardian policy: allow by
// default, one rule per tool; modify sets the given arguments.
func aosPolicy(ds []conform.Decision) (*engaos.Policy, error) {
	type rule struct {
		ID       string         `json:"id"`
		Method   string         `json:"method"`
		Tool     string         `json:"tool"`
		Decision string         `json:"decision"`
		Message  string         `json:"message,omitempty"`
		Set      map[string]any `json:"set,omitempty"`
	}
	doc := struct {
		Default map[string]any `json:"default"`
		Rules   []rule         `json:"rules"`
	}{Default: map[string]any{"decision": "allow", "message": "Allowed by the conformance guardian", "data": map[string]any{"x_aopkit": "unknown fields in results must be ignored"}}}
	for i, d := range ds {
		if d.Decision == "stall" || d.Decision == "error" {
			continue
		}
		r := rule{ID: fmt.Sprintf("scenario-%d", i+1), Method: "steps/toolCallRequest", Tool: d.Tool, Decision: d.Decision, Message: orDefault(d.Message, d.Decision+" by the conformance guardian")}
		if d.Decision == "modify" {
			if err := json.Unmarshal(d.Arguments, &r.Set); err != nil || len(r.Set) == 0 {
				return nil, fmt.Errorf("decision %d: modify needs arguments", i+1)
			}
		}
		doc.Rules = append(doc.Rules, r)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return engaos.ParsePolicy(b)
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

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
