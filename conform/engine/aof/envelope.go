package aof

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// Envelope is an AOF/1 message as the router admits it: the envelope fields
// it has checked, and the message as decoded (lint/spec/aof's typed wire
// structs).
//
// The router admits what aoplint admits (issue 28): every message it detects
// is linted with lint/aof's rules of one message (judge, admit.go), and an
// error refuses it, save the deliberate differences listed in Exceptions
// (upstream size limits and empty agent names refuse although aoplint only
// warns; an unknown type is logged, not rejected; a bad acceptanceCriteria is
// routed with a schema_error; a handoff's taskId mismatch is refused as
// taskId_mismatch). The decisions this took, from aof-1 (normative) and
// reference/README.md:
//   - a TaskId with the upstream -NN suffix is refused: the guide's pattern has
//     no suffix (AOF-ENV-003), although the upstream store accepts it;
//   - status "cancelled" and "deadletter" are routed alike: both are upstream
//     statuses the guide's lifecycle lacks, aoplint warns of both
//     (AOF-STATUS-002); neither is a transition the state machine allows from a
//     live status but cancelled, so deadletter lands as invalid_transition;
//   - the size limits are counted as AOF-LIMIT-001 counts them, in UTF-16 code
//     units, not in runes: they agree at the limit on non-BMP text;
//   - version 1.0 is the number 1 (AOF-ENV-002) and is routed;
//   - a blocked completion.report without blockers is refused: blockers are
//     "Required for blocked outcome" (AOF-COMP-001).
//
// The router's own checks below only word a refusal (the upstream router's
// short texts, which the events goldens hold; problem in admit.go) and read
// the typed values; the refusal is still one problem, the first. What both
// read the same way is read from lint/spec/aof: the task id pattern, the
// timestamp dialect, the enums and the size limits.
type Envelope struct {
	Protocol  string
	Version   json.Number
	Type      string
	TaskID    string
	FromAgent string
	ToAgent   string
	SentAt    string
	Wire      *spec.Envelope // the message as decoded; its payload is an object
	lint      verdict        // aoplint's findings on the message
}

// detection is what Detect found in one line.
type detection int

const (
	notProtocol detection = iota // a log line, or JSON that is not an AOF message
	badJSON                      // meant as AOF (prefix or a JSON object) but not JSON
	candidate                    // a JSON object with protocol "aof"
)

