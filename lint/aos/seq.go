package aos

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/millis"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// seqRule is a sequence rule of the group, its prose from rules.yaml.
func seqRule(id string, sev lint.Severity) *lint.Rule {
	return ruleDocs.Rule(lint.Rule{ID: id, Protocol: ID, Severity: sev, Group: seqGroup, NewChecker: newChecker})
}

var (
	SeqUnknownResponse      = seqRule("AOS-SEQ-001", lint.Error)
	SeqAnsweredTwice        = seqRule("AOS-SEQ-002", lint.Error)
	SeqUnanswered           = seqRule("AOS-SEQ-003", lint.Warning)
	SeqUnknownExecution     = seqRule("AOS-SEQ-004", lint.Error)
	SeqMessageID            = seqRule("AOS-SEQ-005", lint.Error)
	SeqStepID               = seqRule("AOS-SEQ-006", lint.Error)
	SeqDeniedExecuted       = seqRule("AOS-SEQ-007", lint.Error)
	SeqIgnoredModify        = seqRule("AOS-SEQ-008", lint.Error)
	SeqModifiedMethod       = seqRule("AOS-SEQ-009", lint.Error)
	SeqResponseType         = seqRule("AOS-SEQ-010", lint.Error)
	SeqDuplicateRequestID   = seqRule("AOS-SEQ-011", lint.Error)
	SeqDuplicateExecution   = seqRule("AOS-SEQ-012", lint.Error)
	SeqDirection            = seqRule("AOS-SEQ-013", lint.Error)
	SeqExecutedOther        = seqRule("AOS-SEQ-015", lint.Error)
	SeqResultBeforeDecision = seqRule("AOS-SEQ-014", lint.Error)
)

var (
	SeqTriggerFirst    = seqRule("AOS-SEQ-016", lint.Warning)
	SeqDuplicateResult = seqRule("AOS-SEQ-017", lint.Error)
)

// SeqLateAnswer: the guardian answered after the agent's declared timeout.
var SeqLateAnswer = seqRule("AOS-SEQ-018", lint.Warning)

var seqRules = []*lint.Rule{
	SeqUnknownResponse, SeqAnsweredTwice, SeqUnanswered, SeqUnknownExecution, SeqMessageID, SeqStepID, SeqDeniedExecuted,
	SeqIgnoredModify, SeqModifiedMethod, SeqResponseType, SeqDuplicateRequestID, SeqDuplicateExecution, SeqDirection, SeqResultBeforeDecision, SeqExecutedOther, SeqTriggerFirst, SeqDuplicateResult, SeqLateAnswer,
}

func init() { lint.Register(seqRules...) }

// seqGroup is the rule group of every AOS sequence rule: one checker and one copy
// of the state per stream, reporting under each rule.
const seqGroup = "aos-seq"

func newChecker() lint.Checker { return &checker{st: newState()} }

// checker runs the state machine once for all AOS sequence rules and reports each
// finding under its rule.
//
// A lone message (a single-message file) has no sequence: findings about the first
// message of a stream are held back until a second message shows it is a stream.
type checker struct {
	st    *state
	p     *lint.Pass
	path  string
	count int
	held  []held
	// preRequest holds AOS-SEQ-001 findings of a stream that has shown no request
	// yet: a stream of responses only (a guardian's log) is not checked.
	preRequest []held
	sawRequest bool
}

type held struct {
	rule    *lint.Rule
	sev     lint.Severity
	at      lint.Related
	related []lint.Related
	msg     string
}

func (c *checker) report(r *lint.Rule, ptr string, related []lint.Related, format string, args ...any) {
	c.reportSev(r, r.Severity, ptr, related, format, args...)
}

func (c *checker) reportSev(r *lint.Rule, sev lint.Severity, ptr string, related []lint.Related, format string, args ...any) {
	if c.count == 1 {
		c.held = append(c.held, held{r, sev, lint.Witness(c.p.Msg, ptr, ""), related, fmt.Sprintf(format, args...)})
		return
	}
	c.p.As(r).ReportRelatedf(sev, ptr, related, format, args...)
}

// rels renders marks as the Related of a finding.
func (c *checker) rels(ks ...mark) []lint.Related {
	out := make([]lint.Related, len(ks))
	for i, k := range ks {
		out[i] = c.rel(k)
	}
	return out
}

