package orchmsg

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/orchmsg"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in fixtures/reference/orchmsg")

// epoch is where every scenario's fake clock starts.
var epoch = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const step = 500 * time.Millisecond

const goldenDir = "../../../fixtures/reference/orchmsg"

// baseConfig is the scenarios' world: agent-1 (a worker) gets task-1, a 12 s job;
// two peers; a task of agent-2 that agent-1 may not read.
func baseConfig() Config {
	none := (*string)(nil)
	busy := "task-other"
	return Config{
		AgentID: "agent-1", Role: "worker", Capabilities: []string{"go", "testing"},
		Task: Task{ID: "task-1", Type: "implementation", Name: "Implement feature", Description: "Write the greeting module.",
			RequiredRole: "worker", Priority: 2, Payload: map[string]any{"mockagent": map[string]any{"work_seconds": 12}}},
		Peers: []AgentInfo{
			{ID: "agent-2", Role: "worker", Status: "busy", Capabilities: []string{"typescript"}, CurrentTask: &busy},
			{ID: "agent-3", Role: "reviewer", Status: "idle", Capabilities: []string{"review"}, CurrentTask: none},
		},
		Tasks: []Task{{ID: "task-other", Name: "Someone else's task", Status: "running", RequiredRole: "worker", AssignedTo: "agent-2", Dependencies: []string{}}},
	}
}

type run struct {
	res        *Result
	err        error
	transcript []byte
}

// runInProcess runs the engine against an in-process agent on a fake clock inside
// a synctest bubble: the clock moves only once every goroutine is blocked.
func runInProcess(t *testing.T, name string, agent *mockagent.Agent, fault string, cfg Config) run {
	t.Helper()
	var r run
	scratch := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		fake := clock.NewFake(epoch)
		var buf bytes.Buffer
		cfg.Launcher = agentio.InProcess{Agent: agent, Fault: fault, Clock: fake}
		cfg.Clock, cfg.Scratch, cfg.Scenario = fake, scratch, name
		cfg.Recorder = NewRecorder(&buf, Protocol, name)
		enginetest.Drive(t, fake, step, 20000, func() { r.res, r.err = Run(context.Background(), cfg) })
		r.transcript = buf.Bytes()
	})
	if r.err != nil {
		t.Fatalf("engine error: %v", r.err)
	}
	return r
}

func mock(t *testing.T) *mockagent.Agent {
	a, err := mockagent.Lookup("orchmsg")
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
				timer = env.Clock.After(d)
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
		start := env.Clock.Now()
		for _, l := range lines {
			if d := start.Add(l.at).Sub(env.Clock.Now()); d > 0 {
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

// golden compares (or with -update rewrites) fixtures/reference/orchmsg/<name>.jsonl.
func golden(t *testing.T, name string, r run) {
	t.Helper()
	enginetest.Golden(t, filepath.Join(goldenDir, name+".jsonl"), r.transcript, *update)
}

// messages returns the transcript's messages of one sender, as decoded objects.
func messages(t *testing.T, r run, from string) []map[string]any {
	var out []map[string]any
	for _, l := range bytes.Split(r.transcript, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var rec struct {
			From string         `json:"from"`
			Msg  map[string]any `json:"msg"`
		}
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.From == from && rec.Msg != nil {
			out = append(out, rec.Msg)
		}
	}
	return out
}