// detect follows aof-1 §Message Detection: a JSON line, or "AOF/1 " and JSON.
func detect(line []byte) (detection, *spec.Envelope, bool) {
	s := bytes.TrimSpace(line)
	prefixed := false
	if rest, ok := bytes.CutPrefix(s, []byte(spec.Prefix)); ok {
		s, prefixed = bytes.TrimSpace(rest), true
	} else if !bytes.HasPrefix(s, []byte("{")) {
		return notProtocol, nil, false
	}
	w, err := spec.DecodeEnvelope(s)
	switch {
	case errors.Is(err, spec.ErrNotObject) && !prefixed:
		return notProtocol, nil, false
	case err != nil:
		return badJSON, nil, prefixed
	case w.Protocol.V != "aof" && !prefixed:
		return notProtocol, nil, false
	}
	return candidate, w, prefixed
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
func decodeEnvelope(w *spec.Envelope) (env *Envelope, unknown bool, err *fieldError) {
	env = &Envelope{}
	if w.Protocol.V != "aof" {
		return env, false, ferr("/protocol", `must be "aof"`)
	}
	env.Protocol = "aof"
	if v, err := w.Version.V.Float64(); !w.Version.OK || err != nil || v != 1 {
		return env, false, ferr("/version", "must be the number 1 (AOF/1)")
	}
	env.Version = "1"
	var e *fieldError
	if env.Type, e = str(w.Type, "/type", true, 0); e != nil {
		return env, false, e
	}
	if env.FromAgent, e = str(w.FromAgent, "/fromAgent", true, 0); e != nil {
		return env, false, e
	}
	if env.TaskID, e = taskID(w.TaskID, "/taskId"); e != nil {
		return env, false, e
	}
	if env.ToAgent, e = str(w.ToAgent, "/toAgent", true, 0); e != nil {
		return env, false, e
	}
	if env.SentAt, e = datetime(w.SentAt, "/sentAt"); e != nil {
		return env, false, e
	}
	if !w.Payload.OK {
		return env, false, ferr("/payload", "must be an object")
	}
	env.Wire = w
	if !spec.KnownType(env.Type) {
		return env, true, nil
	}
	return env, false, nil
}

func str(m spec.Member[string], ptr string, required bool, max int) (string, *fieldError) {
	if !m.Has() {
		if required {
			return "", ferr(ptr, "is required")
		}
		return "", nil
	}
	if !m.OK {
		return "", ferr(ptr, "must be a string")
	}
	s := m.V
	if required && s == "" {
		return "", ferr(ptr, "must not be empty")
	}
	if max > 0 && spec.Length(s) > max {
		return "", ferr(ptr, "is %d characters, at most %d allowed", spec.Length(s), max)
	}
	return s, nil
}

func taskID(m spec.Member[string], ptr string) (string, *fieldError) {
	s, e := str(m, ptr, true, 0)
	if e != nil {
		return "", e
	}
	if !ValidTaskID(s) {
		return "", ferr(ptr, "%q must match TASK-YYYY-MM-DD-NNN, such as \"TASK-2026-02-09-057\"", s)
	}
	return s, nil
}

func datetime(m spec.Member[string], ptr string) (string, *fieldError) {
	s, e := str(m, ptr, true, 0)
	if e != nil {
		return "", e
	}
	if _, err := parseTime(s); err != nil {
		return "", ferr(ptr, "%q is not an ISO 8601 date-time such as \"2026-02-09T21:00:00.000Z\"", s)
	}
	return s, nil
}

func strList(m spec.Member[[]spec.Member[string]], ptr string, maxItems int) ([]string, *fieldError) {
	if !m.Has() {
		return []string{}, nil
	}
	if !m.OK {
		return nil, ferr(ptr, "must be an array of strings")
	}
	if len(m.V) > maxItems {
		return nil, ferr(ptr, "has %d items, at most %d allowed", len(m.V), maxItems)
	}
	out := make([]string, 0, len(m.V))
	for i, it := range m.V {
		if !it.OK {
			return nil, ferr(fmt.Sprintf("%s/%d", ptr, i), "must be a string")
		}
		if spec.Length(it.V) > spec.MaxItem {
			return nil, ferr(fmt.Sprintf("%s/%d", ptr, i), "is %d characters, at most %d allowed", spec.Length(it.V), spec.MaxItem)
		}
		out = append(out, it.V)
	}
	return out, nil
}

func count(m spec.Member[json.Number], ptr string) (int, *fieldError) {
	if !m.OK {
		return 0, ferr(ptr, "must be a non-negative integer")
	}
	i, err := m.V.Int64()
	if err != nil || i < 0 || i > 1<<31 {
		return 0, ferr(ptr, "must be a non-negative integer")
	}
	return int(i), nil
}

// completionPayload checks a completion.report payload (aof-1 §Payload Fields).
func completionPayload(p *spec.CompletionReport) (*RunResult, *fieldError) {
	rr := &RunResult{}
	var e *fieldError
	rr.Outcome, e = str(p.Outcome, "/payload/outcome", true, 0)
	if e != nil {
		return nil, e
	}
	if !spec.ValidOutcome(rr.Outcome) {
		return nil, ferr("/payload/outcome", "%q must be one of done, blocked, needs_review, partial", rr.Outcome)
	}
	if rr.SummaryRef, e = str(p.SummaryRef, "/payload/summaryRef", true, spec.MaxSummaryRef); e != nil {
		return nil, e
	}
	if rr.Deliverables, e = strList(p.Deliverables, "/payload/deliverables", spec.MaxListItems); e != nil {
		return nil, e
	}
	if rr.Blockers, e = strList(p.Blockers, "/payload/blockers", spec.MaxBlockers); e != nil {
		return nil, e
	}
	if !p.Notes.Has() {
		return nil, ferr("/payload/notes", "is required")
	}
	if rr.Notes, e = str(p.Notes, "/payload/notes", false, spec.MaxNotes); e != nil {
		return nil, e
	}
	if !p.Tests.OK {
		return nil, ferr("/payload/tests", "is required: an object {total, passed, failed}")
	}
	tests := &p.Tests.V
	if rr.Tests.Total, e = count(tests.Total, "/payload/tests/total"); e != nil {
		return nil, e
	}
	if rr.Tests.Passed, e = count(tests.Passed, "/payload/tests/passed"); e != nil {
		return nil, e
	}
	if rr.Tests.Failed, e = count(tests.Failed, "/payload/tests/failed"); e != nil {
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

func statusPayload(p *spec.StatusUpdate) (*StatusUpdate, *fieldError) {
	su := &StatusUpdate{}
	var e *fieldError
	if su.TaskID, e = taskID(p.TaskID, "/payload/taskId"); e != nil {
		return nil, e
	}
	if su.AgentID, e = str(p.AgentID, "/payload/agentId", true, 0); e != nil {
		return nil, e
	}
	if su.Status, e = str(p.Status, "/payload/status", false, 0); e != nil {
		return nil, e
	}
	if su.Progress, e = str(p.Progress, "/payload/progress", false, spec.MaxProgress); e != nil {
		return nil, e
	}
	if su.Notes, e = str(p.Notes, "/payload/notes", false, spec.MaxNotes); e != nil {
		return nil, e
	}
	if su.Blockers, e = strList(p.Blockers, "/payload/blockers", spec.MaxBlockers); e != nil {
		return nil, e
	}
	if !p.Status.Has() && !p.Progress.Has() && !p.Blockers.Has() && !p.Notes.Has() {
		return nil, ferr("/payload", "status update must include status, progress, blockers, or notes")
	}
	return su, nil
}

// Handoff is a handoff.request payload as the router accepts it, written to
// inputs/handoff.json.
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
func handoffPayload(p *spec.HandoffRequest) (h *Handoff, criteriaErr, e *fieldError) {
	h = &Handoff{}
	if h.TaskID, e = taskID(p.TaskID, "/payload/taskId"); e != nil {
		return nil, nil, e
	}
	if h.ParentTaskID, e = taskID(p.ParentTaskID, "/payload/parentTaskId"); e != nil {
		return nil, nil, e
	}
	if h.FromAgent, e = str(p.FromAgent, "/payload/fromAgent", true, 0); e != nil {
		return nil, nil, e
	}
	if h.ToAgent, e = str(p.ToAgent, "/payload/toAgent", true, 0); e != nil {
		return nil, nil, e
	}
	if h.AcceptanceCriteria, criteriaErr = strList(p.AcceptanceCriteria, "/payload/acceptanceCriteria", spec.MaxListItems); criteriaErr != nil {
		h.AcceptanceCriteria = []string{}
	}
	if h.ExpectedOutputs, e = strList(p.ExpectedOutputs, "/payload/expectedOutputs", spec.MaxListItems); e != nil {
		return nil, nil, e
	}
	if h.ContextRefs, e = strList(p.ContextRefs, "/payload/contextRefs", spec.MaxListItems); e != nil {
		return nil, nil, e
	}
	if h.Constraints, e = strList(p.Constraints, "/payload/constraints", spec.MaxListItems); e != nil {
		return nil, nil, e
	}
	if h.DueBy, e = datetime(p.DueBy, "/payload/dueBy"); e != nil {
		return nil, nil, e
	}
	return h, criteriaErr, nil
}

// ackPayload checks handoff.accepted (accepted must be true) and handoff.rejected
// (accepted must be false, reason optional).
func ackPayload(p *spec.HandoffAck, accepted bool) (id, reason string, e *fieldError) {
	if id, e = taskID(p.TaskID, "/payload/taskId"); e != nil {
		return "", "", e
	}
	if !p.Accepted.OK || p.Accepted.V != accepted {
		return "", "", ferr("/payload/accepted", "must be the boolean %v", accepted)
	}
	if reason, e = str(p.Reason, "/payload/reason", false, spec.MaxReason); e != nil {
		return "", "", e
	}
	return id, reason, nil
}

// payloadProblem is why the router refuses the payload of a message of a
// known type (nil: it routes it).
func payloadProblem(env *Envelope) (e *fieldError) {
	w := env.Wire
	switch env.Type {
	case spec.TypeCompletion:
		_, e = completionPayload(w.Completion)
	case spec.TypeStatusUpdate:
		_, e = statusPayload(w.Status)
	case spec.TypeHandoffRequest:
		_, _, e = handoffPayload(w.Handoff)
	default:
		_, _, e = ackPayload(w.Ack, env.Type == spec.TypeHandoffAccepted)
	}
	return problem(env.lint.payload, e)
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
	det, w, _ := detect(line)
	switch det {
	case notProtocol:
		return ""
	case badJSON:
		return ReasonInvalidJSON
	}
	env, unknown, e := readEnvelope(line, w)
	if e == nil && !unknown {
		e = payloadProblem(env)
	}
	if e != nil {
		return ReasonInvalidEnvelope + ": " + e.Error()
	}
	return ""
}

// readEnvelope lints a detected message and reads its envelope: the problem
// refusing it (aoplint's finding outside the payload, as the router words it),
// or unknown=true for a type the router logs as unknown.
func readEnvelope(line []byte, w *spec.Envelope) (env *Envelope, unknown bool, e *fieldError) {
	v := judge(line, w.Type.V)
	env, unknown, e = decodeEnvelope(w)
	env.lint = v
	if e = problem(v.envelope, e); e != nil {
		return env, false, e
	}
	return env, unknown, nil
}