// capped reports, once per table, that the state forgot old entries; r is the
// first rule whose findings depend on the table, ids names them all.
func (c *checker) capped(evicted bool, what string, r *lint.Rule, ids string) {
	if evicted {
		c.reportSev(r, lint.Info, "", nil, "more than %d %s are tracked at once; the oldest are forgotten, so later findings of %s about them may be missed", MaxTracked, what, ids)
	}
}

// mark makes the witness of the value at ptr (a pointer whose parents are members
// of the message), resolved without splitting strings.
func (c *checker) mark(m *lint.Message, ptr string, kind markKind, a, b string) mark {
	return c.markNode(m, memberAt(m.Root, ptr), ptr, kind, a, b)
}

// memberAt is the node at ptr, a path of member names below root (no escaped
// tokens), or the deepest member of it that exists; read without splitting
// strings. nil when root is.
func memberAt(root *jsonread.Node, ptr string) *jsonread.Node {
	n := root
	rest := ptr
	for len(rest) > 1 && n != nil {
		rest = rest[1:]
		tok := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			tok, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		next := n.Get(tok)
		if next == nil {
			break
		}
		n = next
	}
	return n
}

// markNode is mark for n, the node at ptr the caller read (or the one mark's
// walk of ptr stops at): its position without walking ptr again.
func (c *checker) markNode(m *lint.Message, n *jsonread.Node, ptr string, kind markKind, a, b string) mark {
	line, col := m.Pos.Position(n.Offset)
	return mark{line: int32(line), col: int32(col), kind: kind, ptr: ptr, a: a, b: b}
}

func (c *checker) Observe(p *lint.Pass) {
	c.observe(p)
	c.p = nil // the pass holds the message: keep neither past its turn
	if p.Msg != nil && p.Msg.Protocol == ID {
		releaseView(p.Msg)
	}
}

func (c *checker) observe(p *lint.Pass) {
	m := p.Msg
	if m != nil && m.From == "harness" && m.Kind == "harness:withheld" && m.Root != nil {
		// The harness withheld this request's answer on purpose (a stalled
		// guardian): no answer is due.
		if key, ok := idKey(m.Root.Path("detail", "id")); ok {
			c.st.open.Delete(key)
		}
		return
	}
	if m == nil || m.Protocol != ID || m.Root == nil || m.Root.Kind != jsonread.Object {
		return
	}
	c.p = p
	c.path = m.Path
	c.count++
	if c.count == 2 {
		for _, h := range c.held {
			p.As(h.rule).ReportAtf(h.sev, h.at, h.related, "%s", h.msg)
		}
		c.held = nil
	}
	if m.Kind == KindExecuted {
		if e := m.Root.Path("executed", "executionId"); e.IsString() {
			c.executed(m, e.Str)
		}
		return
	}
	if isBinding(m) {
		return
	}
	// The root's members as the single-message rules read them (the view
	// they left as the message's Parsed; made here when they did not run).
	v := viewOf(m)
	if methodN := v.method; methodN != nil {
		if m.From == "orchestrator" {
			c.report(SeqDirection, "/method", nil, "a request (method %s) sent by the orchestrator: AOS requests are sent by the agent to the guardian (§4)", idText(methodN))
		}
		c.request(m, v)
		return
	}
	if res := v.result; res != nil || v.err != nil {
		if m.From == "agent" {
			c.report(SeqDirection, "", nil, "a response sent by the agent: AOS responses come from the guardian, which answers the agent's requests (§4)")
		}
		c.response(m, v)
		return
	}
	if v.id != nil && m.From != "orchestrator" {
		c.request(m, v) // an invalid request (no method) the guardian may still answer by id
	}
}

// The rules whose findings depend on each table (capped names them).
const (
	requestRules = "AOS-SEQ-001, 002, 003, 005, 006, 008, 010, 011, 014, 017 and 018"
	toolRules    = "AOS-SEQ-004, 007, 008, 012, 014, 015 and 017"
)

