package aof

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
)

func TestFrontmatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     map[string]any
		errLine  int
	}{
		{"engine", "---\nid: TASK-2026-02-09-057\nstatus: in-progress\ncreatedAt: \"2026-02-09T20:00:00.000Z\"\nlease:\n  agent: swe-backend\nmetadata:\n  delegationDepth: 1\n  reviewRequired: false\n---\nbody\n",
			map[string]any{"id": "TASK-2026-02-09-057", "status": "in-progress", "createdAt": "2026-02-09T20:00:00.000Z",
				"lease": map[string]any{"agent": "swe-backend"}, "metadata": map[string]any{"delegationDepth": int64(1), "reviewRequired": false}}, 0},
		{"lists", "---\ntags: [a, 'b c', \"d\"]\ndependsOn:\n- TASK-2026-02-09-001\n- TASK-2026-02-09-002\nrouting:\n  agents:\n    - name: x\n      role: qa\n---\n",
			map[string]any{"tags": []any{"a", "b c", "d"}, "dependsOn": []any{"TASK-2026-02-09-001", "TASK-2026-02-09-002"},
				"routing": map[string]any{"agents": []any{map[string]any{"name": "x", "role": "qa"}}}}, 0},
		{"block scalar and comments", "---\n# a comment\ntitle: Fix it # trailing\ndesc: |\n  line one\n  line two\nempty: {}\nnothing: ~\n---\n",
			map[string]any{"title": "Fix it", "desc": "line one\nline two", "empty": map[string]any{}, "nothing": nil}, 0},
		{"no opening", "id: x\n", nil, 1},
		{"no closing", "---\nid: x\n", nil, 1},
		{"not key value", "---\nid: x\njust text\n---\n", nil, 3},
		{"duplicate key", "---\nid: x\nid: y\n---\n", nil, 3},
		{"bad indentation", "---\nid: x\n   status: ready\n---\n", nil, 3},
		{"tab", "---\nmetadata:\n\tdepth: 1\n---\n", nil, 3},
		{"unterminated string", "---\ntitle: \"abc\n---\n", nil, 2},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fm, err := ParseFrontmatter([]byte(tt.in))
			if tt.errLine > 0 {
				fe, ok := err.(*FrontmatterError)
				if !ok || fe.Line != tt.errLine {
					t.Fatalf("err = %v, want an error at line %d", err, tt.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fm.Values, tt.want) {
				t.Errorf("got %#v\nwant %#v", fm.Values, tt.want)
			}
		})
	}
}

func TestFrontmatterLines(t *testing.T) {
	fm, err := ParseFrontmatter([]byte("---\nid: TASK-2026-02-09-057\nmetadata:\n  delegationDepth: 2\n---\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fm.Lines["id"] != 2 || fm.Lines["metadata.delegationDepth"] != 4 || fm.BodyLine != 6 {
		t.Errorf("lines %v body %d", fm.Lines, fm.BodyLine)
	}
}

func TestTaskIDProblem(t *testing.T) {
	t.Parallel()
	if taskIDProblem("TASK-2026-02-09-057") != "" {
		t.Error("a good id is reported")
	}
	for in, sub := range map[string]string{
		"TASK-2026-02-09-057-01": "upstream",
		"TASK-2026-2-9-57":       `"TASK-2026-02-09-057"`,
		"task-2026-02-09-057":    "must match",
	} {
		if got := taskIDProblem(in); got == "" || !strings.Contains(got, sub) {
			t.Errorf("taskIDProblem(%q) = %q, want it to mention %s", in, got, sub)
		}
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json, file, kind string
		min                    int
	}{
		{"envelope", `{"protocol":"aof","type":"status.update"}`, "", KindStatusUpdate, 100},
		{"unknown type", `{"protocol":"aof","type":"task.x"}`, "", "", 100},
		{"run by name", `{"taskId":"TASK-2026-02-09-057"}`, "x/runs/T/run.json", KindRun, 90},
		{"handoff input by name", `{"taskId":"TASK-2026-02-09-057"}`, "t/inputs/handoff.json", KindHandoffInput, 90},
		{"handoff.json elsewhere", `{"taskId":"TASK-2026-02-09-057"}`, "t/handoff.json", "", 0},
		{"heartbeat by shape", `{"taskId":"T","agentId":"a","lastHeartbeat":"x","beatCount":1,"expiresAt":"y"}`, "", KindHeartbeat, 80},
		{"incomplete heartbeat by shape", `{"taskId":"TASK-2026-02-09-057","expiresAt":"y"}`, "", KindHeartbeat, 80},
		{"marks without taskId", `{"startedAt":"x","artifactPaths":{}}`, "", KindRun, 80},
		{"one mark without taskId", `{"outcome":"done"}`, "", "", 0},
		{"result by shape", `{"taskId":"T","agentId":"a","completedAt":"x","outcome":"done"}`, "", KindRunResult, 80},
		{"wrong protocol", `{"protocol":"x","type":"status.update","payload":{}}`, "", KindStatusUpdate, 40},
		{"other protocol", `{"jsonrpc":"2.0","method":"ping","id":1}`, "", "", 0},
		{"array", `[1]`, "", "", 0},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, _, err := jsonread.Parse([]byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			kind, _, conf := Detect(root, tt.file)
			if kind != tt.kind || conf < tt.min || (tt.min == 0 && conf != 0) {
				t.Errorf("Detect = %q, %d; want %q, >= %d", kind, conf, tt.kind, tt.min)
			}
		})
	}
}

