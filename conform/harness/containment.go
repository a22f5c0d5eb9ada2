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
	detail := map[string]any{"mode": mode}
	if m, ok := a.conn.(interface{ Measures() []string }); ok {
		if ms := m.Measures(); len(ms) > 0 {
			detail["measures"] = ms
		}
	}
	if len(escapes) > 0 {
		detail["writes_outside_scratch"] = escapes
	}
	a.h.rec.event(a.n, conform.ContainmentEvent, detail)
}
