package agentio

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// probeEnv makes the test binary a hostile agent (probe): it tries what a
// contained agent must not do and prints one line per attempt, "NAME ok" or
// "NAME refused: ERR".
const probeEnv = "AGENTIO_TEST_PROBE"

// probe paths, from the environment the test gives the agent.
const (
	probeHarness = "PROBE_HARNESS" // the harness's pid
	probeSecret  = "PROBE_SECRET"  // a denied file inside an allowed directory
	probeSibling = "PROBE_SIBLING" // an allowed file beside it
	probeHidden  = "PROBE_HIDDEN"  // a file in a directory not on the allowlist
	probeOutside = "PROBE_OUTSIDE" // a directory outside scratch to write in
	probePort    = "PROBE_PORT"    // a local TCP port the harness did not hand over
)

func probe() int {
	try := func(name string, err error) {
		if err != nil {
			fmt.Printf("%s refused: %v\n", name, err)
		} else {
			fmt.Printf("%s ok\n", name)
		}
	}
	read := func(p string) error { _, err := os.ReadFile(p); return err }
	harness, _ := strconv.Atoi(os.Getenv(probeHarness))
	try("read-secret", read(os.Getenv(probeSecret)))
	try("read-sibling", read(os.Getenv(probeSibling)))
	try("read-hidden", read(os.Getenv(probeHidden)))
	try("read-shadow", read("/etc/shadow"))
	try("harness-environ", read("/proc/"+strconv.Itoa(harness)+"/environ"))
	try("supervisor-environ", read("/proc/"+strconv.Itoa(os.Getppid())+"/environ"))
	try("signal-harness", syscall.Kill(harness, 0))
	try("signal-supervisor", syscall.Kill(os.Getppid(), syscall.SIGSTOP))
	try("signal-self", syscall.Kill(os.Getpid(), 0))
	lc := net.ListenConfig{}
	lc.SetMultipathTCP(false)
	l, err := lc.Listen(context.Background(), "tcp", "0.0.0.0:0")
	if err == nil {
		l.Close()
	}
	try("bind", err)
	l, err = net.Listen("tcp", "0.0.0.0:0") // Go's default: Multipath TCP where the kernel has it
	if err == nil {
		l.Close()
	}
	try("bind-mptcp", err)
	conn, err := net.Dial("tcp", "127.0.0.1:"+os.Getenv(probePort))
	if err == nil {
		conn.Close()
	}
	try("connect-local", err)
	try("write-outside", os.WriteFile(filepath.Join(os.Getenv(probeOutside), "x"), []byte("x"), 0o644))
	try("write-scratch", os.WriteFile("inside", []byte("x"), 0o644))
	return 0
}

