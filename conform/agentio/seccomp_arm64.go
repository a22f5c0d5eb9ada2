//go:build linux

package agentio

import "golang.org/x/sys/unix"

const (
	seccompArch   = unix.AUDIT_ARCH_AARCH64
	seccompSocket = unix.SYS_SOCKET
)
