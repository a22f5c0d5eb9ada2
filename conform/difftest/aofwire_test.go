package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// aofShapeRules are the rules that judge an AOF/1 envelope's shape: which
// members it has, of which types, and the envelope fields' values. Their
// errors are what spec.DecodeEnvelope's typed members must agree with.
var aofShapeRules = []string{"AOF-SCHEMA-001", "AOF-ENV-001", "AOF-ENV-002", "AOF-ENV-003", "AOF-ENV-004", "AOF-TIME-001", "AOF-STATUS-002", "AOF-HANDOFF-001", "GEN-JSON-001"}

// aofShapeWarnings are the rules of aofShapeRules whose warnings count too:
// AOF-STATUS-002 warns of a status of the upstream implementation only
// (cancelled, deadletter), which the schema's TaskStatus leaves out.
var aofShapeWarnings = []string{"AOF-STATUS-002"}

// aofMessages are the AOF/1 messages of the repository's corpora: every
// file of fixtures/aof (a message, or a transcript of one a line, "AOF/1 "
// prefixed or not) and the reference engine's transcripts of
// fixtures/reference/aof, data directories left out. Each is the JSON after
// the prefix, named by file and line.
func aofMessages(t testing.TB) (names []string, msgs [][]byte) {
	root := filepath.Join("..", "..", "fixtures")
	for _, dir := range []string{"aof/valid", "aof/invalid", "reference/aof"} {
		files, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.IsDir() || strings.HasSuffix(f.Name(), ".golden") || strings.HasSuffix(f.Name(), ".md") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(f.Name(), ".json") {
				names, msgs = append(names, dir+"/"+f.Name()), append(msgs, data)
				continue
			}
			for i, line := range strings.Split(string(data), "\n") {
				if dir == "reference/aof" {
					line = transcriptMessage(line)
				}
				if body, prefixed := spec.TrimPrefix(line); prefixed || strings.HasPrefix(body, "{") {
					names, msgs = append(names, fmt.Sprintf("%s/%s:%d", dir, f.Name(), i+1)), append(msgs, []byte(body))
				}
			}
		}
	}
	if len(msgs) < 100 {
		t.Fatalf("only %d messages in the corpora", len(msgs))
	}
	return names, msgs
}

// transcriptMessage is the message of one transcript/1 record: its text, or
// its msg ("" for a record of neither, or no record).
func transcriptMessage(line string) string {
	var r struct {
		Text *string         `json:"text"`
		Msg  json.RawMessage `json:"msg"`
	}
	switch {
	case json.Unmarshal([]byte(line), &r) != nil:
		return ""
	case r.Text != nil:
		return *r.Text
	}
	return string(r.Msg)
}

