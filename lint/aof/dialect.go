package aof

import "github.com/aopkit/aopkit/lint"

// DialectFields reports the upstream implementation's envelope fields.
var DialectFields = ruleDocs.Rule(lint.Rule{
	ID: "AOF-DIALECT-001", Protocol: "aof", Kinds: envKinds, Severity: lint.Info,
	NewChecker: func() lint.Checker { return &dialectChecker{} },
})

// dialectChecker names the dialect once per stream (an upstream agent sends
// projectId on every message), and malformed values every time.
type dialectChecker struct {
	seen map[string]bool
}

func (c *dialectChecker) Observe(p *lint.Pass) {
	if p.Msg == nil || p.Msg.Root == nil || p.Msg.Protocol != "aof" || !isEnvelope(p.Msg.Kind) {
		return
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	checkDialect(p, c.seen)
}

func (c *dialectChecker) Finish(*lint.Pass) {}

var dialectRules = []*lint.Rule{DialectFields}

func checkDialect(p *lint.Pass, seen map[string]bool) {
	pid, alias, rel := p.Member("/projectId"), p.Member("/project_id"), p.Member("/taskRelpath")
	for _, f := range []struct{ ptr, what string }{
		{"/projectId", "\"projectId\" is an envelope field of the upstream AOF implementation (required there, alias project_id); the guide's envelope does not define it, and aoplint accepts it"},
		{"/project_id", "\"project_id\" is the upstream AOF implementation's alias of projectId; the guide's envelope does not define it, and aoplint accepts it"},
	} {
		n := p.Member(f.ptr)
		if n == nil {
			continue
		}
		if !n.IsString() || n.Str == "" {
			p.ReportSevf(lint.Warning, f.ptr, "%s is %s: the upstream implementation requires a non-empty string and rejects the envelope as invalid_envelope", f.ptr[1:], short(n))
			continue
		}
		if !seen[f.ptr] {
			seen[f.ptr] = true
			p.Reportf(f.ptr, "%s", f.what)
		}
	}
	if pid.IsString() && alias.IsString() && pid.Str != alias.Str {
		p.ReportSevf(lint.Warning, "/project_id", "project_id %q disagrees with projectId %q: upstream reads one of them, so the message may land in the wrong project", alias.Str, pid.Str)
	}
	if rel != nil {
		if !rel.IsString() {
			p.ReportSevf(lint.Warning, "/taskRelpath", "taskRelpath is %s: the upstream implementation expects a string (the task file's path in the data directory)", short(rel))
		} else if !seen["/taskRelpath"] {
			seen["/taskRelpath"] = true
			p.Reportf("/taskRelpath", "\"taskRelpath\" is an optional envelope field of the upstream AOF implementation (the task file's path in the data directory); the guide does not define it, and aoplint accepts it")
		}
	}
}