// request follows the request m, whose root's members are v's (its method
// v.method, nil for an invalid request without one).
func (c *checker) request(m *lint.Message, v *view) {
	methodN := v.method
	st := c.st
	root := m.Root
	method := intern(methodN.String())
	params := v.params
	if !c.sawRequest {
		c.sawRequest = true
		for _, h := range c.preRequest {
			c.p.As(h.rule).ReportAtf(h.sev, h.at, h.related, "%s", h.msg)
		}
		c.preRequest = nil
	}
	idN := v.id
	key, hasKey := idKey(idN)
	r := &request{key: key, method: method, at: m.At}
	if hasKey {
		r.w = c.markNode(m, idN, "/id", markRequest, method, key)
	}
	ctx := params.Get("context")
	sessionID := ctx.Path("session", "id").String()
	var eN *jsonread.Node
	if method == "steps/toolCallRequest" {
		eN = params.Path("toolCallRequest", "executionId")
		r.execID = own(eN.String()) // kept: a key, a witness
	}
	sid := ctx.Get("stepId")
	stepKey := "" // the steps table's key (AOS-SEQ-006), kept
	if sid.IsString() {
		stepKey = sessionID + "\x00" + ctx.Get("turnId").String() + "\x00" + sid.Str
	}
	r.subject = subject(root, method, params, ctx, sessionID, r.execID, stepKey)
	if method == "ping" {
		if tN := params.Get("timeout"); tN != nil {
			if ms, ok := tN.Int(); ok && ms > 0 {
				st.timeout, st.timeoutMS = millis.Duration(float64(ms)), ms
				// only its position is used (timeoutWitness)
				st.timeoutW, st.timeoutPath = c.markNode(m, tN, "/params/timeout", markRequest, "", ""), m.Path
			}
		}
	}

	// AOS-SEQ-008: a re-sent request after modify carries the modified payload.
	if !r.subject.none() && st.mods.Len() > 0 {
		subj := r.subject.String()
		if mod, ok := st.mods.Get(subj); ok {
			st.mods.Delete(subj)
			if mod.method == method && mod.payload != payload(root) {
				c.report(SeqIgnoredModify, "/params", c.rels(mod.w), "after the guardian's modify, the agent sent this %s again without the modification: its params differ from modifiedRequest's; proceed with modifiedRequest", method)
			}
		}
	}

	// AOS-SEQ-011: id reused while unanswered.
	resent := false
	if hasKey {
		if old, ok := st.open.Get(key); ok {
			resent = true
			c.report(SeqDuplicateRequestID, "/id", c.rels(old.w), "request id %s is already used by an unanswered %s request; give every request its own id", idText(root.Get("id")), old.method)
		}
	}

	switch method {
	case "steps/toolCallRequest":
		if e := r.execID; e != "" {
			if old, ok := st.tools.Get(e); ok {
				retry := old.decision == "modify" || old.decision == "error"
				if !retry {
					c.report(SeqDuplicateExecution, "/params/toolCallRequest/executionId", c.rels(old.w), "executionId %q was already used by an earlier tool call; give every tool call its own executionId", e)
				}
			}
			tc := &toolCall{w: c.markNode(m, eN, "/params/toolCallRequest/executionId", markTool, e, ""), reqKey: key}
			tc.call = sigOf(m, params.Get("toolCallRequest"))
			c.capped(st.tools.Put(e, tc), "tool calls", SeqUnknownExecution, toolRules)
		}
	case "steps/toolCallResult":
		e := params.Get("executionId").String()
		ptr := "/params/executionId"
		if e == "" {
			e = params.Path("toolCallResult", "executionId").String()
			ptr = "/params/toolCallResult/executionId"
		}
		if e != "" {
			c.toolResult(m, e, ptr)
		}
	}

	// AOS-SEQ-016: agentTrigger opens its session.
	if ctx.Has("session") {
		if first, seen := st.firstStep.Get(sessionID); seen && method == "steps/agentTrigger" {
			c.report(SeqTriggerFirst, "/method", c.rels(first), "steps/agentTrigger comes after other steps of session %q; the trigger is the first step of a session (§4.1)", sessionID)
		} else if !seen {
			sid := own(sessionID)
			at := methodN
			if at == nil {
				at = root // where mark's walk of /method stops
			}
			c.capped(st.firstStep.Put(sid, c.markNode(m, at, "/method", markFirst, sid, "")), "sessions", SeqTriggerFirst, SeqTriggerFirst.ID)
		}
	}

	// AOS-SEQ-005 / 006: message and step ids.
	if method == "steps/message" {
		if mid := params.Path("message", "id"); mid.IsString() {
			k := sessionID + "\x00" + mid.Str
			if old, ok := st.msgIDs.Get(k); ok && !c.isRetry(old.reqKey, method) {
				c.report(SeqMessageID, "/params/message/id", c.rels(old.w), "message id %q is already used in session %q; a unique identifier must be provided for messages in the same session (§3.3)", mid.Str, sessionID)
			}
			w := c.markNode(m, mid, "/params/message/id", markMessage, suffix(k, mid.Str), "")
			c.capped(st.msgIDs.Put(k, step{w: w, method: method, reqKey: key}), "message ids", SeqMessageID, SeqMessageID.ID)
		}
	}
	if stepKey != "" {
		execID := r.execID
		if method == "steps/toolCallResult" {
			execID = own(params.Get("executionId").String())
		}
		if old, ok := st.steps.Get(stepKey); ok {
			sameCall := old.method == "steps/toolCallRequest" && method == "steps/toolCallResult" && old.execID != "" && old.execID == execID
			if !sameCall && !c.isRetry(old.reqKey, method) {
				c.report(SeqStepID, "/params/context/stepId", c.rels(old.w), "stepId %q is already used in turn %q by a %s step; a step id is unique in its turn (§3.8)", sid.Str, ctx.Get("turnId").String(), old.method)
			}
		}
		c.capped(st.steps.Put(stepKey, step{w: c.markNode(m, sid, "/params/context/stepId", markStep, method, suffix(stepKey, sid.Str)), method: method, execID: execID, reqKey: key}), "step ids", SeqStepID, SeqStepID.ID)
	}

	if hasKey {
		st.done.Delete(key) // the id now names this request
		if resent {
			// Queued again: the request is now the latest open one, the
			// one latestOpen finds (§3.12.2).
			st.open.Delete(key)
		}
		c.capped(st.open.Put(key, r), "unanswered requests", SeqUnknownResponse, requestRules)
	}
}

