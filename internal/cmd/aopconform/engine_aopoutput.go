package aopconformcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/aopkit/aopkit/conform"
	engaopoutput "github.com/aopkit/aopkit/conform/engine/aopoutput"
	"github.com/aopkit/aopkit/conform/harness"
)

// The aop-output parts of `aopconform engine` (docs/bindings.md "Orchestrators",
// aop-output): the agent runs in the task's workspace, and the parent prints what
// it took of the report as one line on stdout (engaopoutput.Line).

// engineTask is the agent's directory and the task the engine drives, for
// `aopconform engine`: for aop-output a task file {"input": TASK-LINE,
// "workspace": DIR} gives the task line to send and the agent's workspace
// (relative to cwd; created when missing); a bare task line runs in cwd. Other
// protocols run their task in cwd.
func engineTask(protocol string, task []byte, cwd string) (scratch string, line []byte, err error) {
	if protocol != "aop-output" {
		return cwd, task, nil
	}
	var t struct {
		Input     json.RawMessage `json:"input"`
		Workspace string          `json:"workspace"`
	}
	if err := json.Unmarshal(task, &t); err != nil {
		return "", nil, fmt.Errorf("the task must be one JSON object, {\"input\":{\"task\":...,\"task_type\":...},\"workspace\":...} or the task line itself: %v", err)
	}
	if t.Input == nil {
		return cwd, task, nil
	}
	ws := t.Workspace
	if ws == "" {
		ws = cwd
	} else if !filepath.IsAbs(ws) {
		ws = filepath.Join(cwd, ws)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return "", nil, fmt.Errorf("workspace: %v", err)
	}
	return ws, t.Input, nil
}

// engineOutput prints what the engine decided on stdout, for protocols whose
// binding has the parent say it there (aop-output: the Line of the report taken).
func engineOutput(protocol string, h *harness.H, stdout io.Writer) error {
	if protocol != "aop-output" {
		return nil
	}
	t, ok := harness.FactOf(h, conform.FactAOPOutputTaken)
	if !ok {
		return nil // the agent never ran
	}
	var d *engaopoutput.Details
	if v, ok := harness.FactOf(h, conform.FactAOPOutputDetails); ok {
		d = &v
	}
	b, err := json.Marshal(engaopoutput.NewLine(t, d))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}
