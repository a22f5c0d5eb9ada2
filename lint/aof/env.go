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
	EnvProtocol = &lint.Rule{
		ID: "AOF-ENV-001", Title: "protocol must be \"aof\"", Protocol: "aof", Kinds: envKinds, Severity: lint.Error,
		Spec: "aof-1 §Envelope Fields; §Message Detection",
		Doc: "Every AOF/1 envelope carries \"protocol\": \"aof\". The router recognises protocol messages by protocol === \"aof\" " +
			"(Message Detection step 1); an object with another protocol, or none, is not routed at all: the message is lost silently. " +
			"aoplint reports it when the message is otherwise shaped like an envelope, was sent with the AOF/1 prefix, or --protocol aof was given.",
		Bad:  `{"protocol": "not-aof", "version": 1, "type": "status.update", ...}`,
		Good: `{"protocol": "aof", "version": 1, "type": "status.update", ...}`,
		Run:  checkProtocol,
	}
	// EnvVersion: version must be 1.
	EnvVersion = &lint.Rule{
		ID: "AOF-ENV-002", Title: "version must be 1", Protocol: "aof", Kinds: envKinds, Severity: lint.Error,
		Spec: "aof-1 §Envelope Fields; §Versioning",
		Doc: "The envelope's \"version\" is the number 1 for AOF/1. \"Agents should validate the version field and reject unsupported versions\" " +
			"(Versioning); a router of AOF/1 rejects any other version as an invalid envelope.",
		Bad:  `{"protocol": "aof", "version": 2, ...}`,
		Good: `{"protocol": "aof", "version": 1, ...}`,
		Run:  checkVersion,
	}
	// EnvTaskID: every TaskId matches TASK-YYYY-MM-DD-NNN.
	EnvTaskID = &lint.Rule{
		ID: "AOF-ENV-003", Title: "taskId format", Protocol: "aof", Severity: lint.Error,
		Spec: "aof-1 §Envelope Fields",
		Doc: "Task IDs (the envelope's taskId, the payload's taskId and parentTaskId, and the taskId of run artifacts and handoff inputs) " +
			"match /^TASK-\\d{4}-\\d{2}-\\d{2}-\\d{3}$/ (the guide's pattern, which is normative). The upstream implementation also accepts " +
			"an optional -NN suffix (TASK-2026-02-09-057-01); that is an upstream dialect the guide does not allow, and it is reported as such.",
		Bad:  `"taskId": "TASK-2026-2-9-57"`,
		Good: `"taskId": "TASK-2026-02-09-057"`,
		Run:  checkTaskIDs,
	}
	// EnvType: the type must be one of the five.
	EnvType = &lint.Rule{
		ID: "AOF-ENV-004", Title: "unknown message type (protocol.message.unknown)", Protocol: "aof", Kinds: []string{""}, Severity: lint.Error,
		Spec: "aof-1 §Message Types; §Validation",
		Doc: "AOF/1 has five message types: handoff.request, handoff.accepted, handoff.rejected, status.update and completion.report. " +
			"The router logs any other type as protocol.message.unknown and ignores it (the upstream implementation rejects it as invalid_envelope).",
		Bad:  `{"protocol": "aof", "version": 1, "type": "task.cancelled", ...}`,
		Good: `{"protocol": "aof", "version": 1, "type": "status.update", ...}`,
		Run:  checkType,
	}
	// EnvTaskIDMatch: payload.taskId equals the envelope's taskId.
	EnvTaskIDMatch = &lint.Rule{
		ID: "AOF-ENV-005", Title: "payload taskId must equal the envelope taskId (taskId_mismatch)", Protocol: "aof",
		Kinds: []string{KindHandoffRequest, KindHandoffAccepted, KindHandoffRejected, KindStatusUpdate}, Severity: lint.Error,
		Spec: "aof-1 §Handoff Request Payload; §Conflict Resolution",
		Doc: "A payload that names its task (handoff.request, handoff.accepted, handoff.rejected, status.update) names the envelope's task. " +
			"For handoff.request the guide says so outright: payload.taskId \"must match envelope taskId\", and a mismatch is rejected with " +
			"protocol.message.rejected reason taskId_mismatch: an error. aof-1 requires the match for handoff.request only (the upstream router routes " +
			"a status.update or handoff ack whose payload names another task), so for the other types a mismatch is a warning that says it is not " +
			"required by the spec: the payload contradicts its envelope.",
		Bad:  `{"type": "handoff.request", "taskId": "TASK-2026-02-09-061", "payload": {"taskId": "TASK-2026-02-09-060", ...}}`,
		Good: `{"type": "handoff.request", "taskId": "TASK-2026-02-09-061", "payload": {"taskId": "TASK-2026-02-09-061", ...}}`,
		Run:  checkTaskIDMatch,
	}
	// EnvAgentMatch: payload agents agree with the envelope.
	EnvAgentMatch = &lint.Rule{
		ID: "AOF-ENV-006", Title: "payload agents should agree with the envelope", Protocol: "aof",
		Kinds: []string{KindHandoffRequest, KindStatusUpdate}, Severity: lint.Warning,
		Spec: "aof-1 §Status Update Payload; §Handoff Request Payload",
		Doc: "status.update's payload.agentId is the \"agent sending the update\", which is the envelope's fromAgent; handoff.request's " +
			"payload.fromAgent is the parent agent, the sender. (payload.toAgent, the child, is not compared: the envelope's toAgent may be " +
			"the dispatcher.) When they differ the " +
			"message contradicts itself and logs and artifacts name the wrong agent.",
		Bad:  `{"type": "status.update", "fromAgent": "swe-qa", "payload": {"agentId": "swe-backend", ...}}`,
		Good: `{"type": "status.update", "fromAgent": "swe-qa", "payload": {"agentId": "swe-qa", ...}}`,
		Run:  checkAgentMatch,
	}
)

// EnvAgentEmpty: agent names are not empty.
var EnvAgentEmpty = &lint.Rule{
	ID: "AOF-ENV-007", Title: "empty agent name (not required by the spec)", Protocol: "aof", Severity: lint.Warning,
	Spec: "aof-1 §Envelope Fields; §Status Update Payload; §Handoff Request Payload",
	Doc: "fromAgent, toAgent and the payload's agentId, fromAgent and toAgent are strings naming agents. The guide does not say they must be " +
		"non-empty, so an empty string is valid AOF; but an empty name routes to nobody and logs name no one. A sanity check: a warning " +
		"that says it is not required by the spec.",
	Bad:  `{"type": "status.update", "fromAgent": "", ...}`,
	Good: `{"type": "status.update", "fromAgent": "swe-qa", ...}`,
	Run:  checkAgentEmpty,
}

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
	case jsonread.Number:
		s = n.Str
	case jsonread.Bool:
		s = fmt.Sprint(n.Bool)
	case jsonread.Null:
		s = "null"
	case jsonread.Array:
		s = "an array"
	default:
		s = "an object"
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