// isRetry reports whether the earlier request (its id key) of the same method was
// answered with modify or an error, so re-sending it is expected.
func (c *checker) isRetry(reqKey, method string) bool {
	old, ok := c.st.done.Get(reqKey)
	return ok && old.method == method && (old.decision == "modify" || old.decision == "error")
}

// unanswered reports whether the request with id key reqKey is still open.
func (c *checker) unanswered(reqKey string) bool {
	_, ok := c.st.open.Get(reqKey)
	return ok
}

func (c *checker) toolResult(m *lint.Message, e, ptr string) {
	st := c.st
	tc, ok := st.tools.Get(e)
	if !ok {
		if tc, ok = c.lookupTool(e); !ok {
			c.report(SeqUnknownExecution, ptr, nil, "executionId %q matches no earlier steps/toolCallRequest: announce every tool call to the guardian before running it (§4.6)", e)
			return
		}
	} else if tc.modifiedExec != "" && tc.modifiedExec != e {
		c.report(SeqIgnoredModify, ptr, c.rels(tc.decisionW), "the guardian modified this tool call into executionId %q, but the result is for the original %q: the original call ran", tc.modifiedExec, e)
	}
	if tc.result && !c.isRetry(tc.resultReq, "steps/toolCallResult") {
		c.report(SeqDuplicateResult, ptr, c.rels(tc.resultW), "a second toolCallResult for executionId %q; each tool call has one result", e)
	}
	tc.result = true
	tc.resultW = c.mark(m, ptr, markResult, own(e), "")
	tc.resultReq, _ = idKey(m.Root.Get("id"))
	switch tc.decision {
	case "deny":
		c.report(SeqDeniedExecuted, ptr, c.rels(tc.decisionW, tc.w), "the guardian denied tool call %q, yet this toolCallResult shows it ran; a denied tool call must not be executed", e)
	case "":
		if c.unanswered(tc.reqKey) && m.From != "" {
			c.report(SeqResultBeforeDecision, ptr, c.rels(tc.w), "toolCallResult for %q before the guardian answered its toolCallRequest: wait for the decision before calling the tool", e)
		}
	}
}

// close moves an answered request from the open table to the answered one.
func (c *checker) close(req *request, answer mark, decision string) {
	c.st.open.Delete(req.key)
	req.answer, req.decision = answer, decision
	c.capped(c.st.done.Put(req.key, req), "answered requests", SeqAnsweredTwice, requestRules)
}

