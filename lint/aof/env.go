package aof

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// envKinds are the envelope kinds plus "" (an envelope of unknown type).
var envKinds = append(append([]string(nil), envelopeKinds...), "")

var (
	// EnvProtocol: protocol must be "aof".
	EnvProtocol = ruleDocs.Rule(lint.Rule{ID: "AOF-ENV-001", Protocol: "aof", Kinds: envKinds, Severity: lint.Error, Run: checkProtocol})
	// EnvVersion: version must be 1.
	EnvVersion = ruleDocs.Rule(lint.Rule{ID: "AOF-ENV-002", Protocol: "aof", Kinds: envKinds, Severity: lint.Error, Run: checkVersion})
	// EnvTaskID: every TaskId matches TASK-YYYY-MM-DD-NNN.
	EnvTaskID = ruleDocs.Rule(lint.Rule{ID: "AOF-ENV-003", Protocol: "aof", Severity: lint.Error, Run: checkTaskIDs})
	// EnvType: the type must be one of the five.
	EnvType = ruleDocs.Rule(lint.Rule{ID: "AOF-ENV-004", Protocol: "aof", Kinds: []string{""}, Severity: lint.Error, Run: checkType})
	// EnvTaskIDMatch: payload.taskId equals the envelope's taskId.
	EnvTaskIDMatch = ruleDocs.Rule(lint.Rule{
		ID: "AOF-ENV-005", Protocol: "aof", Kinds: []string{KindHandoffRequest, KindHandoffAccepted, KindHandoffRejected, KindStatusUpdate}, Severity: lint.Error,
		Run: checkTaskIDMatch,
	})
	// EnvAgentMatch: payload agents agree with the envelope.
	EnvAgentMatch = ruleDocs.Rule(lint.Rule{
		ID: "AOF-ENV-006", Protocol: "aof", Kinds: []string{KindHandoffRequest, KindStatusUpdate}, Severity: lint.Warning,
		Run: checkAgentMatch,
	})
)

// EnvAgentEmpty: agent names are not empty.
var EnvAgentEmpty = ruleDocs.Rule(lint.Rule{ID: "AOF-ENV-007", Protocol: "aof", Severity: lint.Warning, Run: checkAgentEmpty})

var envRules = []*lint.Rule{EnvProtocol, EnvVersion, EnvTaskID, EnvType, EnvTaskIDMatch, EnvAgentMatch, EnvAgentEmpty}

// agentFields are the members naming an agent, in the order checkAgentEmpty
// reports them: at the top level, then in the payload.
var agentFields = []struct {
	payload bool
	key     string
}{{false, "fromAgent"}, {false, "toAgent"}, {false, "agentId"}, {true, "agentId"}, {true, "fromAgent"}, {true, "toAgent"}}

func checkAgentEmpty(p *lint.Pass) {
	root := p.Msg.Root
	payload := root.Get("payload") // looked up once for its three members
	for _, f := range agentFields {
		obj := root
		if f.payload {
			obj = payload
		}
		if n := obj.Get(f.key); n.IsString() && strings.TrimSpace(n.Str) == "" {
			at := "/" + f.key
			if f.payload {
				at = "/payload" + at
			}
			p.Reportf(at, "%s is empty: not required by the spec (the guide only asks for a string), but an empty agent name routes to no one", strings.TrimPrefix(strings.ReplaceAll(at, "/", "."), "."))
		}
	}
}

func checkProtocol(p *lint.Pass) {
	n := p.Member("/protocol")
	switch {
	case n == nil:
		p.Reportf("/protocol", "\"protocol\" is missing: an AOF/1 envelope carries \"protocol\": \"aof\", by which the router recognises it (Message Detection)")
	case n.String() != "aof":
		p.Reportf("/protocol", "protocol %s must be \"aof\": the router ignores objects whose protocol is not \"aof\" (Message Detection), so this message would be dropped silently", short(n))
	default:
		return
	}
	p.Claim("/protocol")
}

func checkVersion(p *lint.Pass) {
	n := p.Member("/version")
	if n == nil {
		return // schema: required
	}
	if v, ok := n.Float(); ok && v == 1 {
		return
	}
	if v, ok := n.Int(); ok {
		p.Reportf("/version", "version %d is not supported: AOF/1 envelopes carry \"version\": 1, and routers reject unsupported versions (Versioning)", v)
	} else {
		p.Reportf("/version", "version must be the number 1, not %s", short(n))
	}
	p.Claim("/version")
}

// taskIDFields are the pointers of TaskIds by kind.
func taskIDFields(kind string) []string {
	switch kind {
	case KindHandoffRequest:
		return []string{"/taskId", "/payload/taskId", "/payload/parentTaskId"}
	case KindHandoffAccepted, KindHandoffRejected, KindStatusUpdate:
		return []string{"/taskId", "/payload/taskId"}
	case KindHandoffInput:
		return []string{"/taskId", "/parentTaskId"}
	}
	return []string{"/taskId"}
}

