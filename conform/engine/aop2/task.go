package aop2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	aop2lint "github.com/aopkit/aopkit/lint/aop2"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// Version header the engine writes (§1.1).
const (
	AOPVersion     = "2.0.2-C"
	SchemaVersion  = "2.0.2"
	ProtocolFamily = "AOP"
)

// priorities are the task priorities in rising order (a PRIORITY_ESCALATION
// raises along them); terminal are the states a final RESPONSE may have. The
// enums themselves are the schema's (schemaProblems).
var (
	priorities = []string{"LOW", "NORMAL", "HIGH", "CRITICAL"}
	terminal   = set("COMPLETED", "FAILED", "ABORTED", "SKIPPED")
)

func set(vs ...string) map[string]bool {
	m := map[string]bool{}
	for _, v := range vs {
		m[v] = true
	}
	return m
}

// Task is a TASK envelope as the engine reads it: the decoded message
// (lint/spec/aop2's wire struct, kept to re-dispatch it with a new target or
// attempt) and the view of its policy after §11's precedence.
type Task struct {
	msg  *aop2spec.Task
	Size int // bytes of the envelope as it goes on the wire (compact; aop2spec.CompactSize)

	SessionID    string
	TaskID       string
	ParentTaskID string
	AgentName    string
	Provider     string
	Model        string
	Priority     string

	Policy Policy
	// Outputs are the expected_outputs, one per item.
	Outputs   []Output
	Inputs    int
	Phases    []int // checkpoints per phase
	Objective int   // characters of task.objective

	// Network and Filesystem are the effective access of §11.2
	// (lint/spec/aop2).
	Network    string
	Filesystem aop2spec.Filesystem

	DelegationAllowed bool
	MaxCostUSD        *float64
	MaxTokens         *int64
}

// Output is one expected_outputs entry.
type Output struct {
	Path         string
	Snapshot     bool
	SnapshotPath string
	Strategy     string
}

// Policy is the effective execution policy after §11 precedence.
type Policy struct {
	Timeout              time.Duration // 0: none set (executor defaults)
	TimeoutFrom          string        // aop2spec.FromGuardRails, FromExecutionPolicy or ""
	AutoTerminate        bool
	MaxRetries           int
	Backoff              []time.Duration
	AbortOnCritical      bool
	OnFailure            string
	Alternatives         []Alternative
	Heartbeat            bool
	HeartbeatInterval    time.Duration
	MaxMissedBeats       int
	OnHeartbeatFailure   string
	RequireFinalSignal   bool
	RequireMinimalReport bool
}

// Alternative is one alternative_models entry (§9) as the engine dispatches it
// (aop2spec.Alternative with the trigger's default applied).
type Alternative struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Trigger  string `json:"fallback_trigger"`
}

// Problem is one schema or cross-field violation of a message.
type Problem struct {
	Rule    string // rule ID, such as AOP2-ENVELOPE-003
	Pointer string // JSON Pointer
	Message string
}

func (p Problem) String() string { return p.Pointer + ": " + p.Message }