// response follows the response m, whose root's members are v's.
func (c *checker) response(m *lint.Message, v *view) {
	res := v.result
	st := c.st
	st.sawResponse = true
	idN := v.id
	key, ok := st.lookupKey(idN) // not kept: the request's own key is (req.key)
	if !ok {
		if idN != nil && idN.Kind == jsonread.Null && v.err != nil {
			// §3.12.2: the guardian could not read the request's id. Over HTTP the
			// answer belongs to the latest request still open.
			if r := c.latestOpen(); r != nil {
				answer := c.mark(m, "/id", markNullErr, "", "")
				c.close(r, answer, "error")
				c.setTool(r, "error", answer)
			}
		}
		return // AOS-RPC-002 reports a bad id itself
	}
	req, found := st.open.Get(key)
	if !found {
		if done, ok := st.done.Get(key); ok {
			c.report(SeqAnsweredTwice, "/id", c.rels(done.w, done.answer), "request %s was already answered; each request gets exactly one response", idText(idN))
			return
		}
		if !c.sawRequest {
			if len(c.preRequest) < 64 {
				c.preRequest = append(c.preRequest, held{SeqUnknownResponse, SeqUnknownResponse.Severity, witness(m, "/id", ""), nil,
					fmt.Sprintf("response id %s answers no earlier request of this stream; echo the id of the request it answers", idText(idN))})
			}
			return
		}
		if st.open.Full() || st.done.Full() {
			// The tables have forgotten requests past MaxTracked (the info
			// note): this may answer one of them. Not judged.
			return
		}
		c.report(SeqUnknownResponse, "/id", nil, "response id %s answers no earlier request of this stream; echo the id of the request it answers", idText(idN))
		return
	}
	answer := c.markNode(m, idN, "/id", markAnswer, "", req.key)
	c.close(req, answer, c.answer(m, res, req, answer))
}

// answer checks the response m (res its result) to the open request req and
// returns the decision it carries.
func (c *checker) answer(m *lint.Message, res *jsonread.Node, req *request, answer mark) string {
	st := c.st
	if st.timeout > 0 && !req.at.IsZero() && !m.At.IsZero() {
		if took := m.At.Sub(req.at); took > st.timeout {
			c.report(SeqLateAnswer, "/id", []lint.Related{c.rel(req.w), st.timeoutWitness()}, "the guardian answered %s after %s, beyond the agent's %s ping timeout; the agent already had to consider the guardian lost", req.method, took, st.timeout)
		}
	}
	if res == nil {
		c.setTool(req, "error", answer)
		return "error"
	}
	isPing := m.Kind == KindPingResponse
	switch {
	case req.method == "ping" && !isPing:
		c.report(SeqResponseType, "/result", c.rels(req.w), "the ping request is answered with a decision; a ping gets a PingRequestResult {status, version, timestamp} (§5.3)")
		return "ping"
	case req.method != "ping" && isPing:
		c.report(SeqResponseType, "/result", c.rels(req.w), "the %s request is answered with a ping result; it needs an AOSSuccessResult with a decision (§5.1)", req.method)
		return ""
	case isPing:
		return "ping"
	}
	dN := res.Get("decision")
	d := intern(dN.String()) // kept: the spec's string, or a copy
	at := dN
	if at == nil {
		at = res // where mark's walk of /result/decision stops
	}
	dw := c.markNode(m, at, "/result/decision", markDecision, d, req.key)
	c.setTool(req, d, dw)
	if d != "modify" {
		return d
	}
	mr := res.Get("modifiedRequest")
	if mr == nil || mr.Kind != jsonread.Object {
		return d
	}
	if mm := mr.Get("method").String(); mm != "" && mm != req.method {
		c.report(SeqModifiedMethod, "/result/modifiedRequest/method", c.rels(req.w), "modifiedRequest is a %s, but it answers a %s request; a modified request keeps the method", mm, req.method)
		return d
	}
	if req.method == "steps/toolCallRequest" {
		if tc, ok := st.tools.Get(req.execID); ok {
			tc.modCall = sigOf(m, mr.Path("params", "toolCallRequest"))
			if ne := mr.Path("params", "toolCallRequest", "executionId").String(); ne != "" && ne != req.execID {
				tc.modifiedExec = own(ne)
				st.modified++
				tc.modSeq = st.modified
				st.modExecs.Put(tc.modifiedExec, tc) // no capped note: a miss past the bound searches the tools table
			}
		}
	}
	if subj := req.subject.String(); subj != "" {
		c.capped(st.mods.Put(subj, modification{w: dw, method: req.method, payload: payload(mr)}), "pending modifications", SeqIgnoredModify, SeqIgnoredModify.ID)
	}
	return d
}

// latestOpen returns the most recent unanswered request.
func (c *checker) latestOpen() *request {
	o := c.st.open.Order()
	for i := len(o) - 1; i >= 0; i-- {
		if r, ok := c.st.open.Get(o[i]); ok {
			return r
		}
	}
	return nil
}

