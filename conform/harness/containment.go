package harness

import "github.com/aopkit/aopkit/conform"

// containment records the launcher's containment report of the attempt (the
// evidence of checks.ContainmentID).
func (a *Agent) containment() {
	pc, ok := a.conn.(interface{ Containment() (string, []string) })
	if !ok {
		return
	}
	mode, escapes := pc.Containment()
	detail := conform.Details(conform.KeyMode.Is(mode))
	if m, ok := a.conn.(interface{ Measures() []string }); ok {
		if ms := m.Measures(); len(ms) > 0 {
			detail.Add(conform.KeyMeasures.Is(ms))
		}
	}
	if len(escapes) > 0 {
		detail.Add(conform.KeyWritesOutside.Is(escapes))
	}
	a.h.rec.event(a.n, conform.EventContainment, detail)
}
