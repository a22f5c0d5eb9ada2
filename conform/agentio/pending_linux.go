package agentio

import (
	"os"

	"golang.org/x/sys/unix"
)

// InputPending reports how many bytes written to the agent's stdin it has not
// read yet (FIONREAD on the pipe, which works on its write end); ok is false when it cannot tell (stdin
// closed). The harness's time model reads it: an agent that read its task has
// started.
func (c *ProcessConn) InputPending() (n int, ok bool) {
	c.mu.Lock()
	closed := c.inClosed
	c.mu.Unlock()
	if closed {
		return 0, false
	}
	raw, err := c.stdin.SyscallConn()
	if err != nil {
		return 0, false
	}
	var ierr error
	// TIOCINQ is FIONREAD on Linux.
	ctl := func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }
	if err := raw.Control(ctl); err != nil || ierr != nil {
		return 0, false
	}
	return n, true
}

// pipePending reports how many bytes are waiting in the pipe whose read end is f.
func pipePending(f *os.File) (n int, ok bool) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	var ierr error
	if err := raw.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ierr != nil {
		return 0, false
	}
	return n, true
}