// lookupTool finds the tool call of an executionId, or the one the guardian
// modified into it (of several, the latest modified: the modification in force).
func (c *checker) lookupTool(e string) (*toolCall, bool) {
	if tc, ok := c.st.tools.Get(e); ok {
		return tc, true
	}
	if e == "" || c.st.modified == 0 {
		return nil, false // "": every unmodified tool call has modifiedExec ""; no modify yet: none to search
	}
	// modExecs names the tool call modified into e last: the answer when it is
	// still in the tools table with that modifiedExec. Else (it was replaced by
	// a re-sent request, modified again, or forgotten; or e is not in modExecs
	// because modExecs forgot it) an older one may be: search the table.
	if tc, ok := c.st.modExecs.Get(e); ok {
		if t, live := c.st.tools.Get(tc.w.a); live && t == tc && tc.modifiedExec == e {
			return tc, true
		}
	} else if !c.st.modExecs.Full() {
		return nil, false // no tool call was modified into e
	}
	var found *toolCall
	for _, k := range c.st.tools.Order() {
		if t, live := c.st.tools.Get(k); live && t.modifiedExec == e && (found == nil || t.modSeq > found.modSeq) {
			found = t
		}
	}
	return found, found != nil
}

// executed checks a conformance-binding line: the agent ran tool call e.
func (c *checker) executed(m *lint.Message, e string) {
	const ptr = "/executed/executionId"
	tc, ok := c.lookupTool(e)
	if !ok {
		c.report(SeqUnknownExecution, ptr, nil, "the agent executed tool call %q, which no steps/toolCallRequest announced: ask the guardian before every tool call (§4.6)", e)
		return
	}
	tc.executed = true
	switch tc.decision {
	case "deny":
		c.report(SeqDeniedExecuted, ptr, c.rels(tc.decisionW, tc.w), "the agent executed tool call %q although the guardian denied it; a denied tool call must never run", e)
	case "modify":
		if sig, want := executedSig(m.Root.Get("executed")), tc.modCall.get(); want != "" && sig != want {
			c.report(SeqIgnoredModify, "/executed", c.rels(tc.decisionW), "the agent executed tool call %q as %s, not as the guardian's modifiedRequest %s: proceed with the modified request", e, sig, want)
		}
	case "allow":
		if sig, want := executedSig(m.Root.Get("executed")), tc.call.get(); want != "" && sig != want {
			c.report(SeqExecutedOther, "/executed", c.rels(tc.w), "the agent executed tool call %q as %s, but the guardian allowed %s: run the call the guardian saw", e, sig, want)
		}
	case "":
		if c.unanswered(tc.reqKey) {
			c.report(SeqResultBeforeDecision, ptr, c.rels(tc.w), "the agent executed tool call %q before the guardian answered its toolCallRequest: wait for the decision", e)
		}
	}
}

func (c *checker) setTool(req *request, decision string, w mark) {
	if req.method != "steps/toolCallRequest" || req.execID == "" {
		return
	}
	if tc, ok := c.st.tools.Get(req.execID); ok {
		tc.decision, tc.decisionW = decision, w
	}
}

func (c *checker) Finish(p *lint.Pass) {
	defer c.st.release() // the session is over: its tables go back to the pools
	if !c.st.sawResponse {
		return
	}
	var open []lint.Related
	seen := map[string]bool{} // a key answered and reused is twice in the order
	for _, k := range c.st.open.Order() {
		if r, ok := c.st.open.Get(k); ok && !seen[k] {
			seen[k] = true
			open = append(open, c.rel(r.w))
		}
	}
	sortRelated(open)
	p = p.As(SeqUnanswered)
	for _, w := range open {
		p.ReportAtf(SeqUnanswered.Severity, w, nil, "%s got no response by the end of the stream; the guardian must answer every request (§4)", w.Message)
	}
}

// witness is lint.Witness for a pointer whose parent is the message root or a direct
// member path, resolved without splitting strings.
func witness(m *lint.Message, ptr, text string) lint.Related {
	n := memberAt(m.Root, ptr)
	if n == nil {
		return lint.Witness(m, ptr, text)
	}
	line, col := m.Pos.Position(n.Offset)
	return lint.Related{Path: m.Path, Line: line, Column: col, Pointer: ptr, Message: text}
}
