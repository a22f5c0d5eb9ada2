package orchmsg

import (
	"container/heap"
	"fmt"
	"sync"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/millis"
	"github.com/aopkit/aopkit/lint/jsonread"
	spec "github.com/aopkit/aopkit/lint/spec/orchmsg"
)

// RequestTimeout is the spec's default request timeout (§Timeouts).
const RequestTimeout = spec.RequestTimeout

// RateLimit is the spec's message limit per agent and second (§Security Considerations).
const RateLimit = spec.RateLimit

// DefaultGracePeriod is used when notify:shutdown names none (the spec's example).
const DefaultGracePeriod = spec.DefaultGracePeriod

var (
	// SeqCorrelation: responses answer earlier requests.
	SeqCorrelation = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-001", Protocol: ID, Severity: lint.Error})
	// SeqDuplicateResponse: one response per request.
	SeqDuplicateResponse = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-002", Protocol: ID, Severity: lint.Error})
	// SeqUniqueID: ids are unique.
	SeqUniqueID = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-003", Protocol: ID, Severity: lint.Error})
	// SeqTimeout: requests are answered within 30 s.
	SeqTimeout = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-004", Protocol: ID, Severity: lint.Error})
	// SeqRate: at most 100 messages per second from one agent.
	SeqRate = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-005", Protocol: ID, Severity: lint.Error})
	// SeqDirection: who sends what.
	SeqDirection = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-006", Protocol: ID, Severity: lint.Error})
	// SeqShutdown: nothing from the agent after the grace period.
	SeqShutdown = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-007", Protocol: ID, Severity: lint.Error})
	// SeqAnswerFits: the response answers the request it names.
	SeqAnswerFits = ruleDocs.Rule(lint.Rule{ID: "ORCH-SEQ-008", Protocol: ID, Severity: lint.Error})
)

func init() {
	lint.Register(SeqCorrelation, SeqDuplicateResponse, SeqUniqueID, SeqTimeout, SeqRate, SeqDirection, SeqShutdown, SeqAnswerFits)
}

// witness names the message m by its type and id.
func witness(m *lint.Message, pointer string) lint.Related {
	return lint.Witness(m, pointer, describe(msgType(m), idOf(m)))
}

// describe names a message: `the event:log "evt-1..."`.
func describe(t, id string) string {
	if t == "" {
		t = "message"
	}
	if id == "" {
		return "the " + t
	}
	return fmt.Sprintf("the %s %s", t, quote(id))
}

func capNote(p *lint.Pass, what string) {
	p.ReportSevf(lint.Info, "", "more than %d %s in this stream: the oldest are no longer tracked, so %s checks only the most recent %d", MaxTracked, what, p.Rule.ID, MaxTracked)
}

// ---- ORCH-SEQ-001 ----

type corrChecker struct {
	f       *msgFacts
	reqs    *idWindow[mark] // shared with ORCH-SEQ-002 (seqState.requests): corrChecker puts, at /id
	others  *idWindow[mark]
	capped  bool
	seenAny bool // an earlier message: a response first in a bare stream (or a single file) cannot be judged
	// early is the response that came first in a bare stream, judged when a later
	// request turns out to carry the id it names (a response before its request).
	early    *mark
	earlyCID string
}

func (c *corrChecker) Observe(p *lint.Pass) {
	m := p.Msg
	f := c.f
	id := f.idOf(m)
	switch f.family(m) {
	case "request":
		if c.early != nil && id != "" && id == c.earlyCID {
			p.ReportAtf(lint.Error, c.early.related(m.Path), []lint.Related{witness(m, "/id")},
				"correlationId %s names %s, which comes only later in this stream: a response answers a request the agent sent before it",
				quote(id), describe(f.msgType(m), id))
			c.early = nil
		}
		if id != "" && c.reqs.put(f.ownID(m), f.mark(m, "/id")) && !c.capped {
			c.capped = true
			capNote(p, "requests")
		}
	case "response":
		cid := f.correlationID(m)
		if cid != "" && !c.seenAny && m.From == "" {
			k := f.mark(m, "/correlationId")
			c.early, c.earlyCID = &k, ownID(cid)
		}
		if cid != "" && (c.seenAny || m.From != "") {
			if _, ok := c.reqs.get(cid); !ok {
				if k, ok := c.others.get(cid); ok {
					o := k.related(m.Path)
					p.ReportRelatedf(lint.Error, "/correlationId", []lint.Related{o}, "correlationId %s names %s, not a request: only requests get responses", quote(cid), o.Message)
				} else if !c.capped {
					// Once the window has forgotten a request (capped), an id it
					// does not hold may be one of those: not judged (capNote).
					p.Reportf("/correlationId", "correlationId %s names no earlier request in this stream: a response answers a request the agent sent before it (its id)", quote(cid))
				}
			}
		}
		fallthrough
	default:
		if id != "" {
			c.others.put(f.ownID(m), f.mark(m, "/id"))
		}
	}
	c.seenAny = true
}