// typedShapeProblems are the pointers at which env's typed members break the
// envelope's and its payload's shape (aof-1 §Envelope Fields and the payload
// sections; schemas/aof): a required member absent, a member of the wrong
// type, an envelope field's value out of its set.
func typedShapeProblems(env *spec.Envelope) []string {
	var ps []string
	bad := func(ptr string, ok bool) {
		if !ok {
			ps = append(ps, ptr)
		}
	}
	str := func(ptr string, m spec.Member[string], required bool) { bad(ptr, m.OK || !required && !m.Has()) }
	id := func(ptr string, m spec.Member[string]) { bad(ptr, m.OK && spec.ValidTaskID(m.V)) }
	date := func(ptr string, m spec.Member[string]) {
		_, _, ok := spec.ParseTime(m.V)
		bad(ptr, m.OK && ok)
	}
	list := func(ptr string, m spec.Member[[]spec.Member[string]]) {
		bad(ptr, !m.Has() || m.OK)
		for i, it := range m.V {
			bad(fmt.Sprintf("%s/%d", ptr, i), it.OK)
		}
	}
	count := func(ptr string, m spec.Member[json.Number]) {
		n, err := m.V.Int64()
		bad(ptr, m.OK && err == nil && n >= 0)
	}
	v, err := env.Version.V.Float64()
	bad("/protocol", env.Protocol.V == "aof")
	bad("/version", env.Version.OK && err == nil && v == 1)
	bad("/type", env.Type.OK && spec.KnownType(env.Type.V))
	id("/taskId", env.TaskID)
	str("/fromAgent", env.FromAgent, true)
	str("/toAgent", env.ToAgent, true)
	date("/sentAt", env.SentAt)
	bad("/payload", env.Payload.OK)
	if c := env.Completion; c != nil {
		bad("/payload/outcome", c.Outcome.OK && spec.ValidOutcome(c.Outcome.V))
		str("/payload/summaryRef", c.SummaryRef, true)
		list("/payload/deliverables", c.Deliverables)
		bad("/payload/tests", c.Tests.OK)
		if c.Tests.OK {
			count("/payload/tests/total", c.Tests.V.Total)
			count("/payload/tests/passed", c.Tests.V.Passed)
			count("/payload/tests/failed", c.Tests.V.Failed)
		}
		list("/payload/blockers", c.Blockers)
		str("/payload/notes", c.Notes, true)
	}
	if s := env.Status; s != nil {
		id("/payload/taskId", s.TaskID)
		str("/payload/agentId", s.AgentID, true)
		// The schema's TaskStatus: the lifecycle's statuses but cancelled,
		// which only the upstream store sets (a status.update may not ask
		// for it).
		bad("/payload/status", !s.Status.Has() || s.Status.OK && spec.IsStatus(s.Status.V) && s.Status.V != spec.Cancelled)
		str("/payload/progress", s.Progress, false)
		list("/payload/blockers", s.Blockers)
		str("/payload/notes", s.Notes, false)
	}
	if h := env.Handoff; h != nil {
		id("/payload/taskId", h.TaskID)
		id("/payload/parentTaskId", h.ParentTaskID)
		str("/payload/fromAgent", h.FromAgent, true)
		str("/payload/toAgent", h.ToAgent, true)
		list("/payload/acceptanceCriteria", h.AcceptanceCriteria)
		list("/payload/expectedOutputs", h.ExpectedOutputs)
		list("/payload/contextRefs", h.ContextRefs)
		list("/payload/constraints", h.Constraints)
		date("/payload/dueBy", h.DueBy)
	}
	if a := env.Ack; a != nil {
		id("/payload/taskId", a.TaskID)
		// true in handoff.accepted, false in handoff.rejected (§Handoff
		// Acceptance/Rejection).
		bad("/payload/accepted", a.Accepted.OK && a.Accepted.V == (env.Type.V == spec.TypeHandoffAccepted))
		str("/payload/reason", a.Reason, false)
	}
	return ps
}

// related reports whether one JSON Pointer is the other or lies under it (the
// schema reports a missing member at its object).
func related(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/") || a == "" || b == ""
}

// TestAOFWireAgreesWithLint: on every AOF/1 message of the corpora,
// spec.DecodeEnvelope and aoplint agree. A message decodes without error
// exactly when aoplint finds it JSON (no GEN-JSON-001); and the pointers at
// which the typed members break the envelope's shape are the pointers of
// aoplint's errors of aofShapeRules, each near one of the other's (the same
// member, or the object holding it).
func TestAOFWireAgreesWithLint(t *testing.T) {
	names, msgs := aofMessages(t)
	envelopes := 0
	for i, msg := range msgs {
		env, err := spec.DecodeEnvelope(bytes.TrimSpace(msg))
		var linted []string
		badJSON := false
		for _, d := range linter.LintBytes("message.json", msg, linter.Options{Protocol: "aof"}).Diagnostics {
			if slices.Contains(aofShapeRules, d.Rule) && (d.Severity == lint.Error || slices.Contains(aofShapeWarnings, d.Rule)) {
				linted = append(linted, d.Pointer)
				badJSON = badJSON || d.Rule == "GEN-JSON-001"
			}
		}
		if (err != nil) != badJSON {
			t.Errorf("%s: DecodeEnvelope error %v, aoplint's shape errors at %q", names[i], err, linted)
			continue
		}
		if err != nil || env.Protocol.V != "aof" || !env.Type.Has() && !env.Payload.Has() {
			continue // no envelope: a run artifact, a log line
		}
		envelopes++
		typed := typedShapeProblems(env)
		for _, p := range typed {
			if !slices.ContainsFunc(linted, func(q string) bool { return related(p, q) }) {
				t.Errorf("%s: the typed envelope breaks the shape at %s, aoplint finds no error there (its errors: %q)", names[i], p, linted)
			}
		}
		for _, q := range linted {
			if !slices.ContainsFunc(typed, func(p string) bool { return related(p, q) }) {
				t.Errorf("%s: aoplint finds an error at %q, the typed envelope breaks the shape nowhere near (at %q)", names[i], q, typed)
			}
		}
	}
	if envelopes < 50 {
		t.Errorf("only %d envelopes compared", envelopes)
	}
	t.Logf("%d messages, %d envelopes compared", len(msgs), envelopes)
}
