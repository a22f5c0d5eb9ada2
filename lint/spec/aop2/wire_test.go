package aop2

import "testing"

// fullTask has the members of the §2.2 full envelope the typed view reads
// (fixtures/aop2/valid/spec_2.2_full_task.json has them all; conform/difftest
// reads it).
const fullTask = `{"aop_version":"2.0.2-C","protocol_family":"AOP","message_type":"TASK",
 "session":{"session_id":"AOP-SESSION-2026-02-26-001","extensions":{"x_org_policy":"strict"}},
 "target":{"agent_name":"Emma","provider":"CODEX","model":"gpt-5.3-codex","capabilities":{"file_system_access":true}},
 "task":{"task_id":"TASK-001","parent_task_id":null,"attempt":1,"constraints":{"delegation_allowed":false,"max_cost_usd":0.50}},
 "execution_policy":{"alternative_models":[{"provider":"GEMINI","model":"gemini-2.5-pro","fallback_trigger":"TIMEOUT"},{"provider":"CLAUDE","model":"claude-opus-4-6"}],
  "heartbeat":{"enabled":true,"interval_seconds":120}},
 "guard_rails":{"require_minimal_report":true},
 "phases":[{"phase_id":"A","checkpoints":[{"checkpoint_id":"CP-1"}]},{"phase_id":"B"}]}`

func TestDecode(t *testing.T) {
	task, err := DecodeTask([]byte(fullTask))
	if err != nil {
		t.Fatal(err)
	}
	if task.MessageType != "TASK" || task.Session.SessionID == "" || task.Task.TaskID != "TASK-001" || task.GuardRails == nil ||
		task.ExecutionPolicy.Heartbeat == nil || !task.ExecutionPolicy.Heartbeat.Enabled || len(task.ExecutionPolicy.AlternativeModels) != 2 ||
		task.Task.Constraints.DelegationAllowed == nil || *task.Task.Constraints.DelegationAllowed || len(task.Phases) != 2 || task.Has("task_status") {
		t.Errorf("the §2.2 TASK: %+v", task)
	}
	if task.Task.ParentTaskID != "" || *task.Task.Attempt != 1 || *task.Task.Constraints.MaxCostUSD != 0.5 || !*task.Target.Capabilities.FileSystemAccess {
		t.Errorf("the §2.2 TASK's task: %+v", task.Task)
	}
	bad := 0
	task.BadExtensionKeys(func(string, string) { bad++ })
	if bad != 0 {
		t.Errorf("%d bad extensions keys in the §2.2 TASK", bad)
	}
	r, err := DecodeResponse([]byte(`{"aop_version":"2.0.2-C","message_type":"RESPONSE","agent":"x","task_status":{"state":"COMPLETED","final_signal":1},"extensions":{"debug":1},"cost_tracking":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if !r.HasValue("agent") || r.Agent != nil || r.TaskStatus == nil || r.TaskStatus.Signal() != "" || r.HasValue("cost_tracking") || !r.Has("cost_tracking") || r.CostTracking != nil || r.HasString("task_id") {
		t.Errorf("RESPONSE: %+v", r)
	}
	r.BadExtensionKeys(func(p, k string) {
		if p != "/extensions/debug" || k != "debug" {
			t.Errorf("bad key %s %s", p, k)
		}
		bad++
	})
	if bad != 1 {
		t.Error("the bad extensions key is not reported")
	}
}

// FuzzDecode: the decoders never panic, and a line they accept is read the same
// by each view.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"aop_version":"2.0.2-C","message_type":"TASK","task":{"task_id":"T","attempt":2},"execution_policy":{"retry_backoff_seconds":[1,"x"]}}`,
		`{"message_type":"RESPONSE","task_status":{"state":"FAILED"},"execution_summary":{"actions":[1,null]},"extensions":{"a":{"extensions":{"b":1}}}}`,
		`{"message_type":"EVENT","protocol_family":"AOP","event":"HEARTBEAT","timestamp":5}`, `[1]`, "{\"a\":\"\xff\"}", `{"task":{"access":{"filesystem":{"read_paths":["/a",2]}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		h, err := DecodeHeader(line)
		if err != nil {
			return
		}
		task, resp, ev := h.AsTask(), h.AsResponse(), h.AsEvent()
		for _, v := range []Header{task.Header, resp.Header, ev.Header} {
			if v.AOPVersion != h.AOPVersion || v.MessageType != h.MessageType || (v.ProtocolFamily == nil) != (h.ProtocolFamily == nil) ||
				(v.ProtocolFamily != nil && *v.ProtocolFamily != *h.ProtocolFamily) {
				t.Errorf("a view reads another header: %+v, not %+v", v, h.Header)
			}
		}
		h.BadExtensionKeys(func(string, string) {})
		_ = Strings(task.Task.Access.Filesystem.ReadPaths)
		_ = resp.TaskStatus.Signal()
		_ = h.Value()
	})
}
