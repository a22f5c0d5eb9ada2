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
	case <-time.After(time.Minute):
		t.Fatal("FileSHA256 hangs on a FIFO")
	}
}