func (c *corrChecker) Finish(*lint.Pass) { c.reqs.release(); c.others.release() } // reqs: also ORCH-SEQ-002's, which comes later

// ---- ORCH-SEQ-002 ----

type dupRespChecker struct {
	f *msgFacts
	// reqs is ORCH-SEQ-001's window of requests (seqState.requests), put
	// before this checker sees the message; answered is its own. Texts are made
	// only for a finding.
	reqs, answered *idWindow[mark]
}

func (c *dupRespChecker) Observe(p *lint.Pass) {
	m := p.Msg
	f := c.f
	if f.family(m) == "response" {
		cid := f.correlationID(m)
		rk, ok := c.reqs.get(cid)
		if cid == "" || !ok {
			return
		}
		if fk, dup := c.answered.get(cid); dup {
			first, req := fk.related(m.Path), rk.related(m.Path)
			p.ReportRelatedf(lint.Error, "/correlationId", []lint.Related{first, req},
				"second response to %s (the first answer is %s): each request gets exactly one response", req.Message, first.Message)
			return
		}
		c.answered.put(ownID(cid), f.mark(m, "/correlationId"))
	}
}

func (c *dupRespChecker) Finish(*lint.Pass) { c.answered.release() } // reqs: released by ORCH-SEQ-001

// ---- ORCH-SEQ-003 ----

type uniqueChecker struct {
	f      *msgFacts
	seen   *idWindow[mark]
	capped bool
}

func (c *uniqueChecker) Observe(p *lint.Pass) {
	m := p.Msg
	id := c.f.idOf(m)
	if id == "" {
		return
	}
	if k, ok := c.seen.get(c.f.ownID(m)); ok { // the owned id: the id table's cache compares pointers
		first := k.related(m.Path)
		p.ReportRelatedf(lint.Error, "/id", []lint.Related{first}, "id %s was already used by %s: every message gets a fresh UUID", quote(id), first.Message)
		return
	}
	if c.seen.put(c.f.ownID(m), c.f.mark(m, "/id")) && !c.capped { // the get above missed it: an entry added
		c.capped = true
		capNote(p, "message ids")
	}
}

func (c *uniqueChecker) Finish(*lint.Pass) { c.seen.release() }

// ---- ORCH-SEQ-004 ----

type timeoutChecker struct {
	f      *msgFacts
	open   *idWindow[*request]
	reqIDs *idWindow[struct{}] // request ids seen: a reused id is ORCH-SEQ-003's, its answer is ambiguous
	heap   deadlineHeap
	capped bool
}

func (c *timeoutChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if m == nil {
		return
	}
	f := c.f
	now := f.when(m)
	if !now.IsZero() {
		c.sweep(p, now)
	}
	if !c.f.isMsg(m) {
		return
	}
	switch f.family(m) {
	case "request":
		id := f.idOf(m)
		if id == "" || now.IsZero() {
			return
		}
		ms, _ := m.Root.Path("payload", "timeout").Float()
		limit := spec.RequestDeadline(f.msgType(m), ms)
		own := f.ownID(m)
		if _, seen := c.reqIDs.get(own); seen {
			return // a reused id (ORCH-SEQ-003): which request a response answers is ambiguous
		}
		r := &request{id: own, w: f.mark(m, "/id"), typ: f.ownType(m), at: now, deadline: now.Add(limit)}
		c.reqIDs.put(own, struct{}{}) // the get above missed it: an entry added
		if c.open.put(own, r) && !c.capped {
			c.capped = true
			capNote(p, "open requests")
		}
		heap.Push(&c.heap, r)
		if len(c.heap) > 4*MaxTracked {
			c.compact()
		}
	case "response":
		cid := f.correlationID(m)
		if r, ok := c.open.get(cid); ok {
			r.answered = true
			c.open.del(cid)
		}
	}
}

