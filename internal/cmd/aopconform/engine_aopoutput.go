package aopconformcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	engaopoutput "github.com/aopkit/aopkit/conform/engine/aopoutput"
	"github.com/aopkit/aopkit/conform/harness"
)

// The aop-output parts of `aopconform engine` (docs/bindings.md "Orchestrators",
// aop-output): the agent runs in the task's workspace, and the parent prints what
// it took of the report as one line on stdout (engaopoutput.Line).

// engineScratch is the agent's directory for `aopconform engine`: for aop-output
// the task's "workspace" (relative to cwd; created when missing), else cwd.
func engineScratch(protocol string, task []byte, cwd string) (string, error) {
	if protocol != "aop-output" {
		return cwd, nil
	}
	var t struct {
		Workspace string `json:"workspace"`
	}
	if err := json.Unmarshal(task, &t); err != nil {
		return "", fmt.Errorf("the task must be one JSON object {\"task\":...,\"task_type\":...,\"workspace\":...}: %v", err)
	}
	if t.Workspace == "" {
		return cwd, nil
	}
	ws := t.Workspace
	if !filepath.IsAbs(ws) {
		ws = filepath.Join(cwd, ws)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return "", fmt.Errorf("workspace: %v", err)
	}
	return ws, nil
}

// engineOutput prints what the engine decided on stdout, for protocols whose
// binding has the parent say it there (aop-output: the Line of the report taken).
func engineOutput(protocol string, h *harness.H, stdout io.Writer) error {
	if protocol != "aop-output" {
		return nil
	}
	t, ok := h.Session().Facts["aopoutput.taken"].(engaopoutput.Taken)
	if !ok {
		return nil // the agent never ran
	}
	var d *engaopoutput.Details
	if v, ok := h.Session().Facts["aopoutput.details"].(engaopoutput.Details); ok {
		d = &v
	}
	b, err := json.Marshal(engaopoutput.NewLine(t, d))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}
