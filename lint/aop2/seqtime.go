package aop2

import (
	"fmt"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// floatPtr is a number of a message as lint/spec/aop2 takes it (nil: absent or
// not a number).
func floatPtr(n *jsonread.Node) *float64 {
	f, ok := n.Float()
	if !ok {
		return nil
	}
	return &f
}

// The limits and clock tolerances of these rules are lint/spec/aop2's, the
// ones the reference engine and the conformance checks apply.

// SeqHeartbeatFailure: heartbeats stopped for interval × max_missed_beats.
var SeqHeartbeatFailure = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-005", Protocol: ID, Severity: lint.Error})

// SeqHeartbeatLate: a heartbeat came well after its interval.
var SeqHeartbeatLate = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-006", Protocol: ID, Severity: lint.Warning})

// SeqProgressRate: PROGRESS_UPDATE at most once every 30 s.
var SeqProgressRate = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-007", Protocol: ID, Severity: lint.Error})

// SeqTimeout: the RESPONSE comes within the effective timeout.
var SeqTimeout = ruleDocs.Rule(lint.Rule{ID: "AOP2-SEQ-010", Protocol: ID, Severity: lint.Error})

func init() { lint.Register(SeqHeartbeatFailure, SeqHeartbeatLate, SeqProgressRate, SeqTimeout) }

type beat struct {
	id        string // the TASK's task_id
	interval  time.Duration
	maxMissed int
	last      stamp // the TASK or the last HEARTBEAT (SEQ-005's)
	w         mark  // where last was: the TASK's heartbeat config until a HEARTBEAT
	wIsCfg    bool  // w is still cfg
	cfg       mark  // the TASK's heartbeat config
	failed    bool  // SEQ-005 reported the task

	// SEQ-006's: the schedule. lateLast is last as SEQ-006 keeps it: the same
	// but when the timers start after the schedule did (beatChecker.observe).
	lateLast stamp
	anchor   stamp // the HEARTBEAT the schedule starts at (zero before the first)
	anchorW  mark  // where it was
	beats    int   // HEARTBEATs since the anchor
}

// cfgWitness names the TASK's heartbeat config.
func (b *beat) cfgWitness() lint.Related {
	return b.cfg.with(fmt.Sprintf("the TASK %q enables heartbeats every %s, max_missed_beats %d", b.id, secs(b.interval), b.maxMissed))
}

// lastWitness names where the silence started.
func (b *beat) lastWitness() lint.Related {
	if b.wIsCfg {
		return b.cfgWitness()
	}
	return b.w.with("the previous HEARTBEAT")
}

// beatChecker follows heartbeats for two rules over one table of tasks (the
// same table each would keep, its entries holding both rules' states):
// SEQ-005 (heartbeat failure), the rule it observes under, and SEQ-006 (a late
// heartbeat), which it reports under too (late).
type beatChecker struct {
	tasks    table[beat]
	sessions table[struct{}] // session ids whose first TASK was seen
	session  *session        // the group's: now at Finish
	clock    timers
}

func (c *beatChecker) observes() msgTypes {
	return typesAll // HEARTBEATs, and harness records: the clock's (timers)
}

func (c *beatChecker) observe(p *lint.Pass, v *view) {
	if origin := c.clock.observe(v); !origin.IsZero() {
		// Heartbeats are owed from the agent's first sign of life: start-up is no
		// part of any interval.
		c.tasks.each(func(_ string, b *beat) {
			if !b.last.harness.IsZero() && b.last.harness.Before(origin) {
				b.last.harness = origin
			}
			if b.anchor == (stamp{}) && !b.lateLast.harness.IsZero() && b.lateLast.harness.Before(origin) {
				b.lateLast.harness = origin // a schedule started is kept
			}
		})
		return
	}
	switch v.typ {
	case "TASK":
		if v.taskID == "" || v.delegated() {
			return
		}
		hb := v.root.Path("execution_policy", "heartbeat")
		if en := hb.Get("enabled"); en == nil || !en.Bool {
			c.tasks.del(v.key)
			return
		}
		b := beat{id: v.taskID}
		b.interval, b.maxMissed = aop2spec.Heartbeat(floatPtr(hb.Get("interval_seconds")), floatPtr(hb.Get("max_missed_beats")))
		// On the message clock a TASK has only its session's created_at: the dispatch
		// time of the session's first TASK, not of later ones.
		b.last = stamp{harness: v.when.harness}
		if c.sessions.get(v.sessionID) == nil {
			b.last.msg = v.when.msg
			c.sessions.put(v.sessionID)
		}
		b.lateLast = b.last
		b.cfg = markNode(p.Msg, hb, "/execution_policy/heartbeat") // hb is there: it is enabled
		b.w, b.wIsCfg = b.cfg, true
		c.tasks.del(v.key)
		e, first := c.tasks.add(v.key)
		if first {
			capNote(p)
			c.late(p, capNote)
		}
		*e = b
	case "EVENT":
		if v.event != "HEARTBEAT" {
			return
		}
		b := c.tasks.get(v.key)
		if b == nil {
			return
		}
		w := markAt(p.Msg, "") // this HEARTBEAT's, made once for both rules
		c.gap(p, b, v.when, "this HEARTBEAT")
		c.late(p, func(p *lint.Pass) { c.schedule(p, b, v.when, w) })
		b.last, b.lateLast = v.when, v.when
		b.w, b.wIsCfg = w, false
	case "RESPONSE":
		b := c.tasks.get(v.key)
		if b == nil {
			return
		}
		if b.last.msg.IsZero() || b.lateLast.msg.IsZero() {
			started := msgTime(v.root.Path("timing", "started_at"))
			if b.last.msg.IsZero() {
				b.last.msg = started
			}
			if b.lateLast.msg.IsZero() {
				b.lateLast.msg = started
			}
		}
		c.gap(p, b, v.when, "the RESPONSE")
		c.late(p, func(p *lint.Pass) { c.lastSlot(p, b, v.when) })
		c.tasks.del(v.key)
	}
}

func (c *beatChecker) limit(b *beat) time.Duration {
	return aop2spec.HeartbeatSilence(b.interval, b.maxMissed, c.clock.scale)
}

// late runs f with p's rule set to SEQ-006, then puts p's rule back.
func (c *beatChecker) late(p *lint.Pass, f func(*lint.Pass)) {
	rule := p.Rule
	p.Rule = SeqHeartbeatLate
	f(p)
	p.Rule = rule
}

// failure reports whether the silence from b.last to now is a heartbeat failure
// by SEQ-005's own test. It is the one boundary between the two rules: SEQ-006
// leaves to SEQ-005 exactly the gaps SEQ-005 judges, so that every gap belongs
// to one rule (a gap past interval × max_missed_beats but within SEQ-005's clock
// tolerance was left by SEQ-006 and tolerated by SEQ-005: judged by none).
func (c *beatChecker) failure(b *beat, now stamp) (time.Duration, bool) {
	d, harness, ok := since(now, b.last)
	return d, ok && aop2spec.HeartbeatFailed(d, b.interval, b.maxMissed, c.clock.scale, harness)
}

// gap checks the silence from b.last to now (SEQ-005), reported at the current message.
func (c *beatChecker) gap(p *lint.Pass, b *beat, now stamp, what string) {
	if b.failed {
		return
	}
	d, failed := c.failure(b, now)
	lim := c.limit(b)
	if !failed {
		return
	}
	related := []lint.Related{b.cfgWitness()}
	if !b.wIsCfg {
		related = []lint.Related{b.lastWitness(), related[0]}
	}
	b.failed = true
	p.ReportRelatedf(p.Rule.Severity, "", related, "no HEARTBEAT for %s before %s: more than interval %s × max_missed_beats %d = %s (E_HEARTBEAT_FAILURE, §6.1)", secs(d), what, secs(b.interval), b.maxMissed, secs(lim))
}

// schedule checks a HEARTBEAT, at w, against the schedule of the first one (SEQ-006).
func (c *beatChecker) schedule(p *lint.Pass, b *beat, now stamp, w mark) {
	if b.anchor == (stamp{}) {
		// The first HEARTBEAT: due one interval after the TASK.
		if d, harness, ok := since(now, b.lateLast); ok && aop2spec.FirstHeartbeatLate(d, b.interval, c.clock.scale, harness) && !c.failed(b, now) {
			p.ReportRelatedf(p.Rule.Severity, "", []lint.Related{b.cfgWitness()}, "the first HEARTBEAT came %s after the TASK, but the interval is %s: a beat was missed (§6.1)", secs(d), secs(b.interval))
			timed(p, d, aop2spec.FirstHeartbeatLimit(b.interval, c.clock.scale, harness))
		}
		b.anchor, b.anchorW, b.beats = now, w, 0
		return
	}
	b.beats++
	d, harness, ok := since(now, b.anchor)
	if !ok {
		return
	}
	due := aop2spec.HeartbeatDue(b.beats, b.interval, c.clock.scale)
	behind := d - due
	if c.failed(b, now) {
		b.anchor, b.anchorW, b.beats = now, w, 0 // a heartbeat failure: AOP2-SEQ-005's
		return
	}
	if aop2spec.HeartbeatBehind(behind, b.interval, c.clock.scale, harness) {
		p.ReportRelatedf(p.Rule.Severity, "", []lint.Related{b.anchorWitness(), b.cfgWitness()}, "this HEARTBEAT came %s after the one the schedule starts at, where %d beats of one every %s were due by %s: it is %s behind, a beat was missed (§6.1)", secs(d), b.beats, secs(b.interval), secs(due), secs(behind))
		timed(p, behind, aop2spec.HeartbeatBehindLimit(b.interval, c.clock.scale, harness))
		b.anchor, b.anchorW, b.beats = now, w, 0
	}
}

// lastSlot checks the run-up to the RESPONSE against the schedule of the
// HEARTBEATs (SEQ-006): a beat that was due before it and never came.
func (c *beatChecker) lastSlot(p *lint.Pass, b *beat, now stamp) {
	if c.failed(b, now) {
		return // a heartbeat failure: AOP2-SEQ-005's
	}
	if b.anchor == (stamp{}) {
		// No HEARTBEAT at all: only a silence past the limit counts (SEQ-005); the
		// spec's own examples answer without one.
		return
	}
	d, harness, ok := since(now, b.anchor)
	if !ok {
		return
	}
	due := aop2spec.HeartbeatDue(b.beats+1, b.interval, c.clock.scale)
	if behind := d - due; aop2spec.HeartbeatBehind(behind, b.interval, c.clock.scale, harness) {
		p.ReportRelatedf(p.Rule.Severity, "", []lint.Related{b.anchorWitness(), b.cfgWitness()}, "the RESPONSE came %s after the HEARTBEAT the schedule starts at, where %d beats of one every %s were due by %s: it is %s behind, a beat was missed before it (§6.1)", secs(d), b.beats+1, secs(b.interval), secs(due), secs(behind))
		timed(p, behind, aop2spec.HeartbeatBehindLimit(b.interval, c.clock.scale, harness))
	}
}

// timed records the measurement and the limit of the diagnostic just reported
// (lint.Diagnostic.Measured, Limit): aopconform's margin of a failure.
func timed(p *lint.Pass, measured, limit time.Duration) {
	if ds := p.Diagnostics(); len(ds) > 0 {
		ds[len(ds)-1].Measured, ds[len(ds)-1].Limit = measured, limit
	}
}

// failed reports whether the gap SEQ-006 is about to judge is SEQ-005's: a
// heartbeat failure by SEQ-005's test (failure; SEQ-005 reports it once a task).
func (c *beatChecker) failed(b *beat, now stamp) bool {
	_, f := c.failure(b, now)
	return f
}

func (c *beatChecker) Finish(p *lint.Pass) {
	c.tasks.each(func(key string, b *beat) {
		id := taskOfKey(key)
		// The session's end is the harness giving up, not a message that may arrive
		// late: no slack here.
		d, _, ok := since(c.session.now, b.last)
		if !ok || b.failed || d < c.limit(b) {
			return
		}
		related := []lint.Related{b.cfgWitness()}
		if b.wIsCfg {
			related = nil
		}
		p.ReportAtf(p.Rule.Severity, b.w.with(""), related, "no HEARTBEAT for task %q in the last %s of the session: interval %s × max_missed_beats %d = %s passed without one (E_HEARTBEAT_FAILURE, §6.1)", id, secs(d), secs(b.interval), b.maxMissed, secs(c.limit(b)))
	})
}

func (c *beatChecker) reset() {
	c.tasks.reset()
	c.sessions.reset()
	c.clock = timers{}
}

// anchorWitness names the HEARTBEAT the schedule starts at.
func (b *beat) anchorWitness() lint.Related {
	return b.anchorW.with("the HEARTBEAT the schedule starts at")
}

type prog struct {
	last     stamp
	w        mark // the previous PROGRESS_UPDATE
	reported bool
}

type rateChecker struct{ tasks table[prog] }

func (c *rateChecker) observes() msgTypes { return typesMessages }

func (c *rateChecker) observe(p *lint.Pass, v *view) {
	switch {
	case v.typ == "TASK" || v.typ == "RESPONSE":
		c.tasks.del(v.key)
	case v.typ == "EVENT" && v.event == "PROGRESS_UPDATE":
		w := markAt(p.Msg, "")
		pr := c.tasks.get(v.key)
		if pr == nil {
			*track(p, &c.tasks, v.key) = prog{last: v.when, w: w}
			return
		}
		if d, harness, ok := since(v.when, pr.last); ok && !pr.reported {
			if aop2spec.ProgressTooSoon(d, harness) {
				pr.reported = true
				p.ReportRelatedf(p.Rule.Severity, "/event", []lint.Related{pr.w.with("the previous PROGRESS_UPDATE")}, "PROGRESS_UPDATE for task %q only %s after the previous one: §6.2 allows at most one every 30 s (later ones for this task are not reported)", v.taskID, secs(d))
			}
		}
		pr.last, pr.w = v.when, w
	}
}

func (c *rateChecker) Finish(p *lint.Pass) {}

func (c *rateChecker) reset() { c.tasks.reset() }

type deadline struct {
	id    string
	limit time.Duration // stretched by the session's timeout_scale
	set   time.Duration // as the TASK set it
	src   string        // a constant of lint/spec/aop2
	start stamp
	w     mark
}

// witness names the TASK and its effective timeout.
func (dl *deadline) witness() lint.Related {
	return dl.w.with(fmt.Sprintf("the TASK %q: effective timeout %s (%s, §11)", dl.id, secs(dl.set), dl.src))
}

type timeoutChecker struct {
	tasks   table[deadline]
	session *session // the group's: now at Finish
	clock   timers
}

func (c *timeoutChecker) observes() msgTypes {
	return typesTaskResponse | typeOther // harness records: the clock's (timers)
}

func (c *timeoutChecker) observe(p *lint.Pass, v *view) {
	if origin := c.clock.observe(v); !origin.IsZero() {
		c.tasks.each(func(_ string, dl *deadline) {
			if !dl.start.harness.IsZero() && dl.start.harness.Before(origin) {
				dl.start.harness = origin
			}
			dl.limit = c.clock.stretch(dl.limit)
		})
		return
	}
	switch v.typ {
	case "TASK":
		c.tasks.del(v.key)
		if v.taskID == "" || v.delegated() {
			return
		}
		gr, ep := v.root.Path("guard_rails", "timeout_seconds"), v.root.Path("execution_policy", "timeout_seconds")
		d, src := aop2spec.EffectiveTimeout(floatPtr(gr), floatPtr(ep))
		if d <= 0 {
			return
		}
		at := ep // the node timeoutPointer(src) names, read above
		if src == aop2spec.FromGuardRails {
			at = gr
		}
		w := markNode(p.Msg, at, timeoutPointer(src))
		*track(p, &c.tasks, v.key) = deadline{id: v.taskID, limit: d, set: d, src: src, start: stamp{harness: v.when.harness}, w: w}
	case "RESPONSE":
		dl := c.tasks.get(v.key)
		if dl == nil {
			return
		}
		c.tasks.del(v.key)
		elapsed, how, ok := time.Duration(0), "", false
		if d, harness, k := since(v.when, dl.start); k && harness {
			elapsed, how, ok = d, "after its TASK", true
		} else if st, en := msgTime(v.root.Path("timing", "started_at")), msgTime(v.root.Path("timing", "completed_at")); !st.IsZero() && !en.IsZero() {
			elapsed, how, ok = en.Sub(st), "by its timing (started_at to completed_at)", true
		} else if f, k := v.root.Path("timing", "duration_seconds").Float(); k {
			elapsed, how, ok = time.Duration(f*float64(time.Second)), "by its timing.duration_seconds", true
		}
		if ok && elapsed > dl.limit {
			p.ReportRelatedf(p.Rule.Severity, "", []lint.Related{dl.witness()}, "the RESPONSE to %q came %s %s, past the effective timeout of %s (%s, §11): the task timed out (E_TIMEOUT, §12)", v.taskID, secs(elapsed), how, secs(dl.limit), dl.src)
		}
	}
}

func (c *timeoutChecker) Finish(p *lint.Pass) {
	c.tasks.each(func(key string, dl *deadline) {
		id := taskOfKey(key)
		d, harness, ok := since(c.session.now, dl.start)
		if !ok || !harness || d < dl.limit {
			return
		}
		p.ReportAtf(p.Rule.Severity, dl.w.with("the TASK"), []lint.Related{dl.witness()}, "no RESPONSE to %q within the effective timeout of %s (%s, §11): the session went on %s after the TASK without one (E_TIMEOUT, §12)", id, secs(dl.limit), dl.src, secs(d))
	})
}

func (c *timeoutChecker) reset() {
	c.tasks.reset()
	c.clock = timers{}
}

// timeoutPointer is the pointer of a timeout's source ("guard_rails.timeout_seconds"
// → "/guard_rails/timeout_seconds"), made once for lint/spec/aop2's two.
func timeoutPointer(src string) string {
	switch src {
	case aop2spec.FromGuardRails:
		return "/guard_rails/timeout_seconds"
	case aop2spec.FromExecutionPolicy:
		return "/execution_policy/timeout_seconds"
	}
	return "/" + strings.ReplaceAll(src, ".", "/")
}
