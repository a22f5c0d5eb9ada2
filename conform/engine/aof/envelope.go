package aof

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// Envelope is a decoded AOF/1 message.
type Envelope struct {
	Protocol  string
	Version   json.Number
	Type      string
	TaskID    string
	FromAgent string
	ToAgent   string
	SentAt    string
	Payload   map[string]any
}

// detection is what Detect found in one line.
type detection int

const (
	notProtocol detection = iota // a log line, or JSON that is not an AOF message
	badJSON                      // meant as AOF (prefix or a JSON object) but not JSON
	candidate                    // a JSON object with protocol "aof"
)

// detect follows aof-1 §Message Detection: a JSON line, or "AOF/1 " and JSON.
func detect(line []byte) (detection, map[string]any, bool) {
	s := bytes.TrimSpace(line)
	prefixed := false
	if rest, ok := bytes.CutPrefix(s, []byte(spec.Prefix)); ok {
		s, prefixed = bytes.TrimSpace(rest), true
	} else if !bytes.HasPrefix(s, []byte("{")) {
		return notProtocol, nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return badJSON, nil, prefixed
	}
	obj, ok := v.(map[string]any)
	if !ok {
		if prefixed {
			return badJSON, nil, true
		}
		return notProtocol, nil, false
	}
	if obj["protocol"] != "aof" && !prefixed {
		return notProtocol, nil, false
	}
	return candidate, obj, prefixed
}

// fieldError says which field is wrong and how.
type fieldError struct {
	Pointer string
	Msg     string
}

func (e *fieldError) Error() string { return e.Pointer + ": " + e.Msg }

func ferr(ptr, format string, a ...any) *fieldError {
	return &fieldError{Pointer: ptr, Msg: fmt.Sprintf(format, a...)}
}

// decodeEnvelope checks the envelope fields (aof-1 §Envelope Fields). It returns the
// envelope, and either an error (invalid_envelope) or unknown=true.
func decodeEnvelope(obj map[string]any) (env *Envelope, unknown bool, err *fieldError) {
	env = &Envelope{}
	if p, _ := obj["protocol"].(string); p != "aof" {
		return env, false, ferr("/protocol", `must be "aof"`)
	}
	env.Protocol = "aof"
	if n, ok := obj["version"].(json.Number); !ok || n.String() != "1" {
		return env, false, ferr("/version", "must be the number 1 (AOF/1)")
	}
	env.Version = "1"
	var e *fieldError
	if env.Type, e = str(obj, "", "type", true, 0); e != nil {
		return env, false, e
	}
	if env.FromAgent, e = str(obj, "", "fromAgent", true, 0); e != nil {
		return env, false, e
	}
	if env.TaskID, e = taskID(obj, "", "taskId"); e != nil {
		return env, false, e
	}
	if env.ToAgent, e = str(obj, "", "toAgent", true, 0); e != nil {
		return env, false, e
	}
	if env.SentAt, e = datetime(obj, "", "sentAt"); e != nil {
		return env, false, e
	}
	p, ok := obj["payload"].(map[string]any)
	if !ok {
		return env, false, ferr("/payload", "must be an object")
	}
	env.Payload = p
	if !spec.KnownType(env.Type) {
		return env, true, nil
	}
	return env, false, nil
}

