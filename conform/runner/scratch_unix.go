//go:build unix

package runner

import (
	"os"
	"syscall"
)

// lockFile takes f's exclusive lock without waiting (an error when another
// open file holds it: its run is alive).
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}

func ownedByMe(f *os.File) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Getuid()
}

// mineDir: path is a directory (not a link to one) of this user.
func mineDir(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Getuid()
}