// sweep reports every open request whose deadline lies before now.
func (c *timeoutChecker) sweep(p *lint.Pass, now time.Time) {
	m := p.Msg
	for len(c.heap) > 0 && c.heap[0].deadline.Before(now) {
		r := heap.Pop(&c.heap).(*request)
		if r.answered {
			continue
		}
		if cur, ok := c.open.get(r.id); !ok || cur != r {
			continue // dropped by the bound (capNote): no longer tracked, its answer may have come
		}
		r.answered = true
		limit := r.deadline.Sub(r.at)
		rel := eventWitness(m) // the record that shows the deadline has passed
		if isMsg(m) {
			rel = []lint.Related{witness(m, "")}
		}
		rw := r.w.related(m.Path)
		if isMsg(m) && family(msgType(m)) == "response" && c.isAnswer(m, r) {
			p.ReportAtf(lint.Error, rw, rel, "%s was answered %s after it was sent, past the %s request timeout: answer within the timeout, or send response:error TIMEOUT when it expires",
				rw.Message, now.Sub(r.at).Round(time.Millisecond), limit)
			continue
		}
		p.ReportAtf(lint.Error, rw, rel, "%s got no response within the %s request timeout (%s later it is still unanswered): answer every request, with response:error TIMEOUT when it expires",
			rw.Message, limit, now.Sub(r.at).Round(time.Millisecond))
	}
}

// isAnswer reports whether response m answers request r (by the id quoted in r's witness).
func (c *timeoutChecker) isAnswer(m *lint.Message, r *request) bool {
	cid := m.Root.Get("correlationId").String()
	got, ok := c.open.get(cid)
	return ok && got == r
}

func (c *timeoutChecker) compact() {
	var h deadlineHeap
	for _, r := range c.heap {
		if cur, ok := c.open.get(r.id); ok && cur == r && !r.answered {
			h = append(h, r) // still open and still tracked (not dropped by the bound)
		}
	}
	heap.Init(&h)
	c.heap = h
}

func (c *timeoutChecker) Finish(*lint.Pass) {
	c.open.release()
	c.reqIDs.release()
	clear(c.heap)
	c.heap = c.heap[:0]
}

// ---- ORCH-SEQ-005 ----

type rateState struct {
	rate  spec.Rate[mark]
	quiet time.Time
}

type rateChecker struct {
	f      *msgFacts
	agents *window[*rateState]
}

func (c *rateChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if c.f.sender(m) != "agent" {
		return
	}
	now := c.f.when(m)
	if now.IsZero() {
		return
	}
	agent := m.Root.Get("agentId").String()
	st, ok := c.agents.get(agent)
	if !ok {
		st, _ = rateStatePool.Get().(*rateState)
		if st == nil {
			st = &rateState{}
		}
		c.agents.put(ownID(agent), st)
	}
	over, oldest, oldestAt := st.rate.Add(now, c.f.mark(m, ""))
	if !over || now.Before(st.quiet) {
		return
	}
	who := "the agent"
	if agent != "" {
		who = "agent " + quote(agent)
	}
	first := oldest.related(m.Path)
	first.Message = "the first of these messages: " + first.Message
	p.ReportRelatedf(lint.Error, "", []lint.Related{first},
		"%d messages from %s within %s: the spec limits an agent to %d messages per second (the orchestrator rejects the excess)",
		RateLimit+1, who, now.Sub(oldestAt).Round(time.Millisecond), RateLimit)
	st.quiet = now.Add(time.Second) // one report per second of flood
}

