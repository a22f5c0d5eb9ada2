package main

import (
	"bytes"
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
		{"faults", []string{"faults"}, 0, "aop2 hang  AOP2-SEQ-005", ""},
		{"faults of one protocol", []string{"faults", "--protocol", "aop2"}, 0, "aop2 stop-heartbeats", ""},
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
	if code := run([]string{"mockagent", "faults"}, strings.NewReader(""), &out, &bytes.Buffer{}); code != 0 {
		t.Fatal(code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i-1] >= lines[i] {
			t.Errorf("not sorted: %q before %q", lines[i-1], lines[i])
		}
	}
	for _, l := range lines {
		if f := strings.SplitN(l, "  ", 2); len(f) != 2 || len(strings.Fields(f[0])) != 2 {
			t.Errorf("line %q is not `<protocol> <fault>  <rule>`", l)
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
	// EOF right after the TASK: the agent stops without answering.
	out.Reset()
	if code := run([]string{"mockagent", "--protocol", "aop2"}, strings.NewReader(task), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), `"message_type":"RESPONSE"`) {
		t.Errorf("the agent answered after EOF on stdin: %s", out.String())
	}
}