// object is the member key of a decoded object when it is an object (nil
// otherwise).
func object(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

// checkHeader words AOP2-VERSION-002's finding on the version header of any
// aop2 message (§1.1); the schema's findings on it are schemaProblems'.
func checkHeader(h aop2spec.Header) []Problem {
	if v := h.AOPVersion; !strings.HasPrefix(v, "2.") {
		return []Problem{{"AOP2-VERSION-002", "/aop_version", fmt.Sprintf("aop_version %q must start with \"2.\"", v)}}
	}
	return nil
}

// schemaProblems are AOP2-SCHEMA-001's findings on raw, a message of kind
// (aop2lint.KindTask, KindResponse): the linter's schema rule (the schema file
// lint/aop2 names for the kind, validated by lint/schema as schema.Run
// does), not a copy of it. Required members, types and the v2.0.0 enums are
// judged there only.
func schemaProblems(raw []byte, kind string) []Problem {
	root, _, err := jsonread.Parse(raw)
	if err != nil || root == nil {
		return nil // the decoder has refused it
	}
	errs, err := schema.Validate(aop2lint.SchemaFile(kind), root)
	if err != nil {
		return []Problem{{"AOP2-SCHEMA-001", "", fmt.Sprintf("the schema of %s: %v", kind, err)}}
	}
	ps := make([]Problem, 0, len(errs))
	for _, e := range errs {
		ps = append(ps, Problem{"AOP2-SCHEMA-001", e.Pointer, e.Message})
	}
	return ps
}

// refused reports whether a problem of ps lies at or under the JSON Pointer ptr.
func refused(ps []Problem, ptr string) bool {
	for _, p := range ps {
		if p.Pointer == ptr || strings.HasPrefix(p.Pointer, ptr+"/") {
			return true
		}
	}
	return false
}

// checkExtensions reports keys without the x_ prefix in every extensions object
// (§3; lint/spec/aop2, as AOP2-EXT-001).
func checkExtensions(m *aop2spec.Envelope, ps *[]Problem) {
	m.BadExtensionKeys(func(ptr, key string) {
		*ps = append(*ps, Problem{"AOP2-EXT-001", ptr, fmt.Sprintf("extensions key %q must start with %q", key, aop2spec.ExtensionPrefix)})
	})
}

// ParseTask reads a TASK envelope (aop2spec.DecodeTask). It returns the
// problems aoplint finds in it (lintProblems: errors of the rules of one
// message, bar Exceptions; the limits are checkLimits'); a nil *Task means the
// input is no JSON object at all.
func ParseTask(data []byte) (*Task, []Problem, error) {
	m, err := aop2spec.DecodeTask(data)
	if err != nil {
		return nil, nil, err
	}
	t := &Task{msg: m, Size: aop2spec.CompactSize(data)}
	// What refuses the TASK is aoplint's (lintProblems); the hand problems
	// only word its findings.
	hand := checkHeader(m.Header)
	if mt := m.MessageType; mt != "TASK" {
		hand = append(hand, Problem{"AOP2-ENVELOPE-001", "/message_type", fmt.Sprintf("message_type %q must be \"TASK\"", mt)})
	}
	if m.Has("task_status") {
		hand = append(hand, Problem{"AOP2-ENVELOPE-003", "/task_status", "a TASK must not contain task_status"})
	}
	hand = append(hand, schemaProblems(data, aop2lint.KindTask)...)
	checkExtensions(&m.Envelope, &hand)
	ps := lintProblems(data, "TASK", as(hand))
	t.SessionID = m.Session.SessionID
	t.AgentName, t.Provider, t.Model = m.Target.AgentName, m.Target.Provider, m.Target.Model
	t.readTask(&m.Task, m.Phases)
	t.readPolicy(ps)
	t.readAccess(m.Target.Capabilities, m.Task.Access)
	return t, ps, nil
}

func (t *Task) readTask(task *aop2spec.TaskBody, phases []aop2spec.Phase) {
	t.TaskID, t.ParentTaskID = task.TaskID, task.ParentTaskID
	t.Objective = len([]rune(task.Objective))
	t.Priority = "NORMAL"
	if p := task.Priority; p != nil && indexOf(priorities, *p) >= 0 {
		t.Priority = *p
	}
	t.Inputs = len(task.Inputs)
	for _, o := range task.ExpectedOutputs {
		out := Output{Path: o.Path}
		if rs := o.RollbackSnapshot; rs != nil {
			out.Snapshot, out.SnapshotPath, out.Strategy = rs.Enabled, rs.SnapshotPath, rs.SnapshotStrategy
		}
		t.Outputs = append(t.Outputs, out)
	}
	t.DelegationAllowed = true
	if v := task.Constraints.DelegationAllowed; v != nil {
		t.DelegationAllowed = *v
	}
	// budgets are the more specific limit
	for _, l := range []aop2spec.Limits{task.Constraints, task.Budgets} {
		if l.MaxCostUSD != nil {
			t.MaxCostUSD = l.MaxCostUSD
		}
		if l.MaxTokens != nil {
			n := int64(*l.MaxTokens)
			t.MaxTokens = &n
		}
	}
	for _, p := range phases {
		t.Phases = append(t.Phases, len(p.Checkpoints))
	}
}

// readAccess applies §11.2: the effective filesystem and network access.
func (t *Task) readAccess(caps aop2spec.Capabilities, access aop2spec.Access) {
	t.Network = aop2spec.EffectiveNetwork(caps.NetworkAccess, access.Network)
	t.Filesystem = aop2spec.EffectiveFilesystem(caps.FileSystemAccess, aop2spec.Strings(access.Filesystem.ReadPaths), aop2spec.Strings(access.Filesystem.WritePaths))
}

// readPolicy applies §11: guard_rails override execution_policy. ps are the
// TASK's problems: what the schema refused is not taken.
func (t *Task) readPolicy(ps []Problem) {
	ep, gr := t.msg.ExecutionPolicy, t.msg.GuardRails
	if gr == nil {
		gr = &aop2spec.GuardRails{}
	}
	p := Policy{AutoTerminate: true, OnFailure: "REPORT_AND_CONTINUE", RequireFinalSignal: true,
		Backoff: []time.Duration{30 * time.Second, 120 * time.Second, 300 * time.Second}}
	p.Timeout, p.TimeoutFrom = aop2spec.EffectiveTimeout(gr.TimeoutSeconds, ep.TimeoutSeconds)
	p.HeartbeatInterval, p.MaxMissedBeats = aop2spec.Heartbeat(nil, nil)
	for _, b := range []*bool{ep.AutoTerminateOnTimeout, gr.AutoTerminateOnTimeout} {
		if b != nil {
			p.AutoTerminate = *b
		}
	}
	for _, b := range []*bool{ep.AbortOnFirstCriticalError, gr.AbortOnFirstCriticalError} {
		if b != nil {
			p.AbortOnCritical = *b
		}
	}
	if v := gr.RequireFinalSignal; v != nil {
		p.RequireFinalSignal = *v
	}
	if t.msg.GuardRails != nil {
		p.RequireMinimalReport = true // the guard_rails default (upstream schema)
	}
	if v := gr.RequireMinimalReport; v != nil {
		p.RequireMinimalReport = *v
	}
	if v := ep.MaxRetries; v != nil && *v >= 0 {
		p.MaxRetries = int(*v)
	}
	if bs := ep.RetryBackoffSeconds; len(bs) > 0 {
		p.Backoff = nil
		for _, b := range bs {
			if b != nil {
				p.Backoff = append(p.Backoff, aop2spec.Seconds(*b))
			}
		}
	}
	if v := ep.OnFailure; v != nil && !refused(ps, "/execution_policy/on_failure") {
		p.OnFailure = *v
	}
	for i, am := range ep.AlternativeModels {
		alt := Alternative{am.Provider, am.Model, am.FallbackTrigger}
		if alt.Trigger == "" {
			alt.Trigger = "ALL_ERRORS"
		}
		if refused(ps, "/execution_policy/alternative_models/"+strconv.Itoa(i)) {
			continue
		}
		p.Alternatives = append(p.Alternatives, alt)
	}
	if hb := ep.Heartbeat; hb != nil {
		p.Heartbeat = hb.Enabled
		p.HeartbeatInterval, p.MaxMissedBeats = aop2spec.Heartbeat(hb.IntervalSeconds, hb.MaxMissedBeats)
		if v := hb.OnHeartbeatFailure; v != nil && !refused(ps, "/execution_policy/heartbeat/on_heartbeat_failure") {
			p.OnHeartbeatFailure = *v
		}
	}
	t.Policy = p
}

func indexOf(list []string, v string) int {
	for i, s := range list {
		if s == v {
			return i
		}
	}
	return -1
}

// dispatch returns the TASK line for one attempt: the envelope with its target,
// attempt, priority and workspace set. Keys come out sorted, so the line is
// deterministic.
func (t *Task) dispatch(provider, model string, attempt int, priority, workspace string) []byte {
	m := t.msg.Value() // a new map
	if target := object(m, "target"); target != nil {
		target["provider"] = provider
		target["model"] = model
	}
	if task := object(m, "task"); task != nil {
		task["attempt"] = attempt
		task["priority"] = priority
		if workspace != "" {
			if env := object(task, "environment"); env != nil {
				env["workspace_root"] = workspace
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(m)
	return bytes.TrimRight(buf.Bytes(), "\n")
}