// Finish gives the agents' rate states back for the next session's checker.
func (c *rateChecker) Finish(*lint.Pass) {
	c.agents.each(func(st *rateState) {
		st.rate.Reset()
		st.quiet = time.Time{}
		rateStatePool.Put(st)
	})
	c.agents.release()
}

// rateStatePool keeps the rate states (and their rings) of finished sessions.
var rateStatePool sync.Pool

// ---- ORCH-SEQ-006 ----

type directionChecker struct{ f *msgFacts }

func (c *directionChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if m.From != "agent" && m.From != "orchestrator" {
		return
	}
	want := c.f.typeSender(m)
	if want == "" || want == m.From {
		return
	}
	t := msgType(m)
	what := map[string]string{"request": "requests", "event": "events", "response": "responses", "notify": "notifications"}[family(t)]
	if m.Dialect == DialectTaskNotification {
		what = "task notifications"
	}
	p.Reportf("/type", "%s was sent by the %s, but %s travel from the %s to the %s: agents send requests and events, the orchestrator sends responses and notifications",
		quote(t), m.From, what, want, other(want))
}

func other(side string) string {
	if side == "agent" {
		return "orchestrator"
	}
	return "agent"
}

func (c *directionChecker) Finish(*lint.Pass) {}

// ---- ORCH-SEQ-007 ----

type shutdownChecker struct {
	f        *msgFacts
	seen     bool
	w        lint.Related
	at       time.Time
	grace    time.Duration
	exited   bool
	reported bool
}

func (c *shutdownChecker) Observe(p *lint.Pass) {
	m := p.Msg
	if m == nil || c.reported {
		return
	}
	now := c.f.when(m)
	if m.From == "harness" {
		if !c.seen || now.IsZero() {
			return
		}
		switch m.Kind {
		case "harness:agent-exit":
			c.exited = true
		case "harness:kill", "harness:timeout", "harness:signal":
			if !c.exited && !now.Before(c.at.Add(c.grace)) { // stopped when the grace period was over
				c.reported = true
				p.ReportAtf(lint.Error, c.w, eventWitness(m), "the agent was still running %s after %s (grace period %s) and the harness had to %s it: stop and exit within the grace period",
					now.Sub(c.at).Round(time.Millisecond), c.w.Message, c.grace, map[string]string{"harness:kill": "kill", "harness:timeout": "time out", "harness:signal": "signal"}[m.Kind])
			}
		}
		return
	}
	if !c.f.isMsg(m) {
		return
	}
	if !c.seen && c.f.msgType(m) == "notify:shutdown" {
		if now.IsZero() {
			return
		}
		c.seen, c.w, c.at, c.grace = true, witness(m, "/type"), now, DefaultGracePeriod
		if ms, ok := m.Root.Path("payload", "gracePeriod").Float(); ok && ms >= 0 {
			c.grace = millis.Duration(ms)
		}
		return
	}
	if !c.seen || now.IsZero() {
		return
	}
	if c.f.sender(m) != "agent" || !now.After(c.at.Add(c.grace)) {
		return
	}
	c.reported = true
	p.ReportRelatedf(lint.Error, "/type", []lint.Related{c.w}, "the agent sent %s %s after %s, past its grace period of %s: after notify:shutdown an agent finishes within the grace period and exits",
		msgType(m), now.Sub(c.at).Round(time.Millisecond), c.w.Message, c.grace)
}

func (c *shutdownChecker) Finish(*lint.Pass) {}

// ---- ORCH-SEQ-008 ----

type fitReq struct {
	w       mark // its text is made only for a finding
	typ     string
	taskID  string
	options []string // ask-user option values (strings only)
}

type fitChecker struct {
	f    *msgFacts
	open *idWindow[*fitReq]
}

