package aof

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
)

// Both forms of a task file lint clean: the guide's (id, title, status, assignee,
// ...), d0labs/aof's schema as its own store writes it, and the upstream form the
// orchestrator-side scenarios seed (docs/orchestrator-side.md, "Task files").
func TestTaskFileFormsLintClean(t *testing.T) {
	files := map[string]string{}
	read := func(rel, from string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		files[rel] = string(b)
	}
	read("guide/tasks/ready/TASK-2026-11-22-001.md", "../../testdata/aoftasks/guide-form.md")
	read("aof/tasks/in-progress/TASK-2026-12-07-001.md", "../../testdata/aoftasks/aof-written.md")
	scenarios, _ := filepath.Glob("../../fixtures/orchestrator-scenarios/aof/*.json")
	seeded := 0
	for _, p := range scenarios {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var sc struct {
			Setup struct {
				Files map[string]string `json:"files"`
			} `json:"setup"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for rel, content := range sc.Setup.Files {
			if strings.HasSuffix(rel, ".md") && strings.Contains(rel, "/tasks/") {
				files[strings.TrimSuffix(filepath.Base(p), ".json")+"/"+rel] = content
				seeded++
			}
		}
	}
	if seeded < 9 {
		t.Fatalf("found %d seeded task files in the orchestrator-side scenarios", seeded)
	}
	root := t.TempDir()
	dirs := map[string]bool{}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs[p[:strings.Index(p, string(filepath.Separator)+"tasks"+string(filepath.Separator))]] = true
	}
	linted := 0
	for dir := range dirs {
		for _, r := range lintDirGuarded(t, dir) {
			if strings.HasSuffix(r.Path, ".md") {
				linted++
			}
			for _, d := range r.Diagnostics {
				if d.Severity == lint.Error || d.Severity == lint.Warning {
					t.Errorf("%s: %s %s", r.Path, d.Rule, d.Message)
				}
			}
		}
	}
	if linted != len(files) {
		t.Errorf("linted %d task files of %d", linted, len(files))
	}
}