// TestTableCap: sequence state is bounded; the cap is reported once.
func TestTableCap(t *testing.T) {
	tb := seqgroup.NewTable[int](MaxTasks, nil)
	hits := 0
	for i := 0; i < 3*MaxTasks; i++ {
		if tb.Put(fmt.Sprint(i), i) {
			hits++
		}
		if i%3 == 0 {
			tb.Delete(fmt.Sprint(i - 1))
		}
	}
	if tb.Len() > MaxTasks || hits != 1 || len(tb.Order()) > 4*MaxTasks+1 {
		t.Errorf("size %d, order %d, hits %d", tb.Len(), len(tb.Order()), hits)
	}
	if _, ok := tb.Get(fmt.Sprint(3*MaxTasks - 1)); !ok {
		t.Error("the newest key was dropped")
	}
}

// TestCheckerBounded: a long stream of distinct tasks keeps the transition
// checker's state at the cap.
func TestCheckerBounded(t *testing.T) {
	c := &transitionChecker{}
	var capped int
	for i := 0; i < MaxTasks+100; i++ {
		data := []byte(fmt.Sprintf(`{"protocol":"aof","version":1,"type":"status.update","taskId":"TASK-2026-02-09-%03d","fromAgent":"a","toAgent":"d","sentAt":"2026-02-09T21:00:00Z","payload":{"taskId":"x","agentId":"a","progress":"p"}}`, i%1000))
		root, _, _ := jsonread.Parse(data)
		root.Members[3].Value.Str = fmt.Sprintf("TASK-%04d-02-09-001", i) // distinct tasks
		m := &lint.Message{Protocol: "aof", Kind: KindStatusUpdate, Root: root, Raw: data, Pos: lint.NewLineIndex(data, i+1, 1), Index: i}
		p := lint.NewPass(SeqTransition, m)
		c.Observe(p)
		capped += len(p.Diagnostics())
	}
	if c.tasks.Len() > MaxTasks || capped != 1 {
		t.Errorf("tasks %d, cap diagnostics %d", c.tasks.Len(), capped)
	}
}

func TestIsDataDir(t *testing.T) {
	dir := t.TempDir()
	if IsDataDir(dir) {
		t.Error("an empty directory is a data directory")
	}
	os.MkdirAll(filepath.Join(dir, "state", "runs", "TASK-2026-02-09-057"), 0o755)
	os.WriteFile(filepath.Join(dir, "state", "runs", "TASK-2026-02-09-057", "run.json"), []byte("{}"), 0o644)
	if !IsDataDir(dir) {
		t.Error("upstream state/runs layout not recognised")
	}
	dir2 := t.TempDir()
	os.MkdirAll(filepath.Join(dir2, "tasks", "ready"), 0o755)
	if !IsDataDir(dir2) {
		t.Error("tasks/ready not recognised")
	}
}

// TestDataDirHostile: broken files in a data directory get diagnostics, never a panic.
func TestDataDirHostile(t *testing.T) {
	dir := t.TempDir()
	w := func(rel, data string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w("tasks/ready/TASK-2026-02-09-057.md", "\x00\xff---\n")
	w("tasks/ready/TASK-2026-02-09-058.md", "---\nid: TASK-2026-02-09-058\nstatus: ready\nmetadata:\n  delegationDepth: two\n---\n")
	w("tasks/weird/TASK-2026-02-09-059.md", "---\nid: TASK-2026-02-09-059\nstatus: weird\n---\n")
	w("runs/TASK-2026-02-09-057/run.json", "{not json")
	os.MkdirAll(filepath.Join(dir, "runs", "TASK-2026-02-09-057", "run_result.json"), 0o755)
	w("runs/not-a-task/run_heartbeat.json", `{"taskId":"TASK-2026-02-09-057","agentId":"a","lastHeartbeat":"2026-02-09T21:00:00Z","beatCount":1,"expiresAt":"2026-02-09T21:05:00Z"}`)
	w("events/events.jsonl", "[1]\n\n{\"type\":\"x\",\"timestamp\":\"soon\",\"actor\":\"a\"}\n"+strings.Repeat("x", 100000)+"\n")
	if !IsDataDir(dir) {
		t.Fatal("not recognised")
	}
	res, err := LintDataDir(dir, driverFiles())
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]int{}
	for _, r := range res {
		for _, d := range r.Diagnostics {
			rules[d.Rule]++
		}
	}
	for _, want := range []string{"AOF-DIR-001", "AOF-DIR-002", "AOF-DIR-003", "AOF-DIR-005", "GEN-JSON-001"} {
		if rules[want] == 0 {
			t.Errorf("no %s diagnostic; got %v", want, rules)
		}
	}
}

// driverFiles is the driver's file linter with the default options, as
// aoplint hands it to LintDataDir.
func driverFiles() lint.FileLinter { return linter.FileLinter(linter.Options{}) }