func str(obj map[string]any, base, key string, required bool, max int) (string, *fieldError) {
	v, present := obj[key]
	if !present {
		if required {
			return "", ferr(base+"/"+key, "is required")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", ferr(base+"/"+key, "must be a string")
	}
	if required && s == "" {
		return "", ferr(base+"/"+key, "must not be empty")
	}
	if max > 0 && utf8.RuneCountInString(s) > max {
		return "", ferr(base+"/"+key, "is %d characters, at most %d allowed", utf8.RuneCountInString(s), max)
	}
	return s, nil
}

func taskID(obj map[string]any, base, key string) (string, *fieldError) {
	s, e := str(obj, base, key, true, 0)
	if e != nil {
		return "", e
	}
	if !ValidTaskID(s) {
		return "", ferr(base+"/"+key, "%q must match TASK-YYYY-MM-DD-NNN, such as \"TASK-2026-02-09-057\"", s)
	}
	return s, nil
}

func datetime(obj map[string]any, base, key string) (string, *fieldError) {
	s, e := str(obj, base, key, true, 0)
	if e != nil {
		return "", e
	}
	if _, err := parseTime(s); err != nil {
		return "", ferr(base+"/"+key, "%q is not an ISO 8601 date-time such as \"2026-02-09T21:00:00.000Z\"", s)
	}
	return s, nil
}

func strList(obj map[string]any, base, key string, maxItems int) ([]string, *fieldError) {
	v, present := obj[key]
	if !present {
		return []string{}, nil
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, ferr(base+"/"+key, "must be an array of strings")
	}
	if len(arr) > maxItems {
		return nil, ferr(base+"/"+key, "has %d items, at most %d allowed", len(arr), maxItems)
	}
	out := make([]string, 0, len(arr))
	for i, it := range arr {
		s, ok := it.(string)
		if !ok {
			return nil, ferr(fmt.Sprintf("%s/%s/%d", base, key, i), "must be a string")
		}
		if utf8.RuneCountInString(s) > spec.MaxItem {
			return nil, ferr(fmt.Sprintf("%s/%s/%d", base, key, i), "is %d characters, at most %d allowed", utf8.RuneCountInString(s), spec.MaxItem)
		}
		out = append(out, s)
	}
	return out, nil
}

func count(obj map[string]any, base, key string) (int, *fieldError) {
	n, ok := obj[key].(json.Number)
	if !ok {
		return 0, ferr(base+"/"+key, "must be a non-negative integer")
	}
	i, err := n.Int64()
	if err != nil || i < 0 || i > 1<<31 {
		return 0, ferr(base+"/"+key, "must be a non-negative integer")
	}
	return int(i), nil
}

// completionPayload checks a completion.report payload (aof-1 §Payload Fields).
func completionPayload(p map[string]any) (*RunResult, *fieldError) {
	rr := &RunResult{}
	var e *fieldError
	rr.Outcome, e = str(p, "/payload", "outcome", true, 0)
	if e != nil {
		return nil, e
	}
	if !spec.ValidOutcome(rr.Outcome) {
		return nil, ferr("/payload/outcome", "%q must be one of done, blocked, needs_review, partial", rr.Outcome)
	}
	if rr.SummaryRef, e = str(p, "/payload", "summaryRef", true, spec.MaxSummaryRef); e != nil {
		return nil, e
	}
	if rr.Deliverables, e = strList(p, "/payload", "deliverables", spec.MaxListItems); e != nil {
		return nil, e
	}
	if rr.Blockers, e = strList(p, "/payload", "blockers", spec.MaxBlockers); e != nil {
		return nil, e
	}
	if _, ok := p["notes"]; !ok {
		return nil, ferr("/payload/notes", "is required")
	}
	if rr.Notes, e = str(p, "/payload", "notes", false, spec.MaxNotes); e != nil {
		return nil, e
	}
	tests, ok := p["tests"].(map[string]any)
	if !ok {
		return nil, ferr("/payload/tests", "is required: an object {total, passed, failed}")
	}
	if rr.Tests.Total, e = count(tests, "/payload/tests", "total"); e != nil {
		return nil, e
	}
	if rr.Tests.Passed, e = count(tests, "/payload/tests", "passed"); e != nil {
		return nil, e
	}
	if rr.Tests.Failed, e = count(tests, "/payload/tests", "failed"); e != nil {
		return nil, e
	}
	if rr.Tests.Passed+rr.Tests.Failed > rr.Tests.Total {
		return nil, ferr("/payload/tests", "passed (%d) + failed (%d) exceeds total (%d)", rr.Tests.Passed, rr.Tests.Failed, rr.Tests.Total)
	}
	return rr, nil
}

// StatusUpdate is a status.update payload.
type StatusUpdate struct {
	TaskID, AgentID, Status, Progress, Notes string
	Blockers                                 []string
}

func statusPayload(p map[string]any) (*StatusUpdate, *fieldError) {
	su := &StatusUpdate{}
	var e *fieldError
	if su.TaskID, e = taskID(p, "/payload", "taskId"); e != nil {
		return nil, e
	}
	if su.AgentID, e = str(p, "/payload", "agentId", true, 0); e != nil {
		return nil, e
	}
	if su.Status, e = str(p, "/payload", "status", false, 0); e != nil {
		return nil, e
	}
	if _, ok := p["status"]; ok && !spec.IsStatus(su.Status) {
		return nil, ferr("/payload/status", "%q must be one of %s", su.Status, strings.Join(spec.Statuses, ", "))
	}
	if su.Progress, e = str(p, "/payload", "progress", false, spec.MaxProgress); e != nil {
		return nil, e
	}
	if su.Notes, e = str(p, "/payload", "notes", false, spec.MaxNotes); e != nil {
		return nil, e
	}
	if su.Blockers, e = strList(p, "/payload", "blockers", spec.MaxBlockers); e != nil {
		return nil, e
	}
	_, hs := p["status"]
	_, hp := p["progress"]
	_, hb := p["blockers"]
	_, hn := p["notes"]
	if !hs && !hp && !hb && !hn {
		return nil, ferr("/payload", "status update must include status, progress, blockers, or notes")
	}
	return su, nil
}

// Handoff is a handoff.request payload, as written to inputs/handoff.json.
type Handoff struct {
	TaskID             string   `json:"taskId"`
	ParentTaskID       string   `json:"parentTaskId"`
	FromAgent          string   `json:"fromAgent"`
	ToAgent            string   `json:"toAgent"`
	AcceptanceCriteria []string `json:"acceptanceCriteria"`
	ExpectedOutputs    []string `json:"expectedOutputs"`
	ContextRefs        []string `json:"contextRefs"`
	Constraints        []string `json:"constraints"`
	DueBy              string   `json:"dueBy"`
}

// handoffPayload checks a handoff.request payload. A bad acceptanceCriteria does not
// reject the handoff (aof-1 §Handoff Error Cases): it comes back as criteriaErr.
func handoffPayload(p map[string]any) (h *Handoff, criteriaErr, e *fieldError) {
	h = &Handoff{}
	if h.TaskID, e = taskID(p, "/payload", "taskId"); e != nil {
		return nil, nil, e
	}
	if h.ParentTaskID, e = taskID(p, "/payload", "parentTaskId"); e != nil {
		return nil, nil, e
	}
	if h.FromAgent, e = str(p, "/payload", "fromAgent", true, 0); e != nil {
		return nil, nil, e
	}
	if h.ToAgent, e = str(p, "/payload", "toAgent", true, 0); e != nil {
		return nil, nil, e
	}
	if h.AcceptanceCriteria, criteriaErr = strList(p, "/payload", "acceptanceCriteria", spec.MaxListItems); criteriaErr != nil {
		h.AcceptanceCriteria = []string{}
	}
	if h.ExpectedOutputs, e = strList(p, "/payload", "expectedOutputs", spec.MaxListItems); e != nil {
		return nil, nil, e
	}
	if h.ContextRefs, e = strList(p, "/payload", "contextRefs", spec.MaxListItems); e != nil {
		return nil, nil, e
	}
	if h.Constraints, e = strList(p, "/payload", "constraints", spec.MaxListItems); e != nil {
		return nil, nil, e
	}
	if h.DueBy, e = datetime(p, "/payload", "dueBy"); e != nil {
		return nil, nil, e
	}
	return h, criteriaErr, nil
}

// ackPayload checks handoff.accepted (accepted must be true) and handoff.rejected
// (accepted must be false, reason optional).
func ackPayload(p map[string]any, accepted bool) (id, reason string, e *fieldError) {
	if id, e = taskID(p, "/payload", "taskId"); e != nil {
		return "", "", e
	}
	if b, ok := p["accepted"].(bool); !ok || b != accepted {
		return "", "", ferr("/payload/accepted", "must be the boolean %v", accepted)
	}
	if reason, e = str(p, "/payload", "reason", false, spec.MaxReason); e != nil {
		return "", "", e
	}
	return id, reason, nil
}

// HandoffMarkdown renders inputs/handoff.md (aof-1 §Handoff Artifacts 2).
func HandoffMarkdown(h *Handoff) []byte {
	var b strings.Builder
	b.WriteString("# Handoff Request\n\n")
	fmt.Fprintf(&b, "**From:** %s\n**To:** %s\n**Due By:** %s\n", h.FromAgent, h.ToAgent, h.DueBy)
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		for _, it := range items {
			fmt.Fprintf(&b, "- %s\n", it)
		}
	}
	section("Acceptance Criteria", h.AcceptanceCriteria)
	section("Expected Outputs", h.ExpectedOutputs)
	section("Context References", h.ContextRefs)
	section("Constraints", h.Constraints)
	return []byte(b.String())
}

// EnvelopeProblem is why the router rejects one line as an AOF message
// (invalid_json, or invalid_envelope with the field at fault, the payload's
// validation included); "" when it routes it, or when the line is no protocol
// message at all. The orchestrator side judges with it whether a scheduler under
// test had to reject what the agent sent.
func EnvelopeProblem(line []byte) string {
	det, obj, _ := detect(line)
	switch det {
	case notProtocol:
		return ""
	case badJSON:
		return ReasonInvalidJSON
	}
	env, unknown, e := decodeEnvelope(obj)
	if e == nil && !unknown {
		switch env.Type {
		case spec.TypeCompletion:
			_, e = completionPayload(env.Payload)
		case spec.TypeStatusUpdate:
			_, e = statusPayload(env.Payload)
		case spec.TypeHandoffRequest:
			_, _, e = handoffPayload(env.Payload)
		default:
			_, _, e = ackPayload(env.Payload, env.Type == spec.TypeHandoffAccepted)
		}
	}
	if e != nil {
		return ReasonInvalidEnvelope + ": " + e.Error()
	}
	return ""
}
