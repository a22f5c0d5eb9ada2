package provenance

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	_ "github.com/aopkit/aopkit/conform/checks"
	"github.com/aopkit/aopkit/conform/requirements"
	"github.com/aopkit/aopkit/conform/runner"
	"github.com/aopkit/aopkit/fixtures/scenarios"
	"github.com/aopkit/aopkit/internal/testdeadline"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/all"
)

func builtin(t *testing.T) []*conform.Scenario {
	t.Helper()
	ss, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// The transcript digest, computed from the records in memory, is the digest of
// the transcript file the runner wrote; Collect fills every field.
func TestTranscriptDigestIsTheFile(t *testing.T) {
	t.Parallel()
	ag, err := mockagent.Lookup("aop2")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := runner.Run(context.Background(), runner.Options{
		Protocol: "aop2", Command: []string{"mockagent"}, Scenarios: builtin(t), Run: "aop2/5/final-response",
		OutDir: out, Launcher: agentio.InProcess{Agent: ag},
	})
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	suite, err := Suite("aop2", builtin(t), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Collect(rep, Run{Suite: suite, Executable: exe, TimeoutScale: 2, Repeat: 1}); err != nil {
		t.Fatal(err)
	}
	p := rep.Provenance
	if len(p.Transcripts) == 0 {
		t.Fatal("no transcript digests")
	}
	for _, td := range p.Transcripts {
		sum, err := FileSHA256(td.File)
		if err != nil {
			t.Fatal(err)
		}
		if sum != td.SHA256 {
			t.Errorf("%s: in-memory digest %s, file %s", td.Scenario, td.SHA256, sum)
		}
	}
	want, _ := FileSHA256(exe)
	if p.Aopconform == "" || p.Agent.SHA256 != want || p.Agent.Executable != exe || p.TimeoutScale != 2 || p.Repeat != 1 ||
		!strings.Contains(p.Platform, "/") || p.Started.IsZero() || p.Suite.Digest != suite.Digest ||
		p.Requirements != requirements.Digest() || p.Requirements == "" {
		t.Errorf("provenance incomplete: %+v", p)
	}
	b, _ := json.Marshal(rep)
	if !strings.Contains(string(b), `"provenance":{"aopconform":`) {
		t.Error("provenance not in the JSON report")
	}
}

// The suite digest changes with any byte of a scenario's content or a check's
// metadata, and not with the order scenarios were loaded in.
func TestSuiteDigest(t *testing.T) {
	t.Parallel()
	ss := builtin(t)
	a, err := Suite("aop2", ss, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.Digest, "sha256:") || a.Scenarios == 0 || a.Checks == 0 {
		t.Fatalf("suite: %+v", a)
	}
	rev := append([]*conform.Scenario(nil), ss...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if b, _ := Suite("aop2", rev, true, nil); b.Digest != a.Digest {
		t.Error("digest depends on load order")
	}
	var changed []*conform.Scenario
	for _, s := range ss {
		c := *s
		if s.ID == "aop2-happy-path" {
			c.Deadline++
		}
		changed = append(changed, &c)
	}
	if b, _ := Suite("aop2", changed, true, nil); b.Digest == a.Digest {
		t.Error("digest ignores a scenario's deadline")
	}
	if o, _ := Suite("aof", ss, true, nil); o.Digest == a.Digest {
		t.Error("two protocols, one digest")
	}
}

func TestExecutable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	noexec := filepath.Join(dir, "plain")
	os.WriteFile(noexec, []byte("x"), 0o644)
	exe := filepath.Join(dir, "agent")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	for _, tt := range []struct {
		cmd  string
		want string // "" = ok
	}{
		{exe, ""},
		{"sh", ""},
		{noexec, "is not executable"},
		{dir, "is a directory"},
		{filepath.Join(dir, "missing"), "does not exist"},
		{"no-such-agent-h14", "is not found in $PATH"},
	} {
		_, err := Executable([]string{tt.cmd})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.cmd, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: error %v, want one line with %q", tt.cmd, err, tt.want)
		}
	}
}

// An "agent" that is an executable FIFO is refused at once, not hashed forever.
func TestFileSHA256RefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "agent")
	if err := syscall.Mkfifo(p, 0o700); err != nil {
		t.Skip("no mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := FileSHA256(p); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FileSHA256(FIFO): %v", err)
		}
	case <-testdeadline.Near(t):
		t.Fatal("FileSHA256 hangs on a FIFO")
	}
}

// NamedFiles records every argument naming an existing regular file, as given,
// once, in order: the script of `python3 agent.py`, resolved from the working
// directory as the harness resolves it. Flags, directories, FIFOs, devices and
// paths that do not exist are not files of the agent.
func TestNamedFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("agent.py", []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "conf.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("pkg", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo("pipe", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("agent.py", "link.py"); err != nil {
		t.Fatal(err)
	}
	// agent.py as a program name is command[0], never a named file.
	got, err := NamedFiles([]string{"agent.py", "python3", "-m", "pkg", "pipe", "/dev/null", "--conf=conf.json", "-c",
		"agent.py", "missing.py", "agent.py", filepath.Join(dir, "conf.json"), "link.py", ""})
	if err != nil {
		t.Fatal(err)
	}
	pySum, _ := FileSHA256("agent.py")
	confSum, _ := FileSHA256("conf.json")
	want := []conform.AgentFile{{Path: "agent.py", SHA256: pySum}, {Path: filepath.Join(dir, "conf.json"), SHA256: confSum}, {Path: "link.py", SHA256: pySum}}
	if len(got) != len(want) {
		t.Fatalf("NamedFiles = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("file %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got, err := NamedFiles([]string{"/bin/true"}); err != nil || got != nil {
		t.Errorf("a command naming no file: %v, %v", got, err)
	}

	// A named file that cannot be read is an error, not left out.
	if os.Geteuid() != 0 {
		if err := os.Chmod("agent.py", 0); err != nil {
			t.Fatal(err)
		}
		if _, err := NamedFiles([]string{"python3", "agent.py"}); err == nil || !strings.Contains(err.Error(), "agent.py") {
			t.Errorf("an unreadable script: %v", err)
		}
	}
}

// Collect records the named files with the executable.
func TestCollectNamedFiles(t *testing.T) {
	t.Parallel()
	files := []conform.AgentFile{{Path: "agent.py", SHA256: strings.Repeat("a", 64)}}
	rep := &conform.Report{Command: []string{"python3", "agent.py"}, Started: time.Now()}
	if err := Collect(rep, Run{Executable: "/bin/sh", Files: files}); err != nil {
		t.Fatal(err)
	}
	if a := rep.Provenance.Agent; len(a.Files) != 1 || a.Files[0] != files[0] || a.SHA256 == "" {
		t.Errorf("agent = %+v", a)
	}
	data, _ := json.Marshal(conform.AgentID{Command: []string{"x"}})
	if strings.Contains(string(data), "files") {
		t.Errorf("an agent without files names them: %s", data)
	}
}
