package orchmsg

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/orchmsg"
)

var update = flag.Bool("update", false, "rewrite the reference transcripts in fixtures/reference/orchmsg")

const referenceDir = "../../../fixtures/reference/orchmsg"

// baseTask is the engine tests' scenario task: agent-under-test (a worker) gets
// task-1, a 12 s job; two peers; a task of agent-2 that the agent may not read.
func baseTask() map[string]any {
	return map[string]any{
		"taskId":  "task-1",
		"message": "Task assigned. Use TaskGet to view details.",
		"task": map[string]any{
			"id": "task-1", "type": "implementation", "name": "Implement feature", "description": "Write the greeting module.",
			"status": "running", "requiredRole": "worker", "priority": 2, "dependencies": []any{},
			"payload": map[string]any{"mockagent": map[string]any{"work_seconds": 12}},
		},
		"orchestrator": map[string]any{
			"capabilities": []any{"go", "testing"},
			"agents": []any{
				map[string]any{"id": "agent-2", "role": "worker", "status": "busy", "capabilities": []any{"typescript"}, "currentTask": "task-other"},
				map[string]any{"id": "agent-3", "role": "reviewer", "status": "idle", "capabilities": []any{"review"}, "currentTask": nil},
			},
			"tasks": []any{
				map[string]any{"id": "task-other", "name": "Someone else's task", "status": "running", "requiredRole": "worker", "assignedTo": "agent-2", "dependencies": []any{}},
			},
		},
	}
}

// tweak changes the scenario task.
type tweak func(task map[string]any)

// work scripts the mock agent (task.payload.mockagent).
func work(p map[string]any) tweak {
	return func(task map[string]any) {
		task["task"].(map[string]any)["payload"] = map[string]any{"mockagent": p}
	}
}

// world sets a member of the orchestrator's world.
func world(k string, v any) tweak {
	return func(task map[string]any) { task["orchestrator"].(map[string]any)[k] = v }
}

func step(on string, after time.Duration, do string) conform.Step {
	return conform.Step{On: on, After: conform.Duration(after), Do: do}
}

// run is one scenario played by Drive.
type run struct {
	sess       *conform.Session
	transcript []byte // scratch path replaced by ${SCRATCH}
	err        error
}

// play runs Drive against agent (with its fault) inside a synctest bubble: time
// is virtual and starts at 2000-01-01 in every bubble, so transcripts repeat.
func play(t *testing.T, sc *conform.Scenario, agent *mockagent.Agent, fault, engineFault string) run {
	t.Helper()
	p := enginetest.PlayAgent(t, sc, agent, fault, engineFault, Drive)
	return run{sess: p.Session, transcript: p.Transcript, err: p.Err}
}

func scenario(name string, deadline time.Duration, steps []conform.Step, tweaks ...tweak) *conform.Scenario {
	task := baseTask()
	for _, tw := range tweaks {
		tw(task)
	}
	b, _ := json.Marshal(task)
	return &conform.Scenario{ID: name, Title: name, Protocol: Protocol, Family: "engine", Deadline: conform.Duration(deadline), Task: b, Steps: steps}
}

