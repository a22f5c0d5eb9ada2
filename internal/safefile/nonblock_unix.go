//go:build unix

package safefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// openFlags: never block on a FIFO nor take a terminal.
const openFlags = unix.O_NONBLOCK | unix.O_NOCTTY

// noFollow: refuse a symbolic link as the last element of the path.
const noFollow = unix.O_NOFOLLOW

func clearNonblock(f *os.File) error {
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	_, err = unix.FcntlInt(f.Fd(), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	return err
}
