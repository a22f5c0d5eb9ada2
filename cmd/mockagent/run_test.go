package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{"faults", []string{"faults"}, 0, "AOP2-SEQ-005 heartbeats", ""},
		{"faults as JSON", []string{"faults", "--format", "json"}, 0, `"fault": "stop-heartbeats"`, ""},
		{"version", []string{"--version"}, 0, "mockagent version ", ""},
		{"faults of one protocol", []string{"faults", "--protocol", "aop2"}, 0, "stop-heartbeats", ""},
		{"faults of an unknown protocol", []string{"faults", "--protocol", "nope"}, 2, "", `unknown protocol "nope"`},
		{"no protocol", nil, 2, "", "--protocol is required"},
		{"unknown protocol", []string{"--protocol", "nope"}, 2, "", `unknown protocol "nope"`},
		{"unknown fault", []string{"--protocol", "aop2", "--fault", "nope"}, 2, "", `has no fault "nope"`},
		{"unknown flag", []string{"--bogus"}, 2, "", "flag provided but not defined"},
		{"no task on stdin", []string{"--protocol", "aop2"}, 2, "", "no TASK on stdin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"mockagent"}, tc.args...), strings.NewReader(""), &out, &errb)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.out)
			}
			if !strings.Contains(errb.String(), tc.err) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.err)
			}
		})
	}
}

func TestFaultsSorted(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"mockagent", "faults", "--format", "json"}, strings.NewReader(""), &out, &bytes.Buffer{}); code != 0 {
		t.Fatal(code)
	}
	var list []struct{ Protocol, Fault, Rule string }
	if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list) == 0 {
		t.Fatalf("%v: %s", err, out.String())
	}
	for i := 1; i < len(list); i++ {
		a, b := list[i-1], list[i]
		if a.Protocol > b.Protocol || a.Protocol == b.Protocol && a.Fault >= b.Fault {
			t.Errorf("not sorted: %s %s before %s %s", a.Protocol, a.Fault, b.Protocol, b.Fault)
		}
	}
	for _, f := range list {
		if f.Protocol == "" || f.Fault == "" || f.Rule == "" {
			t.Errorf("incomplete fault %+v", f)
		}
	}
}

func TestAgentRuns(t *testing.T) {
	task := `{"aop_version":"2.0.2-C","schema_version":"2.0.2","protocol_family":"AOP","message_type":"TASK","session":{"session_id":"S"},"target":{"provider":"CODEX","model":"m"},"task":{"task_id":"T","objective":"o","category":"OTHER","complexity":"LOW","environment":{"workspace_root":"."},"extensions":{"x_mockagent":{"work_seconds":0.01}}}}` + "\n"
	// stdin stays open: EOF would tell the agent that the orchestrator is gone.
	r, w := io.Pipe()
	go w.Write([]byte(task))
	defer w.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"mockagent", "--protocol", "aop2"}, r, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"message_type":"RESPONSE"`) {
		t.Errorf("no RESPONSE in %s", out.String())
	}
	// A host's own arguments after "--" (forge: --print --output-format=json
	// PROMPT) are accepted, not a usage error: the orchestrator side's agent
	// command passes whatever the orchestrator gives it.
	r2, w2 := io.Pipe()
	go w2.Write([]byte(task))
	defer w2.Close()
	out.Reset()
	if code := run([]string{"mockagent", "--protocol", "aop2", "--", "--print", "--output-format=json", "Do the task"}, r2, &out, &errb); code != 0 {
		t.Fatalf("host arguments: exit %d: %s", code, errb.String())
	}
	// EOF right after the TASK: the agent stops without answering.
	out.Reset()
	if code := run([]string{"mockagent", "--protocol", "aop2"}, strings.NewReader(task), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), `"message_type":"RESPONSE"`) {
		t.Errorf("the agent answered after EOF on stdin: %s", out.String())
	}
}
