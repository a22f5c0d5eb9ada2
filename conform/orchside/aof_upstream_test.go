package orchside

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	engaof "github.com/aopkit/aopkit/conform/engine/aof"
)

// TestAOFUpstreamStoreListsSeededTasks runs testdata/aoftasks/taskstore.mjs, a
// dependency-free port of d0labs/aof's task store listing (FilesystemTaskStore.list,
// parseTaskFile, the zod TaskFrontmatter; upstream 2700399, paths in the file),
// over the data directory each orchestrator-side aof scenario seeds: AOF lists
// the scenario's task, ready, routed to its assignee. It rejects the guide's
// minimal form (why the scenarios seed the upstream one) and lists a file AOF's
// own store wrote. Nothing is fetched; without node the test is skipped.
func TestAOFUpstreamStoreListsSeededTasks(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the port of d0labs/aof's task store runs under node")
	}
	port, err := filepath.Abs("../../testdata/aoftasks/taskstore.mjs")
	if err != nil {
		t.Fatal(err)
	}
	type listed struct {
		Tasks []struct {
			ID, Status string
			Agent      *string
		}
		Errors []string
	}
	list := func(t *testing.T, dir string) listed {
		t.Helper()
		out, err := exec.Command(node, port, dir).Output()
		if err != nil {
			t.Fatalf("node %s %s: %v", port, dir, err)
		}
		var l listed
		if err := json.Unmarshal(out, &l); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		return l
	}
	write := func(t *testing.T, dir string, files map[string]string) {
		t.Helper()
		for rel, content := range files {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ss, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sc := range ss {
		if sc.Protocol != "aof" {
			continue
		}
		g, ok := aofGivenOf([]byte(strings.ReplaceAll(string(sc.Task), "${SCRATCH}", "/scratch")))
		if !ok {
			continue
		}
		n++
		t.Run(sc.ID, func(t *testing.T) {
			var su setup
			if err := json.Unmarshal(sc.Setup, &su); err != nil {
				t.Fatal(err)
			}
			scratch := t.TempDir()
			write(t, scratch, su.Files)
			seed, err := engaof.ParseTask([]byte(su.Files["data/tasks/ready/"+g.TaskID+".md"]))
			if err != nil {
				t.Fatal(err)
			}
			l := list(t, filepath.Join(scratch, "data"))
			if len(l.Errors) > 0 {
				t.Errorf("AOF's store refuses: %v", l.Errors)
			}
			found := false
			for _, tk := range l.Tasks {
				if tk.ID == g.TaskID {
					found = true
					if tk.Status != "ready" || tk.Agent == nil || *tk.Agent != seed.Assignee {
						t.Errorf("AOF lists %s as %s, agent %v; want ready, %s", tk.ID, tk.Status, tk.Agent, seed.Assignee)
					}
				}
			}
			if !found {
				t.Errorf("AOF's store does not list %s: %+v", g.TaskID, l.Tasks)
			}
		})
	}
	if n < 9 {
		t.Errorf("%d aof scenarios with a task", n)
	}
	t.Run("forms", func(t *testing.T) {
		read := func(p string) string {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		dir := t.TempDir()
		write(t, dir, map[string]string{
			"tasks/ready/TASK-2026-11-22-001.md":       read("../../testdata/aoftasks/guide-form.md"),
			"tasks/in-progress/TASK-2026-12-07-001.md": read("../../testdata/aoftasks/aof-written.md"),
		})
		l := list(t, dir)
		if len(l.Tasks) != 1 || l.Tasks[0].ID != "TASK-2026-12-07-001" {
			t.Errorf("listed %+v; want only the file AOF wrote", l.Tasks)
		}
		if len(l.Errors) != 1 || !strings.Contains(l.Errors[0], "TASK-2026-11-22-001.md: schemaVersion") {
			t.Errorf("errors %q; want the guide's form refused for its schemaVersion", l.Errors)
		}
	})
}