func (c *fitChecker) Observe(p *lint.Pass) {
	m := p.Msg
	f := c.f
	t := f.msgType(m)
	switch f.family(m) {
	case "request":
		id := f.idOf(m)
		if id == "" {
			return
		}
		own := f.ownID(m)
		r := &fitReq{w: f.mark(m, "/type"), typ: f.ownType(m)}
		switch t {
		case "request:get-task":
			r.taskID = ownID(m.Root.Path("payload", "taskId").String())
		case "request:ask-user":
			opts := m.Root.Path("payload", "options")
			for i, o := range items(opts) {
				if i >= 50 {
					break
				}
				if v := o.Get("value"); v.IsString() {
					r.options = append(r.options, ownID(v.Str))
				} else {
					r.options = nil // not all strings: do not judge the answer
					break
				}
			}
		}
		c.open.put(own, r)
	case "response":
		cid := f.correlationID(m)
		r, ok := c.open.get(cid)
		if !ok {
			return
		}
		c.open.del(cid)
		c.check(p, r)
	}
}

func (c *fitChecker) check(p *lint.Pass, r *fitReq) {
	m := p.Msg
	t := c.f.msgType(m)
	if t == "response:error" {
		if m.Root.Path("error", "code").String() == "INVALID_MESSAGE_TYPE" && spec.IsType(r.typ) {
			dialect := ""
			if r.typ == "request:ask-user" {
				dialect = " (the upstream prototype's dialect: it had no ask-user handler)"
			}
			rw, rel := r.rel(m.Path)
			p.ReportRelatedf(lint.Error, "/error/code", rel, "INVALID_MESSAGE_TYPE answers %s, but %s is one of the supported requests%s: INVALID_MESSAGE_TYPE is for unknown types only; answer it, or use another code (NOT_FOUND, UNAUTHORIZED, INTERNAL_ERROR)",
				rw.Message, r.typ, dialect)
		}
		return
	}
	if t != "response:success" {
		return
	}
	if !spec.IsType(r.typ) {
		rw, rel := r.rel(m.Path)
		p.ReportRelatedf(lint.Error, "/type", rel, "response:success answers %s, whose type is unknown: the orchestrator answers unknown types with response:error INVALID_MESSAGE_TYPE", rw.Message)
		return
	}
	pl := m.Root.Get("payload")
	need := func(key string, kind jsonread.Kind, what string) *jsonread.Node {
		n := pl.Get(key)
		if n == nil || (kind != jsonread.Null && n.Kind != kind) {
			rw, rel := r.rel(m.Path)
			p.ReportRelatedf(lint.Error, "/payload/"+key, rel, "the response to %s needs payload.%s, %s", rw.Message, key, what)
			return nil
		}
		return n
	}
	switch r.typ {
	case "request:query-agents":
		need("agents", jsonread.Array, "the list of matching agents (an array, empty when none match)")
	case "request:query-tasks":
		need("tasks", jsonread.Array, "the list of matching tasks (an array, empty when none match)")
	case "request:submit-task":
		need("task", jsonread.Object, "the created task (an object with its id and status)")
	case "request:get-task":
		if t := need("task", jsonread.Object, "the task asked for (an object)"); t != nil && r.taskID != "" {
			if got := t.Get("id"); got.IsString() && got.Str != r.taskID {
				rw, rel := r.rel(m.Path)
				p.ReportRelatedf(lint.Error, "/payload/task/id", rel, "the response to %s returns task %s, but the request asked for %s", rw.Message, quote(got.Str), quote(r.taskID))
			}
		}
	case "request:ask-user":
		if a := need("answer", jsonread.Null, "the user's answer"); a != nil && a.IsString() && len(r.options) > 0 {
			for _, o := range r.options {
				if o == a.Str {
					return
				}
			}
			_, rel := r.rel(m.Path)
			p.ReportRelatedf(lint.Warning, "/payload/answer", rel, "answer %s is none of the option values the request offered (%s)", quote(a.Str), list(r.options))
		}
	}
}

// rel is the request as the witness of a finding (made only for one) in the
// stream of path.
func (r *fitReq) rel(path string) (lint.Related, []lint.Related) {
	rw := r.w.related(path)
	return rw, []lint.Related{rw}
}

func (c *fitChecker) Finish(*lint.Pass) { c.open.release() }

// eventWitness names a harness event record, when the driver gave it a position.
func eventWitness(m *lint.Message) []lint.Related {
	if m == nil || m.Pos == nil || m.Root == nil || m.From != "harness" {
		return nil
	}
	return []lint.Related{lint.Witness(m, "", "the harness event "+quote(m.Root.Get("event").String()))}
}
