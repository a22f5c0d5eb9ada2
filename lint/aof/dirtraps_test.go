package aof

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/testdeadline"
	"github.com/aopkit/aopkit/lint"
)

// lintDirGuarded lints dir, failing the test if the lint never ends (a hang
// detector with a generous limit, not a speed assertion).
func lintDirGuarded(t *testing.T, dir string) []lint.FileReport {
	t.Helper()
	type out struct {
		res []lint.FileReport
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := LintDataDir(dir, driverFiles())
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res
	case <-testdeadline.Near(t):
		t.Fatalf("LintDataDir(%s) hangs", dir)
	}
	return nil
}

func findingsOf(res []lint.FileReport, path string) []lint.Diagnostic {
	for _, r := range res {
		if r.Path == path {
			return r.Diagnostics
		}
	}
	return nil
}

const goodHeartbeat = `{"taskId":"TASK-2026-02-09-057","agentId":"a","lastHeartbeat":"2026-02-09T21:00:00Z","beatCount":1,"expiresAt":"2026-02-09T21:05:00Z"}`

// A task file, a run artifact or an events log that is a FIFO, or a link to
// /dev/zero, is an error finding naming the file and why: never a hang, never a
// read without end.
func TestDataDirFileTraps(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	os.WriteFile(mk("tasks/ready/TASK-2026-02-09-057.md"), []byte("---\nid: TASK-2026-02-09-057\nstatus: ready\n---\n"), 0o644)
	os.WriteFile(mk("runs/TASK-2026-02-09-057/run.json"), []byte(goodHeartbeat), 0o644)
	traps := map[string]string{
		"tasks/ready/TASK-2026-02-09-058.md":          "fifo",
		"tasks/ready/TASK-2026-02-09-059.md":          "zero",
		"runs/TASK-2026-02-09-057/run_heartbeat.json": "fifo",
		"runs/TASK-2026-02-09-057/run_result.json":    "zero",
		"events/events.jsonl":                         "fifo",
		"events/2026-02-09.jsonl":                     "zero",
	}
	for rel, kind := range traps {
		p := mk(rel)
		var err error
		if kind == "fifo" {
			err = syscall.Mkfifo(p, 0o600)
		} else {
			err = os.Symlink("/dev/zero", p)
		}
		if err != nil {
			t.Skip("cannot make the trap:", err)
		}
	}
	res := lintDirGuarded(t, dir)
	for rel, kind := range traps {
		p := filepath.Join(dir, rel)
		ds := findingsOf(res, p)
		want := "not a regular file (a named pipe)"
		if kind == "zero" {
			want = "leads outside the data directory" // /dev/zero is not in it
		}
		ok := false
		for _, d := range ds {
			ok = ok || d.Severity == lint.Error && strings.Contains(d.Message, want)
		}
		if !ok {
			t.Errorf("%s (%s): no error saying %q: %+v", rel, kind, want, ds)
		}
	}
}

// A run directory linked outside the data directory is an error, not a silent
// skip of its artifacts; a link inside it is followed; a log reached twice (AOF's
// events/events.jsonl beside the dated file it links to) is linted and reported
// once, under the name that is no link.
func TestDataDirSymlinks(t *testing.T) {
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(outside, "TASK-2026-02-09-058"), 0o755)
	os.WriteFile(filepath.Join(outside, "TASK-2026-02-09-058", "run.json"), []byte(`{"taskId":"nope"}`), 0o644)
	dir := t.TempDir()
	mk := func(rel, data string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("runs/TASK-2026-02-09-057/run_heartbeat.json", goodHeartbeat)
	mk("shared/run_heartbeat.json", strings.Replace(goodHeartbeat, "057", "059", 1))
	mk("events/2026-02-09.jsonl", "[1]\n")
	if err := os.Symlink(filepath.Join(outside, "TASK-2026-02-09-058"), filepath.Join(dir, "runs", "TASK-2026-02-09-058")); err != nil {
		t.Fatal(err)
	}
	os.Symlink("../shared", filepath.Join(dir, "runs", "TASK-2026-02-09-059"))
	os.Symlink("2026-02-09.jsonl", filepath.Join(dir, "events", "events.jsonl"))
	res := lintDirGuarded(t, dir)

	out := findingsOf(res, filepath.Join(dir, "runs", "TASK-2026-02-09-058"))
	if len(out) != 1 || out[0].Rule != DirRuns.ID || out[0].Severity != lint.Error || !strings.Contains(out[0].Message, "leads outside the data directory") {
		t.Errorf("runs/ linked outside: %+v", out)
	}
	if r := findingsOf(res, filepath.Join(dir, "runs", "TASK-2026-02-09-059", "run_heartbeat.json")); r == nil {
		t.Errorf("runs/ linked inside the data directory was not linted: %v", paths(res))
	}
	if findingsOf(res, filepath.Join(dir, "events", "events.jsonl")) != nil {
		t.Errorf("the events log was reported twice: %v", paths(res))
	}
	if ds := findingsOf(res, filepath.Join(dir, "events", "2026-02-09.jsonl")); len(ds) != 1 {
		t.Errorf("the dated events log: %+v", ds)
	}
}

func paths(res []lint.FileReport) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.Path)
	}
	return out
}

// A FIFO where a data directory has a directory (runs/, events/) is no
// directory: it is not opened, so neither recognising the data directory nor
// linting it waits on it.
func TestDataDirFIFOForDirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "tasks", "ready"), 0o755)
	for _, d := range []string{"runs", "events"} {
		if err := syscall.Mkfifo(filepath.Join(dir, d), 0o600); err != nil {
			t.Skip("no mkfifo:", err)
		}
	}
	done := make(chan bool, 1)
	go func() { done <- IsDataDir(dir) }()
	select {
	case <-done:
	case <-testdeadline.Near(t):
		t.Fatal("IsDataDir hangs")
	}
	lintDirGuarded(t, dir)
}
