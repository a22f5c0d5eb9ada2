//go:build !linux

package agentio

import (
	"os"
	"os/exec"
	"syscall"
)

// Off Linux there is no supervisor (no subreaper, Pdeathsig or Landlock): the agent
// is started directly in its own process group, and the rest of the group is
// killed when it exits.

var supervisorAvailable bool

// Main does nothing off Linux.
func Main() {}

// LandlockABI is 0 off Linux.
func LandlockABI() int { return 0 }

type launch struct {
	cmd       *exec.Cmd
	status    *os.File
	contained string
	measures  []string
}

func newLaunch(spec Spec, env []string, _ bool, _ Policy) (*launch, error) {
	cmd := exec.Command(spec.Args[0], spec.Args[1:]...)
	cmd.Dir, cmd.Env = spec.Dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &launch{cmd: cmd, contained: "none: no supervisor on this system"}, nil
}

func (l *launch) abort()                      {}
func (l *launch) started() (int, error)       { return l.cmd.Process.Pid, nil }
func startOnLauncherThread(c *exec.Cmd) error { return c.Start() }

func (l *launch) finish(ps *os.ProcessState, err error) (Exit, []string) {
	return exitOf(ps, err), nil
}

// pipePending cannot tell off Linux: the pipes are closed after the grace.
func pipePending(*os.File) (int, bool) { return 0, false }
