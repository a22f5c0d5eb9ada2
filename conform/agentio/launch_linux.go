package agentio

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// launch is one start of an agent: directly, or below a supervisor (status set).
type launch struct {
	cmd       *exec.Cmd
	status    *os.File // the supervisor's fd 3, read side
	statusW   *os.File
	lines     *bufio.Reader
	contained string
	measures  []string // what the confiner enforced and could not ("enforced ...", "missing ...")
}

// newLaunch prepares the command: the supervisor when Main was called, else the
// agent itself.
func newLaunch(spec Spec, env []string, confineWrites bool, pol Policy) (*launch, error) {
	exe, err := os.Executable()
	if !supervisorAvailable || err != nil {
		cmd := exec.Command(spec.Args[0], spec.Args[1:]...)
		cmd.Dir, cmd.Env = spec.Dir, env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return &launch{cmd: cmd, contained: "none: no supervisor (agentio.Main was not called, or the harness's executable is unknown)"}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("agentio: status pipe: %w", err)
	}
	cfg, _ := json.Marshal(superviseConfig{Scratch: spec.Dir, Confine: confineWrites && spec.Dir != "", Policy: policyConfig(spec, env, pol)})
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"aopkit-supervisor"}, spec.Args...), Dir: spec.Dir}
	cmd.Env = append(append([]string(nil), env...), superviseEnv+"="+string(cfg))
	cmd.ExtraFiles = []*os.File{w}
	// SIGTERM, not SIGKILL: the supervisor must live long enough to kill what the
	// agent started. A session of its own tells the agent's processes apart from
	// the harness's (sweepOrphans).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
	return &launch{cmd: cmd, status: r, statusW: w, lines: bufio.NewReader(r)}, nil
}

// abort releases what newLaunch opened when the start failed.
func (l *launch) abort() {
	if l.status != nil {
		l.status.Close()
		l.statusW.Close()
	}
}

// started returns the agent's process group once it runs.
func (l *launch) started() (int, error) {
	if l.status == nil {
		return l.cmd.Process.Pid, nil
	}
	liveSupervisors.Lock()
	liveSupervisors.pids[l.cmd.Process.Pid] = true
	liveSupervisors.Unlock()
	l.statusW.Close()
	pid, err := l.readPid()
	if err != nil {
		liveSupervisors.Lock()
		delete(liveSupervisors.pids, l.cmd.Process.Pid)
		liveSupervisors.Unlock()
	}
	return pid, err
}

// readPid reads the supervisor's report up to the agent's pid.
func (l *launch) readPid() (int, error) {
	for {
		line, err := l.lines.ReadString('\n')
		verb, arg, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		switch verb {
		case "confined":
			l.contained = arg
		case "measure":
			l.measures = append(l.measures, arg)
		case "pid":
			pid, perr := strconv.Atoi(arg)
			if perr != nil || pid <= 0 {
				return 0, fmt.Errorf("supervisor: bad pid line %q", line)
			}
			return pid, nil
		case "error":
			l.status.Close()
			return 0, errors.New(arg)
		}
		if err != nil {
			l.status.Close()
			return 0, errors.New("the agent supervisor ended before starting the agent")
		}
	}
}

// finish reads the rest of the supervisor's report once it has exited: how the
// agent ended and the writes seen outside scratch.
func (l *launch) finish(ps *os.ProcessState, werr error) (Exit, []string) {
	defer l.status.Close()
	var escapes []string
	ex := Exit{Code: -1}
	reported := false
	for {
		line, err := l.lines.ReadString('\n')
		verb, arg, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		switch verb {
		case "write":
			escapes = append(escapes, arg)
		case "exit":
			var code, sig int
			if _, serr := fmt.Sscanf(arg, "%d %d", &code, &sig); serr == nil {
				reported = true
				ex = Exit{Code: code}
				if sig != 0 {
					ex = Exit{Code: -1, Signal: signalName(syscall.Signal(sig))}
				}
			}
		}
		if err != nil {
			break
		}
	}
	liveSupervisors.Lock()
	delete(liveSupervisors.pids, l.cmd.Process.Pid)
	liveSupervisors.Unlock()
	if !reported {
		// Killed (by the agent?): what the agent started is the harness's now.
		sweepOrphans()
		sup := exitOf(ps, werr)
		ex = Exit{Code: -1, Signal: sup.Signal, Err: fmt.Errorf("the agent supervisor ended without reporting the agent's exit (supervisor: code %d %s)", sup.Code, sup.Signal)}
	}
	return ex, escapes
}

var (
	launcherOnce sync.Once
	launcherCh   chan func()
)

// startOnLauncherThread starts cmd from one OS thread that never exits: Pdeathsig
// fires when the thread that forked the child exits, not the process.
func startOnLauncherThread(cmd *exec.Cmd) error {
	launcherOnce.Do(func() {
		launcherCh = make(chan func())
		go func() {
			runtime.LockOSThread()
			for f := range launcherCh {
				f()
			}
		}()
	})
	errc := make(chan error, 1)
	launcherCh <- func() { errc <- cmd.Start() }
	return <-errc
}

// policyConfig is the confiner's configuration of one launch, computed in the
// harness (its working directory and home are the user's).
func policyConfig(spec Spec, env []string, pol Policy) confineConfig {
	path, _ := lookPath(spec.Args[0], env, spec.Dir)
	read := append(readAllowlist(spec.Args, env, path), pol.AllowRead...)
	ports := append([]int(nil), pol.BindPorts...)
	connect := append(append([]int(nil), DefaultConnectPorts...), pol.ConnectPorts...)
	for _, kv := range spec.Env {
		k, v, _ := strings.Cut(kv, "=")
		if k == listenEnv {
			if _, p, err := net.SplitHostPort(v); err == nil {
				if n, err := strconv.Atoi(p); err == nil {
					ports = append(ports, n)
					connect = append(connect, n)
				}
			}
			continue
		}
		// The harness's servers (the aos guardian) are reachable.
		if u, err := url.Parse(v); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Port() != "" {
			if n, err := strconv.Atoi(u.Port()); err == nil {
				connect = append(connect, n)
			}
		}
	}
	sort.Ints(connect)
	connect = slices.Compact(connect)
	readAll := false
	for _, p := range pol.AllowRead {
		if filepath.Clean(p) == "/" {
			readAll = true
		}
	}
	// Relative paths are the user's, from the harness's working directory.
	return confineConfig{Read: absAll(read), Write: absAll(pol.AllowWrite), Deny: resolveAll(defaultDeny(pol)), ReadAll: readAll || pol.ReadAll,
		BindPorts: ports, ConnectPorts: connect, ConnectAll: pol.ConnectAll, Limits: pol.Limits.withDefaults()}
}

// listenEnv is the variable by which the harness tells an implementation where to
// listen (the aos guardian side): its port is the one TCP bind allowed.
const listenEnv = "AOPKIT_LISTEN"

func absAll(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if a, err := filepath.Abs(p); err == nil {
			out = append(out, a)
		}
	}
	return out
}
