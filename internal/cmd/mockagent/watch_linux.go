package mockagentcmd

import (
	"golang.org/x/sys/unix"
)

// waitPID returns a channel closed when process pid ends (a pidfd: told at
// once, not polled); ok is false when pid cannot be watched (gone already, or
// a kernel without pidfd_open).
func waitPID(pid int) (<-chan struct{}, bool) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, false
	}
	ch := make(chan struct{})
	go func() {
		defer unix.Close(fd)
		for {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return // cannot tell: never reported as ended
			}
			if n > 0 {
				close(ch)
				return
			}
		}
	}()
	return ch, true
}
