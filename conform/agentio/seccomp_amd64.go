//go:build linux

package agentio

import "golang.org/x/sys/unix"

const (
	seccompArch   = unix.AUDIT_ARCH_X86_64
	seccompSocket = unix.SYS_SOCKET
)