func mock(t *testing.T) *mockagent.Agent {
	a, err := mockagent.Lookup(Protocol)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// scripted is a test agent: it writes each line at its time (after the
// assignment), then waits for notify:shutdown and exits 0.
func scripted(lines ...timedLine) *mockagent.Agent {
	return &mockagent.Agent{Protocol: "orchmsg-script", Run: func(ctx context.Context, env mockagent.Env, _ string) int {
		in := make(chan string, 64)
		go func() {
			defer close(in)
			sc := bufio.NewScanner(env.Stdin)
			for sc.Scan() {
				in <- sc.Text()
			}
		}()
		waitFor := func(typ string, d time.Duration) bool {
			var timer <-chan time.Time
			if d >= 0 {
				timer = time.After(d)
			}
			for {
				select {
				case <-ctx.Done():
					return false
				case <-timer:
					return true
				case l, ok := <-in:
					if !ok {
						return false
					}
					if strings.Contains(l, `"type":"notify:shutdown"`) {
						return false
					}
					if typ != "" && strings.Contains(l, `"type":"`+typ+`"`) {
						return true
					}
				}
			}
		}
		if !waitFor("notify:task-assigned", -1) {
			return 0
		}
		start := time.Now()
		for _, l := range lines {
			if d := time.Until(start.Add(l.at)); d > 0 {
				if !waitFor("", d) {
					return 0
				}
			}
			env.Stdout.Write([]byte(l.line + "\n"))
		}
		waitFor("notify:shutdown", -1)
		return 0
	}}
}

type timedLine struct {
	at   time.Duration
	line string
}

// messages are the JSON messages one side sent, decoded.
func messages(s *conform.Session, from conform.Actor) []map[string]any {
	var out []map[string]any
	for i := range s.Records {
		r := &s.Records[i]
		if r.From == from && r.Msg != nil && conform.KeyProbe.Get(r.Detail) == "" {
			if m := r.Obj(); m != nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// notifications are the types of the notifications the engine sent, in order.
func notifications(s *conform.Session) []string {
	var out []string
	for _, m := range messages(s, "orchestrator") {
		if t, _ := m["type"].(string); strings.HasPrefix(t, "notify:") {
			out = append(out, t)
		}
	}
	return out
}

// errorCodes are the codes of the engine's response:error answers, in order.
func errorCodes(s *conform.Session) []string {
	var out []string
	for _, m := range messages(s, "orchestrator") {
		if m["type"] == "response:error" {
			e, _ := m["error"].(map[string]any)
			c, _ := e["code"].(string)
			out = append(out, c)
		}
	}
	return out
}

// answers are "request-type:success|error" per response, in order of the responses.
func answers(s *conform.Session) []string {
	reqs := map[string]string{}
	for _, m := range messages(s, "agent") {
		if id, ok := m["id"].(string); ok {
			if _, seen := reqs[id]; !seen {
				reqs[id], _ = m["type"].(string)
			}
		}
	}
	var out []string
	for _, m := range messages(s, "orchestrator") {
		t, _ := m["type"].(string)
		if c, ok := m["correlationId"].(string); ok && strings.HasPrefix(t, "response:") {
			out = append(out, reqs[c]+":"+strings.TrimPrefix(t, "response:"))
		}
	}
	return out
}

// events are the harness events named name.
func events(s *conform.Session, name conform.Event) []conform.Record {
	var out []conform.Record
	for _, r := range s.Records {
		if r.From == "harness" && r.Event == name {
			out = append(out, r)
		}
	}
	return out
}

// decisions are the engine's "decision" events, by name, in order.
func decisions(s *conform.Session) []string {
	var out []string
	for _, r := range events(s, "decision") {
		out = append(out, conform.KeyDecision.Get(r.Detail))
	}
	return out
}

// signals are the signals the harness sent ("SIGTERM", "SIGKILL"), in order.
func signals(s *conform.Session) []string {
	var out []string
	for _, r := range s.Records {
		if r.From == "harness" && (r.Event == "signal" || r.Event == "kill") {
			out = append(out, conform.KeySignal.Get(r.Detail))
		}
	}
	return out
}

// reference compares a run with fixtures/reference/orchmsg/<name>.jsonl, or with
// -update rewrites it. Records at one virtual instant from two sources (the
// engine's timer and an agent line) may come in either order, so the comparison
// is of the records without seq, sorted; the file keeps one run's order.
func reference(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(referenceDir, name+".jsonl")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: go test ./conform/engine/orchmsg -update writes it", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	g, w := normalized(got), normalized(want)
	if slices.Equal(g, w) {
		return
	}
	onlyRun, onlyFile := without(g, w), without(w, g)
	t.Fatalf("%s differs (go test ./conform/engine/orchmsg -update rewrites it): %d records only in this run, %d only in the file\n run: %s\nfile: %s",
		path, len(onlyRun), len(onlyFile), first(onlyRun), first(onlyFile))
}

// without returns the lines of a that b lacks (both sorted).
func without(a, b []string) []string {
	var out []string
	for _, l := range a {
		if _, found := slices.BinarySearch(b, l); !found {
			out = append(out, l)
		}
	}
	return out
}

func first(ls []string) string {
	if len(ls) == 0 {
		return "(none)"
	}
	return ls[0]
}

func normalized(b []byte) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) != nil {
			out = append(out, l)
			continue
		}
		delete(m, "seq")
		if d, ok := m["detail"].(map[string]any); ok && m["event"] == "timers-start" {
			// With several agents the scenario deadline left when each one's
			// timers start depends on which started first at one instant.
			delete(d, "deadline_ms")
		}
		n, _ := json.Marshal(m)
		out = append(out, string(n))
	}
	slices.Sort(out)
	return out
}