// A hostile agent reads no secret of the harness or the machine, signals nothing
// outside its own processes, binds no port and writes only in scratch, while what
// it may read stays readable.
func TestConfinedAgentHostile(t *testing.T) {
	supervisedOnly(t)
	abi := LandlockABI()
	if abi < 1 {
		t.Skip("no Landlock on this kernel")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	keys := t.TempDir() // named in the command line: on the read allowlist
	secret, sibling := filepath.Join(keys, "signing.key"), filepath.Join(keys, "agent.conf")
	hidden := filepath.Join(t.TempDir(), "credentials")
	outside := t.TempDir()
	for _, f := range []string{secret, sibling, hidden} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	env := []string{probeEnv + "=1", probePort + "=" + port, probeHarness + "=" + strconv.Itoa(os.Getpid()), probeSecret + "=" + secret,
		probeSibling + "=" + sibling, probeHidden + "=" + hidden, probeOutside + "=" + outside}
	c, err := Process{Policy: Policy{Deny: []string{secret}}}.Start(context.Background(),
		Spec{Dir: t.TempDir(), Env: env, Args: []string{exe, "--config-dir", keys}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Kill(); c.Abandon() })
	got := map[string]string{}
	for l := range c.Lines() {
		name, rest, _ := strings.Cut(string(l.Data), " ")
		got[name] = rest
	}
	waitDone(t, c)
	want := map[string]bool{ // true: must succeed
		"read-secret": false, "read-sibling": true, "read-hidden": false,
		"harness-environ": false, "supervisor-environ": false, "signal-self": true,
		"write-outside": false, "write-scratch": true,
	}
	if _, err := os.Stat("/etc/shadow"); err == nil {
		want["read-shadow"] = false
	}
	if abi >= 4 {
		want["bind"], want["bind-mptcp"], want["connect-local"] = false, false, false
	}
	if abi >= 6 {
		want["signal-harness"], want["signal-supervisor"] = false, false
	}
	for name, ok := range want {
		r, seen := got[name]
		switch {
		case !seen:
			t.Errorf("%s: the probe said nothing (output %v)", name, got)
		case ok && r != "ok":
			t.Errorf("%s: %s, want it allowed", name, r)
		case !ok && !strings.HasPrefix(r, "refused"):
			t.Errorf("%s: allowed, want it refused", name)
		}
	}
	mode, _ := c.Containment()
	if !strings.HasPrefix(mode, "landlock-abi-") {
		t.Errorf("containment mode %q", mode)
	}
	ms := strings.Join(c.Measures(), "\n")
	for _, w := range []string{"enforced reads only", "enforced writes only"} {
		if !strings.Contains(ms, w) {
			t.Errorf("measures lack %q:\n%s", w, ms)
		}
	}
}

// The memory and process limits hold: an agent that allocates past its memory
// limit and one that forks past its process limit are stopped at the limit.
func TestConfinedAgentLimits(t *testing.T) {
	supervisedOnly(t)
	if LandlockABI() < 1 {
		t.Skip("no Landlock on this kernel: the confiner is the same, but keep the test where it runs")
	}
	run := func(t *testing.T, pol Policy, script string) (string, []string) {
		t.Helper()
		c, err := Process{Policy: pol}.Start(context.Background(), Spec{Dir: t.TempDir(), Args: []string{"sh", "-c", script}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Kill(); c.Abandon() })
		var out []string
		for l := range c.Lines() {
			if l.Stream == "stdout" {
				out = append(out, string(l.Data))
			}
		}
		waitDone(t, c)
		return strings.Join(out, "\n"), c.Measures()
	}
	t.Run("memory", func(t *testing.T) {
		// tail keeps a line in memory: 600 MiB of zeros without a newline.
		out, ms := run(t, Policy{Limits: Limits{Memory: 128 << 20}}, "head -c 629145600 /dev/zero | tail -n 1 >/dev/null && echo fits || echo over")
		if !strings.Contains(out, "over") {
			t.Errorf("600 MiB held under a 128 MiB limit: %q (measures %q)", out, ms)
		}
	})
	t.Run("processes", func(t *testing.T) {
		// dash gives up on the first fork the limit refuses; echo is a builtin.
		script := `i=0; while [ $i -lt 60 ]; do sleep 30 & i=$((i+1)); done; echo all-started`
		out, ms := run(t, Policy{Limits: Limits{Procs: 20}}, script)
		if !strings.Contains(strings.Join(ms, "\n"), "processes and threads in all") {
			t.Skipf("no process limit on this machine: %q", ms)
		}
		if strings.Contains(out, "all-started") {
			t.Errorf("60 processes started under a limit of 20 (measures %q)", ms)
		}
		if out, _ := run(t, Policy{}, script); !strings.Contains(out, "all-started") {
			t.Errorf("60 processes did not start under the default limit: %q", out)
		}
	})
}

func TestParseLimitsDefaults(t *testing.T) {
	l := Limits{}.withDefaults()
	if l.Memory != DefaultMemory || l.Procs != DefaultProcs || l.CPU != DefaultCPU || l.FileSize != DefaultFileSize {
		t.Errorf("defaults %+v", l)
	}
	if l := (Limits{Memory: -1}).withDefaults(); l.Memory != -1 {
		t.Errorf("no limit became %d", l.Memory)
	}
	_ = errors.New
}

// A script's project is readable: its imports and node_modules sit beside or above
// it, up to the directory that marks the project.
func TestReadAllowlistProject(t *testing.T) {
	root := t.TempDir()
	script := filepath.Join(root, "agents", "py", "agent.py")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(script, nil, 0o644)
	os.WriteFile(filepath.Join(root, "pyproject.toml"), nil, 0o644)
	list := readAllowlist([]string{"python3", script}, nil, "/usr/bin/python3")
	has := func(p string) bool {
		for _, l := range list {
			if l == p {
				return true
			}
		}
		return false
	}
	if !has(filepath.Dir(script)) || !has(root) {
		t.Errorf("allowlist %q lacks the script's directory or its project %s", list, root)
	}
	bare := t.TempDir()
	lone := filepath.Join(bare, "sub", "agent.sh")
	os.MkdirAll(filepath.Dir(lone), 0o755)
	os.WriteFile(lone, nil, 0o755)
	list = readAllowlist([]string{lone}, nil, lone)
	if has(bare) {
		t.Errorf("a directory without a project marker was allowed: %q", list)
	}
}
