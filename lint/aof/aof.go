// Package aof holds aoplint's rules for AOF/1 (specs/aof-1.md): the protocol's
// detection, the envelope and payload rules, the run artifacts, the sequence rules
// over transcripts, and the linter of AOF data directories.
//
// Rule IDs: AOF-ENV (envelope), AOF-TIME (timestamps), AOF-DIALECT (upstream
// envelope fields), AOF-LIMIT (upstream size limits), AOF-COMP (completion reports
// and run_result.json), AOF-STATUS (status updates), AOF-HANDOFF (handoffs),
// AOF-RUN (run artifacts), AOF-SEQ (sequences), AOF-DIR (data directories),
// AOF-SCHEMA (JSON Schema).
package aof

import (
	"math/bits"
	"path/filepath"
	"strings"
	"time"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// Message kinds: the five envelope types and the run artifacts.
const (
	KindHandoffRequest  = "handoff.request"
	KindHandoffAccepted = "handoff.accepted"
	KindHandoffRejected = "handoff.rejected"
	KindStatusUpdate    = "status.update"
	KindCompletion      = "completion.report"
	KindRun             = "run.json"
	KindHeartbeat       = "run_heartbeat.json"
	KindRunResult       = "run_result.json"
	KindHandoffInput    = "inputs/handoff.json"
)

// envelopeKinds are the message types of aof-1 §Message Type Enum.
var envelopeKinds = []string{KindHandoffRequest, KindHandoffAccepted, KindHandoffRejected, KindStatusUpdate, KindCompletion}

var artifactKinds = []string{KindRun, KindHeartbeat, KindRunResult, KindHandoffInput, KindHandoffMD}

// DialectUpstream marks a message carrying the live implementation's envelope
// fields (projectId, project_id, taskRelpath).
const DialectUpstream = "aof-upstream"

// Protocol is AOF/1.
var Protocol = &lint.Protocol{
	ID:         "aof",
	Name:       "AOF/1 protocols (filesystem-first agent orchestration)",
	Spec:       "aof-1 (AOF Protocols User Guide, protocol version 1)",
	Kinds:      append(append([]string(nil), envelopeKinds...), artifactKinds...),
	Detect:     Detect,
	DetectText: DetectText,
	Schema:     schemaFile,
	MatchDir:   IsDataDir,
	LintDir:    LintDataDir,
}

func isEnvelopeKind(k string) bool { return envelopeKind(k) != "" }

// envelopeKind returns the package's own string for an envelope kind (so that
// a message's kind never points into its line), or "".
func envelopeKind(k string) string {
	for _, e := range envelopeKinds {
		if e == k {
			return e
		}
	}
	return ""
}

func isEnvelope(kind string) bool { return kind == "" || isEnvelopeKind(kind) }

// Detect follows aof-1 §Message Detection: an object with protocol "aof" is an AOF
// envelope (the driver handles the "AOF/1 " prefix by forcing this protocol). Run
// artifacts are known by their file names (run.json, run_heartbeat.json,
// run_result.json, inputs/handoff.json) and, in streams, by their shapes. An
// object shaped like an envelope whose protocol is not "aof" is claimed weakly, so
// that it gets AOF-ENV-001 instead of a bare "no protocol recognised".
func Detect(root *jsonread.Node, name string) (kind, dialect string, confidence int) {
	if root == nil || root.Kind != jsonread.Object {
		return "", "", 0
	}
	f := membersOf(root)
	if f.protocol != nil {
		// env is the envelope kind named by "type", as the package's string
		// (the kind is kept: rule sets by kind), or "" when it names none.
		env := envelopeKind(f.typ.String())
		if f.protocol.String() == "aof" {
			return env, upstreamDialect(root), 100
		}
		if env != "" && f.payload != nil {
			return env, upstreamDialect(root), 40
		}
	}
	if name != "" {
		if k := kindFromName(name); k != "" {
			if f.taskID != nil || f.agentID {
				return k, "", 95
			}
			return k, "", 30
		}
	}
	if k := f.shapeKind(); k != "" {
		return k, "", 80
	}
	if f.protocol == nil && f.payload != nil && f.taskID != nil {
		if env := envelopeKind(f.typ.String()); env != "" {
			return env, upstreamDialect(root), 60 // an envelope that forgot "protocol"
		}
	}
	return "", "", 0
}

// detectMembers are the members Detect reads, found in one pass over an
// object's members (each the last of a repeated key, the member Get finds),
// and the marks of a run artifact's members (shapes).
type detectMembers struct {
	typ, protocol, payload, taskID *jsonread.Node
	agentID                        bool
	marks                          uint32
}

func membersOf(root *jsonread.Node) (f detectMembers) {
	for i := range root.Members {
		m := &root.Members[i]
		switch m.Key {
		case "type":
			f.typ = m.Value
		case "protocol":
			f.protocol = m.Value
		case "payload":
			f.payload = m.Value
		case "taskId":
			f.taskID = m.Value
		case "agentId":
			f.agentID = true
		// The members that mark a run artifact, a bit each (shapes), in the
		// same switch: one search of the key.
		case "lastHeartbeat":
			f.marks |= 1 << 0
		case "beatCount":
			f.marks |= 1 << 1
		case "expiresAt":
			f.marks |= 1 << 2
		case "completedAt":
			f.marks |= 1 << 3
		case "outcome":
			f.marks |= 1 << 4
		case "summaryRef":
			f.marks |= 1 << 5
		case "handoffRef":
			f.marks |= 1 << 6
		case "tests":
			f.marks |= 1 << 7
		case "startedAt":
			f.marks |= 1 << 8
		case "artifactPaths":
			f.marks |= 1 << 9
		case "parentTaskId":
			f.marks |= 1 << 10
		case "dueBy":
			f.marks |= 1 << 11
		case "acceptanceCriteria":
			f.marks |= 1 << 12
		case "expectedOutputs":
			f.marks |= 1 << 13
		case "contextRefs":
			f.marks |= 1 << 14
		case "constraints":
			f.marks |= 1 << 15
		}
	}
	return f
}

func kindFromName(name string) string {
	base := filepath.Base(filepath.ToSlash(name))
	switch base {
	case "run.json":
		return KindRun
	case "run_heartbeat.json":
		return KindHeartbeat
	case "run_result.json":
		return KindRunResult
	case "handoff.json":
		if filepath.Base(filepath.Dir(name)) == "inputs" {
			return KindHandoffInput
		}
	}
	return ""
}

// shapes lists the members that mark each run artifact: a bit per member (membersOf),
// each kind the mask of its members' bits.
var shapes = []struct {
	kind string
	mask uint32
}{
	{KindHeartbeat, 0b111},             // lastHeartbeat, beatCount, expiresAt
	{KindRunResult, 0b11111 << 3},      // completedAt, outcome, summaryRef, handoffRef, tests
	{KindRun, 0b11 << 8},               // startedAt, artifactPaths
	{KindHandoffInput, 0b111111 << 10}, // parentTaskId, dueBy, acceptanceCriteria, expectedOutputs, contextRefs, constraints
}

// shapeKind recognises a run artifact by its members: the kind with the most
// marking members, with a taskId (or, without one, at least two marks). An
// object with a protocol, type or payload is an envelope, no artifact. A
// duplicate member counts once, and the last taskId counts, as Get finds them.
func (f *detectMembers) shapeKind() string {
	if f.marks == 0 || f.protocol != nil || f.typ != nil || f.payload != nil {
		return "" // no mark (most lines of a stream), or an envelope
	}
	best, bestN := "", 0
	for _, sh := range shapes {
		if n := bits.OnesCount32(f.marks & sh.mask); n > bestN {
			best, bestN = sh.kind, n
		}
	}
	if f.taskID.IsString() && strings.HasPrefix(f.taskID.Str, "TASK-") || f.agentID {
		return best // bestN ≥ 1: marks is not 0
	}
	if bestN >= 2 {
		return best
	}
	return ""
}

// upstreamDialect is the dialect of an envelope: DialectUpstream when it has
// the upstream's fields (read only for a message claimed).
func upstreamDialect(root *jsonread.Node) string {
	if hasUpstreamFields(root) {
		return DialectUpstream
	}
	return ""
}

func hasUpstreamFields(root *jsonread.Node) bool {
	return root.Get("projectId") != nil || root.Get("project_id") != nil || root.Get("taskRelpath") != nil
}

func schemaFile(kind string) string {
	switch kind {
	case "":
		return "aof/envelope.schema.json"
	case KindRun:
		return "aof/run.schema.json"
	case KindHeartbeat:
		return "aof/run_heartbeat.schema.json"
	case KindRunResult:
		return "aof/run_result.schema.json"
	case KindHandoffInput:
		return "aof/inputs_handoff.schema.json"
	}
	for i, e := range envelopeKinds {
		if e == kind {
			return envelopeSchemaFiles[i]
		}
	}
	return ""
}

// envelopeSchemaFiles are the schema files of envelopeKinds, made once (not a
// concatenation per message).
var envelopeSchemaFiles = func() []string {
	out := make([]string, len(envelopeKinds))
	for i, k := range envelopeKinds {
		out[i] = "aof/" + k + ".schema.json"
	}
	return out
}()

// ValidTaskID reports whether id matches the guide's TASK-YYYY-MM-DD-NNN
// (lint/spec/aof).
func ValidTaskID(id string) bool { return spec.ValidTaskID(id) }

// timeOf returns the time at n if it is an ISO 8601 date-time.
func timeOf(n *jsonread.Node) (time.Time, bool) {
	if !n.IsString() {
		return time.Time{}, false
	}
	t, _, ok := spec.ParseTime(n.Str)
	return t, ok
}

// payloadBase is the pointer to the payload of a message of kind: "/payload" for
// envelopes, "" for run artifacts (whose fields sit at the top level).
func payloadBase(kind string) string {
	if isEnvelope(kind) {
		return "/payload"
	}
	return ""
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = `"` + x + `"`
	}
	return strings.Join(q, ", ")
}

// Rules lists every rule of the package.
var Rules []*lint.Rule

func init() {
	lint.RegisterProtocol(Protocol)
	Rules = append(Rules, envRules...)
	Rules = append(Rules, timeRules...)
	Rules = append(Rules, dialectRules...)
	Rules = append(Rules, limitRules...)
	Rules = append(Rules, compRules...)
	Rules = append(Rules, statusRules...)
	Rules = append(Rules, handoffRules...)
	Rules = append(Rules, runRules...)
	Rules = append(Rules, seqRules...)
	Rules = append(Rules, dirRules...)
	Rules = append(Rules, SchemaRule)
	lint.Register(Rules...)
}
