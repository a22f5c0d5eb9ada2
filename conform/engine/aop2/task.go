package aop2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform/engine/jsonval"
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

// Task is a TASK envelope as the engine reads it: the raw object (kept to
// re-dispatch it with a new target or attempt) and the typed view of its policy.
type Task struct {
	raw  map[string]any
	Size int // bytes of the envelope as it goes on the wire (compact; aop2spec.CompactSize)

	SessionID    string
	TaskID       string
	ParentTaskID string
	AgentName    string
	Provider     string
	Model        string
	Priority     string

	Policy Policy
	// Outputs are the expected_outputs with a path.
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

// Alternative is one alternative_models entry (§9).
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

// decodeObject decodes one JSON object keeping numbers exact.
func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a message must be a JSON object, not %T", v)
	}
	return m, nil
}

// object, str, num and boolean read a path in a decoded object.
func object(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func str(m map[string]any, key string) (string, bool) {
	v, ok := m[key].(string)
	return v, ok
}

func num(m map[string]any, key string) (float64, bool) {
	switch v := m[key].(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	}
	return 0, false
}

// numPtr is a number as lint/spec/aop2 takes it (nil: absent or not a number).
func numPtr(m map[string]any, key string) *float64 {
	if v, ok := num(m, key); ok {
		return &v
	}
	return nil
}

func boolean(m map[string]any, key string) (bool, bool) {
	v, ok := m[key].(bool)
	return v, ok
}

// checkHeader checks the version header of any aop2 message (§1.1): the
// schema's findings on it are schemaProblems'.
func checkHeader(m map[string]any) []Problem {
	if v, ok := str(m, "aop_version"); !ok || !strings.HasPrefix(v, "2.") {
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
		return nil // decodeObject has refused it
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
func checkExtensions(v any, ps *[]Problem) {
	aop2spec.BadExtensionKeys(v, func(ptr, key string) {
		*ps = append(*ps, Problem{"AOP2-EXT-001", ptr, fmt.Sprintf("extensions key %q must start with %q", key, aop2spec.ExtensionPrefix)})
	})
}

// ParseTask reads a TASK envelope. It returns the schema and cross-field problems
// (§1.2, §2) it found; a nil *Task means the input is no JSON object at all.
func ParseTask(data []byte) (*Task, []Problem, error) {
	m, err := decodeObject(data)
	if err != nil {
		return nil, nil, err
	}
	t := &Task{raw: m, Size: aop2spec.CompactSize(data)}
	ps := checkHeader(m)
	if mt, _ := str(m, "message_type"); mt != "TASK" {
		ps = append(ps, Problem{"AOP2-ENVELOPE-001", "/message_type", fmt.Sprintf("message_type %q must be \"TASK\"", mt)})
	}
	if _, ok := m["task_status"]; ok {
		ps = append(ps, Problem{"AOP2-ENVELOPE-003", "/task_status", "a TASK must not contain task_status"})
	}
	ps = append(ps, schemaProblems(data, aop2lint.KindTask)...)
	session, target, task := object(m, "session"), object(m, "target"), object(m, "task")
	t.SessionID, _ = str(session, "session_id")
	t.AgentName, _ = str(target, "agent_name")
	t.Provider, _ = str(target, "provider")
	t.Model, _ = str(target, "model")
	t.readTask(task)
	t.readPolicy(ps)
	t.readAccess(target, task)
	checkExtensions(m, &ps)
	return t, ps, nil
}

func (t *Task) readTask(task map[string]any) {
	t.TaskID, _ = str(task, "task_id")
	t.ParentTaskID, _ = str(task, "parent_task_id")
	obj, _ := str(task, "objective")
	t.Objective = len([]rune(obj))
	t.Priority = "NORMAL"
	if p, ok := str(task, "priority"); ok && indexOf(priorities, p) >= 0 {
		t.Priority = p
	}
	if in, ok := task["inputs"].([]any); ok {
		t.Inputs = len(in)
	}
	if outs, ok := task["expected_outputs"].([]any); ok {
		for _, o := range outs {
			om, _ := o.(map[string]any)
			if om == nil {
				continue
			}
			out := Output{}
			out.Path, _ = str(om, "path")
			if rs := object(om, "rollback_snapshot"); rs != nil {
				out.Snapshot, _ = boolean(rs, "enabled")
				out.SnapshotPath, _ = str(rs, "snapshot_path")
				out.Strategy, _ = str(rs, "snapshot_strategy")
			}
			t.Outputs = append(t.Outputs, out)
		}
		if len(outs) > len(t.Outputs) {
			t.Outputs = append(t.Outputs, make([]Output, len(outs)-len(t.Outputs))...)
		}
	}
	t.DelegationAllowed = true
	if c := object(task, "constraints"); c != nil {
		if v, ok := boolean(c, "delegation_allowed"); ok {
			t.DelegationAllowed = v
		}
		if v, ok := num(c, "max_cost_usd"); ok {
			t.MaxCostUSD = &v
		}
		if v, ok := num(c, "max_tokens"); ok {
			n := int64(v)
			t.MaxTokens = &n
		}
	}
	if b := object(task, "budgets"); b != nil { // budgets are the more specific limit
		if v, ok := num(b, "max_cost_usd"); ok {
			t.MaxCostUSD = &v
		}
		if v, ok := num(b, "max_tokens"); ok {
			n := int64(v)
			t.MaxTokens = &n
		}
	}
	if phases, ok := t.raw["phases"].([]any); ok {
		for _, p := range phases {
			pm, _ := p.(map[string]any)
			cps, _ := pm["checkpoints"].([]any)
			t.Phases = append(t.Phases, len(cps))
		}
	}
}

// readAccess applies §11.2: the effective filesystem and network access.
func (t *Task) readAccess(target, task map[string]any) {
	caps, access := object(target, "capabilities"), object(task, "access")
	var capable *bool
	if v, ok := boolean(caps, "file_system_access"); ok {
		capable = &v
	}
	fs := object(access, "filesystem")
	capNet, _ := str(caps, "network_access")
	taskNet, _ := str(access, "network")
	t.Network = aop2spec.EffectiveNetwork(capNet, taskNet)
	t.Filesystem = aop2spec.EffectiveFilesystem(capable, stringList(fs, "read_paths"), stringList(fs, "write_paths"))
}

// stringList reads an array of strings (nil when absent).
func stringList(m map[string]any, key string) []string {
	arr, ok := m[key].([]any)
	if !ok {
		return nil
	}
	out := []string{}
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// readPolicy applies §11: guard_rails override execution_policy. ps are the
// TASK's problems: what the schema refused is not taken.
func (t *Task) readPolicy(ps []Problem) {
	ep, gr := object(t.raw, "execution_policy"), object(t.raw, "guard_rails")
	p := Policy{AutoTerminate: true, OnFailure: "REPORT_AND_CONTINUE", RequireFinalSignal: true,
		Backoff: []time.Duration{30 * time.Second, 120 * time.Second, 300 * time.Second}}
	p.Timeout, p.TimeoutFrom = aop2spec.EffectiveTimeout(numPtr(gr, "timeout_seconds"), numPtr(ep, "timeout_seconds"))
	p.HeartbeatInterval, p.MaxMissedBeats = aop2spec.Heartbeat(nil, nil)
	if v, ok := boolean(ep, "auto_terminate_on_timeout"); ok {
		p.AutoTerminate = v
	}
	if v, ok := boolean(gr, "auto_terminate_on_timeout"); ok {
		p.AutoTerminate = v
	}
	if v, ok := boolean(ep, "abort_on_first_critical_error"); ok {
		p.AbortOnCritical = v
	}
	if v, ok := boolean(gr, "abort_on_first_critical_error"); ok {
		p.AbortOnCritical = v
	}
	if v, ok := boolean(gr, "require_final_signal"); ok {
		p.RequireFinalSignal = v
	}
	if gr != nil {
		p.RequireMinimalReport = true // the guard_rails default (upstream schema)
	}
	if v, ok := boolean(gr, "require_minimal_report"); ok {
		p.RequireMinimalReport = v
	}
	if v, ok := num(ep, "max_retries"); ok && v >= 0 {
		p.MaxRetries = int(v)
	}
	if bs, ok := ep["retry_backoff_seconds"].([]any); ok && len(bs) > 0 {
		p.Backoff = nil
		for _, b := range bs {
			if n, ok := b.(json.Number); ok {
				f, _ := n.Float64()
				p.Backoff = append(p.Backoff, aop2spec.Seconds(f))
			}
		}
	}
	if v, ok := str(ep, "on_failure"); ok && !refused(ps, "/execution_policy/on_failure") {
		p.OnFailure = v
	}
	if alts, ok := ep["alternative_models"].([]any); ok {
		for i, a := range alts {
			am, _ := a.(map[string]any)
			alt := Alternative{}
			alt.Provider, _ = str(am, "provider")
			alt.Model, _ = str(am, "model")
			alt.Trigger, _ = str(am, "fallback_trigger")
			if alt.Trigger == "" {
				alt.Trigger = "ALL_ERRORS"
			}
			if refused(ps, "/execution_policy/alternative_models/"+strconv.Itoa(i)) {
				continue
			}
			p.Alternatives = append(p.Alternatives, alt)
		}
	}
	if hb := object(ep, "heartbeat"); hb != nil {
		p.Heartbeat, _ = boolean(hb, "enabled")
		p.HeartbeatInterval, p.MaxMissedBeats = aop2spec.Heartbeat(numPtr(hb, "interval_seconds"), numPtr(hb, "max_missed_beats"))
		if v, ok := str(hb, "on_heartbeat_failure"); ok && !refused(ps, "/execution_policy/heartbeat/on_heartbeat_failure") {
			p.OnHeartbeatFailure = v
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
	m := jsonval.Map(t.raw, jsonval.Same).(map[string]any)
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
