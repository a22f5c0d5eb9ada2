// Package reportagent is an example agent of the aop-output protocol: it reads one
// task line, writes the details of its work to outputs/details.json and prints the
// [AOP:START] … [AOP:END] report.
package reportagent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Run does one task: the task line comes from stdin, the report goes to stdout and
// the details file into dir/outputs. The work takes the time work says (an agent's
// real work would); cancelling ctx (SIGTERM) cuts it short.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, dir string, now func() time.Time, work time.Duration) error {
	task, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && task == "" {
		return fmt.Errorf("no task on stdin: %w", err)
	}
	began := now()
	select {
	case <-time.After(work):
	case <-ctx.Done():
		return ctx.Err()
	}
	start := began.UTC().Format(time.RFC3339)
	details := map[string]any{
		"aop_version": "1.0.0", "agent_id": "reportagent", "task": "count the task's words",
		"timestamp": start, "duration_ms": now().Sub(began).Milliseconds(),
		"results":  map[string]any{"words": len(fieldsOf(task))},
		"metadata": map[string]any{"agent_version": "1.0.0"},
	}
	if err := os.MkdirAll(filepath.Join(dir, "outputs"), 0o755); err != nil {
		return err
	}
	data, _ := json.Marshal(details)
	if err := os.WriteFile(filepath.Join(dir, "outputs", "details.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "[AOP:START] %s\n[AOP:TASK] Count the words of the task\n\n[AOP:SUMMARY]\n- Task read\n- %d words counted\n\n[AOP:DETAILS_FILE] outputs/details.json\n[AOP:STATUS] success\n[AOP:END] %s\n",
		start, len(fieldsOf(task)), now().UTC().Format(time.RFC3339))
	return err
}

func fieldsOf(s string) []string {
	var out []string
	word := ""
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			if word != "" {
				out = append(out, word)
			}
			word = ""
			continue
		}
		word += string(r)
	}
	if word != "" {
		out = append(out, word)
	}
	return out
}
