package aopoutput

import (
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
)

// TimeISO: START and END carry ISO 8601 timestamps.
var TimeISO = ruleDocs.Rule(lint.Rule{
	ID: "AOPOUT-TIME-001", Protocol: ID, Kinds: reportKinds, Severity: lint.Error,
	Spec: specFormat + " ([AOP:START] {ISO timestamp}, [AOP:END] {ISO timestamp})",
	Run:  checkISO,
})

// TimeOrder: END is not before START.
var TimeOrder = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-TIME-002", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Spec: specFormat, Run: checkTimeOrder})

func init() { lint.Register(TimeISO, TimeOrder) }

func checkISO(p *lint.Pass) {
	memo := memoOf(p)
	start, end := memo.times()
	for _, c := range [...]struct {
		name string
		at   isoTime
	}{{"START", start}, {"END", end}} {
		name := c.name
		m := memo.r.First(name)
		if m == nil {
			continue
		}
		ptr := pointerOf[name]
		switch {
		case m.Value == "":
			reportAt(p, lint.Error, m.Off, ptr, "[AOP:%s] has no timestamp: write an ISO 8601 time after the marker, such as \"[AOP:%s] 2026-02-05T10:30:00Z\"", name, name)
		case !c.at.ok:
			reportAt(p, lint.Error, m.ValOff, ptr, "[AOP:%s] timestamp %s is not ISO 8601: write it like 2026-02-05T10:30:00Z", name, quote(m.Value))
		case c.at.zone == isotime.ZoneNone:
			reportAt(p, lint.Warning, m.ValOff, ptr, "[AOP:%s] timestamp %s has no time zone: add Z (UTC) or an offset, such as %s", name, quote(m.Value), m.Value+"Z")
		default:
			continue
		}
		p.Claim(ptr)
	}
}

func checkTimeOrder(p *lint.Pass) {
	memo := memoOf(p)
	s, e := memo.r.First("START"), memo.r.First("END")
	if s == nil || e == nil {
		return
	}
	start, end := memo.times()
	ts, te := start.t, end.t
	if !start.ok || !end.ok || !te.Before(ts) {
		return
	}
	reportAt(p, lint.Error, e.ValOff, "/timestamps/end", "[AOP:END] %s is %s before [AOP:START] %s (line %d): the end time cannot precede the start",
		e.Value, ts.Sub(te).Round(time.Millisecond), s.Value, lineOf(p, s.Off))
}
