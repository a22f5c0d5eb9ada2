package agentio

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// markerVar marks every process a hostile test agent starts, so the test can find
// survivors in /proc whatever their process group or session.
const markerVar = "AGENTIO_HOSTILE_MARKER"

// daemonScript double-forks two setsid daemons and a plain background child, waits
// until they have forked (files d1, d2 in its directory), says ready and stays.
const daemonScript = `
( setsid sh -c 'sleep 1000 & echo > d1; exec sleep 1000' & )
( setsid sh -c 'echo > d2; exec sleep 1000' & )
sleep 1000 &
while [ ! -e d1 ] || [ ! -e d2 ]; do sleep 0.01; done
echo ready
while :; do sleep 1; done
`

func newMarker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	return "m" + hex.EncodeToString(b)
}

// marked lists the live processes whose environment carries marker.
func marked(marker string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, []byte(markerVar+"="+marker)) {
			continue
		}
		if st, ok := procStat(pid); ok && st.state != "Z" && st.state != "X" {
			out = append(out, pid)
		}
	}
	return out
}

// assertNoneLeft waits (hang guard, not a timing assertion) until no process
// carries marker, and kills survivors at the end so a failing test cleans up.
func assertNoneLeft(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		left := marked(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("processes left running: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func supervisedOnly(t *testing.T) {
	t.Helper()
	if !supervisorAvailable {
		t.Skip("no supervisor")
	}
}

// Daemons that escaped with setsid and a double fork die with the scenario.
func TestEscapedDaemonsKilled(t *testing.T) {
	t.Parallel()
	supervisedOnly(t)
	for _, how := range []string{"agent-exits", "harness-kills"} {
		t.Run(how, func(t *testing.T) {
			marker := newMarker(t)
			script := daemonScript
			if how == "agent-exits" {
				script = strings.Replace(script, "while :; do sleep 1; done", "exit 0", 1)
			}
			c, err := Process{}.Start(context.Background(), Spec{Dir: t.TempDir(), Env: []string{markerVar + "=" + marker}, Args: []string{"sh", "-c", script}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Kill(); c.Abandon() })
			l := <-c.Lines()
			if string(l.Data) != "ready" {
				t.Fatalf("first line %q", l.Data)
			}
			if how == "harness-kills" {
				c.Kill()
			}
			drain(t, c)
			waitDone(t, c)
			assertNoneLeft(t, marker)
		})
	}
}

// A harness killed with SIGKILL takes its agents and their daemons with it.
func TestHarnessKilled(t *testing.T) {
	t.Parallel()
	supervisedOnly(t)
	marker := newMarker(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AGENTIO_TEST_HARNESS="+marker)
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf) != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("harness said %q, %v", buf, err)
	}
	if len(marked(marker)) < 5 {
		t.Errorf("the daemons are not running: %v", marked(marker))
	}
	cmd.Process.Kill()
	cmd.Wait()
	assertNoneLeft(t, marker)
}

// The agent gets an allowlist of the harness's environment, not all of it.
func TestAgentEnvironment(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws_secret")
	t.Setenv("AOPKIT_PASSED", "passed")
	t.Setenv("LC_ALL", "C.UTF-8")
	dir := t.TempDir()
	c, err := Process{PassEnv: []string{"AOPKIT_PASSED"}}.Start(context.Background(),
		Spec{Dir: dir, Env: []string{"AOP_PROTOCOL=x"}, Args: []string{"sh", "-c", "env; touch \"$HOME/h\" \"$TMPDIR/t\""}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range drain(t, c) {
		k, v, _ := strings.Cut(string(l.Data), "=")
		got[k] = v
	}
	if ex := waitDone(t, c); ex.Code != 0 {
		t.Fatalf("exit %+v", ex)
	}
	for _, k := range []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY"} {
		if _, ok := got[k]; ok {
			t.Errorf("the agent got %s", k)
		}
	}
	want := map[string]string{
		"AOPKIT_PASSED": "passed", "LC_ALL": "C.UTF-8", "AOP_PROTOCOL": "x", "PATH": os.Getenv("PATH"),
		"HOME": filepath.Join(dir, HomeDir), "TMPDIR": filepath.Join(dir, TmpDir),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, f := range []string{filepath.Join(dir, HomeDir, "h"), filepath.Join(dir, TmpDir, "t")} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}

// stderr has a budget of its own: an agent that logs more than the stdout cap
// still gets its protocol output through.
func TestStderrBudget(t *testing.T) {
	t.Parallel()
	c, err := Process{MaxOutput: 1 << 20, MaxStderr: 1 << 20}.Start(context.Background(), Spec{Dir: t.TempDir(),
		Args: []string{"sh", "-c", `i=0; while [ $i -lt 3000 ]; do printf '%01000d\n' 0; i=$((i+1)); done >&2; echo final`}})
	if err != nil {
		t.Fatal(err)
	}
	var final bool
	var errBytes int
	var lines []Line
	for l := range c.Lines() {
		lines = append(lines, Line{Stream: l.Stream, Data: l.Data})
	}
	for _, l := range lines {
		if l.Stream == "stdout" && string(l.Data) == "final" {
			final = true
		}
		if l.Stream == "stderr" {
			errBytes += len(l.Data)
		}
	}
	waitDone(t, c)
	if !final {
		t.Error("the stdout line after 3 MB of stderr was dropped")
	}
	if !c.StderrCapped() || errBytes > 1<<20+MaxLine {
		t.Errorf("stderr kept %d bytes, capped=%v", errBytes, c.StderrCapped())
	}
	if _, capped := c.Discarded(); capped {
		t.Error("stdout reported capped")
	}
}

// Writes outside the scratch directory are refused by Landlock where the kernel has
// it, and reported where it does not.
func TestContainment(t *testing.T) {
	t.Parallel()
	supervisedOnly(t)
	outside := filepath.Join(os.TempDir(), "agentio-escape-"+newMarker(t))
	t.Cleanup(func() { os.Remove(outside) })
	t.Run("landlock", func(t *testing.T) {
		dir := t.TempDir()
		c, err := Process{}.Start(context.Background(), Spec{Dir: dir,
			Args: []string{"sh", "-c", "echo x > " + outside + "; echo y > inside; echo z > \"$TMPDIR/t\"; mkdir d; ln \"$TMPDIR/t\" d/linked"}})
		if err != nil {
			t.Fatal(err)
		}
		drain(t, c)
		waitDone(t, c)
		mode, _ := c.Containment()
		if !strings.HasPrefix(mode, "landlock") {
			t.Skipf("no Landlock here (%s)", mode)
		}
		if _, err := os.Stat(outside); err == nil {
			t.Errorf("the agent wrote %s outside its scratch directory", outside)
		}
		for _, f := range []string{filepath.Join(dir, "inside"), filepath.Join(dir, TmpDir, "t"), filepath.Join(dir, "d", "linked")} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("a write inside scratch failed: %v", err)
			}
		}
	})
	t.Run("detected", func(t *testing.T) {
		c, err := Process{NoConfine: true}.Start(context.Background(), Spec{Dir: t.TempDir(),
			Args: []string{"sh", "-c", "exec 3>>" + outside + "; echo ready; while :; do sleep 1; done"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Kill(); c.Abandon() })
		<-c.Lines()
		c.Kill()
		drain(t, c)
		waitDone(t, c)
		mode, escapes := c.Containment()
		if !strings.HasPrefix(mode, "none") || len(escapes) != 1 || escapes[0] != outside {
			t.Errorf("containment = %q %q, want %s reported", mode, escapes, outside)
		}
	})
}

// An agent that kills its supervisor does not get its daemons out: the harness, a
// subreaper, inherits them and kills them. Not parallel: the sweep kills children
// of the test process that are in another session. Unconfined: a confined agent
// cannot signal its supervisor at all (TestConfinedAgentCannotSignalOut).
func TestSupervisorKilledByAgent(t *testing.T) {
	supervisedOnly(t)
	marker := newMarker(t)
	script := strings.Replace(daemonScript, "echo ready\nwhile :; do sleep 1; done", "kill -9 $PPID; sleep 1000", 1)
	c, err := Process{NoConfine: true}.Start(context.Background(), Spec{Dir: t.TempDir(), Env: []string{markerVar + "=" + marker}, Args: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Kill(); c.Abandon() })
	drain(t, c)
	ex := waitDone(t, c)
	if ex.Err == nil {
		t.Errorf("exit %+v: want the supervisor's death reported", ex)
	}
	assertNoneLeft(t, marker)
}

// Many escaped daemons (a small fork storm) are all gone when the agent is.
func TestManyDaemonsKilled(t *testing.T) {
	t.Parallel()
	supervisedOnly(t)
	marker := newMarker(t)
	script := `i=0; while [ $i -lt 200 ]; do ( setsid sleep 1000 & ); i=$((i+1)); done; echo ready; exit 0`
	c, err := Process{}.Start(context.Background(), Spec{Dir: t.TempDir(), Env: []string{markerVar + "=" + marker}, Args: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Kill(); c.Abandon() })
	drain(t, c)
	waitDone(t, c)
	assertNoneLeft(t, marker)
}
