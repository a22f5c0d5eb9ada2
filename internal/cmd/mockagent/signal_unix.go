//go:build unix

package mockagentcmd

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalName is a signal's name as --observe records it: SIGTERM, SIGINT.
func signalName(s os.Signal) string {
	if ss, ok := s.(syscall.Signal); ok {
		if n := unix.SignalName(ss); n != "" {
			return n
		}
	}
	return s.String()
}