func checkTaskIDs(p *lint.Pass) {
	for _, ptr := range taskIDFields(p.Msg.Kind) {
		n := p.Member(ptr)
		if !n.IsString() {
			continue // schema: required / type
		}
		if msg := taskIDProblem(n.Str); msg != "" {
			p.Reportf(ptr, "%s %s", strings.ReplaceAll(ptr[1:], "/", "."), msg)
			p.Claim(ptr)
		}
	}
}

// taskIDProblem says what is wrong with a TaskId, or "".
func taskIDProblem(id string) string {
	if ValidTaskID(id) {
		return ""
	}
	if spec.UpstreamTaskID(id) {
		return fmt.Sprintf("%q carries the -NN suffix of the upstream AOF implementation (its TaskId regex is ^TASK-\\d{4}-\\d{2}-\\d{2}-\\d{3}(-\\d{2})?$); "+
			"the guide's pattern, which is normative, is TASK-YYYY-MM-DD-NNN without a suffix, such as %q", id, id[:len(id)-3])
	}
	return fmt.Sprintf("%q must match TASK-YYYY-MM-DD-NNN, such as %q", id, suggestTaskID(id))
}

var digitGroups = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+`) })

// suggestTaskID pads a near-miss ("TASK-2026-2-9-57") into the pattern, or returns
// the guide's example.
func suggestTaskID(id string) string {
	g := digitGroups().FindAllString(id, -1)
	if len(g) >= 4 && len(g[0]) == 4 && len(g[1]) <= 2 && len(g[2]) <= 2 && len(g[3]) <= 3 {
		s := fmt.Sprintf("TASK-%s-%02s-%02s-%03s", g[0], g[1], g[2], g[3])
		s = strings.ReplaceAll(s, " ", "0")
		if ValidTaskID(s) {
			return s
		}
	}
	return "TASK-2026-02-09-057"
}

func checkType(p *lint.Pass) {
	n := p.Member("/type")
	if !n.IsString() {
		return // schema: required / type
	}
	p.Reportf("/type", "type %q is not an AOF/1 message type (one of %s): the router logs protocol.message.unknown and ignores it "+
		"(the upstream implementation rejects it as invalid_envelope)", n.Str, quoteList(envelopeKinds))
	p.Claim("/type")
}

func checkTaskIDMatch(p *lint.Pass) {
	env, pl := p.Member("/taskId"), p.Member("/payload/taskId")
	if !env.IsString() || !pl.IsString() || env.Str == pl.Str {
		return
	}
	if taskIDProblem(env.Str) != "" && taskIDProblem(pl.Str) != "" {
		return // both malformed: AOF-ENV-003 says so; a mismatch on top is noise
	}
	if p.Msg.Kind == KindHandoffRequest {
		p.Reportf("/payload/taskId", "payload.taskId %q differs from the envelope taskId %q: the router rejects this handoff with taskId_mismatch; "+
			"the payload's taskId is the child task and must match the envelope's", pl.Str, env.Str)
		return
	}
	p.ReportSevf(lint.Warning, "/payload/taskId", "payload.taskId %q differs from the envelope taskId %q: not required by the spec (aof-1 asks the match of handoff.request only), but the %s contradicts its envelope", pl.Str, env.Str, p.Msg.Kind)
}

func checkAgentMatch(p *lint.Pass) {
	pairs := [][3]string{{"/payload/agentId", "/fromAgent", "the agent sending the update"}}
	if p.Msg.Kind == KindHandoffRequest {
		// payload.toAgent is the child agent; the envelope's toAgent may be the
		// router ("typically dispatcher"), so only the senders are compared.
		pairs = [][3]string{{"/payload/fromAgent", "/fromAgent", "the parent agent, who sends the handoff"}}
	}
	for _, pr := range pairs {
		a, b := p.Member(pr[0]), p.Member(pr[1])
		if a.IsString() && b.IsString() && a.Str != b.Str {
			p.Reportf(pr[0], "%s %q differs from the envelope's %s %q: both name %s", pr[0][len("/payload/"):], a.Str, pr[1][1:], b.Str, pr[2])
		}
	}
}

// short renders a JSON value for a message, cut to a sane length.
func short(n *jsonread.Node) string {
	if n == nil {
		return "(absent)"
	}
	var s string
	switch n.Kind {
	case jsonread.String:
		s = fmt.Sprintf("%q", n.Str)
	case jsonread.Array:
		s = "an array"
	case jsonread.Object:
		s = "an object"
	default:
		s = n.Scalar()
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
