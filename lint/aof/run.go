package aof

import (
	"time"

	"github.com/aopkit/aopkit/lint"
)

// DefaultTTL is the heartbeat TTL of aof-1 §Resume Protocol.
const DefaultTTL = 5 * time.Minute

// RunExpiry: expiresAt = lastHeartbeat + TTL.
var RunExpiry = &lint.Rule{
	ID: "AOF-RUN-001", Title: "heartbeat expiresAt = lastHeartbeat + TTL", Protocol: "aof", Kinds: []string{KindHeartbeat}, Severity: lint.Error,
	Spec: "aof-1 §Resume Protocol (Artifacts: run_heartbeat.json)",
	Doc: "run_heartbeat.json's expiresAt is lastHeartbeat + ttlMs (default 5 minutes, 300,000 ms). An expiresAt at or before " +
		"lastHeartbeat makes every heartbeat stale the moment it is written, so the scheduler reclaims a live run. A TTL over a day is " +
		"a warning: a crashed run would hold its task that long.",
	Bad:  `{"lastHeartbeat": "2026-02-09T21:00:00.000Z", "expiresAt": "2026-02-09T20:55:00.000Z", ...}`,
	Good: `{"lastHeartbeat": "2026-02-09T21:00:00.000Z", "expiresAt": "2026-02-09T21:05:00.000Z", ...}`,
	Run:  checkExpiry,
}

var runRules = []*lint.Rule{RunExpiry}

func checkExpiry(p *lint.Pass) {
	last, ok1 := timeOf(p.Node("/lastHeartbeat"))
	exp, ok2 := timeOf(p.Node("/expiresAt"))
	if !ok1 || !ok2 {
		return
	}
	ttl := exp.Sub(last)
	switch {
	case ttl <= 0:
		p.Reportf("/expiresAt", "expiresAt %s is not after lastHeartbeat %s: expiresAt = lastHeartbeat + ttlMs (default 300,000 ms), such as %q",
			p.Node("/expiresAt").Str, p.Node("/lastHeartbeat").Str, last.Add(DefaultTTL).UTC().Format("2006-01-02T15:04:05.000Z"))
	case ttl > 24*time.Hour:
		p.ReportSevf(lint.Warning, "/expiresAt", "expiresAt is %s after lastHeartbeat: a TTL that long lets a crashed run hold its task for hours (default 5 minutes)", ttl)
	}
}
