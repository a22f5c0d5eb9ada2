package agentio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock's TCP rules judge TCP sockets; a Multipath TCP socket (Go's default for
// net.Listen since Go 1.24) binds past them on kernels that do not treat it as
// TCP. The confiner therefore refuses socket(..., IPPROTO_MPTCP) with
// EPROTONOSUPPORT, on which programs (Go's net package among them) fall back to
// plain TCP, which Landlock judges.

const ipprotoMPTCP = 262

// refuseMPTCP installs the filter on the calling thread (the one that execs); the
// no-new-privileges bit it needs is set first.
func refuseMPTCP() error {
	if seccompArch == 0 {
		return errNoSeccompArch
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	refuse := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPROTONOSUPPORT)
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4}, // arch
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: seccompArch, Jt: 0, Jf: 5},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // syscall number
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: seccompSocket, Jt: 0, Jf: 3},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 32}, // args[2], low half
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: ipprotoMPTCP, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: refuse},
		{Code: unix.BPF_RET | unix.BPF_K, K: allow},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}

var errNoSeccompArch = errorString("no seccomp filter for this architecture")

type errorString string

func (e errorString) Error() string { return string(e) }
