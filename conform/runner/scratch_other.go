//go:build !unix

package runner

import (
	"errors"
	"os"
)

// Without flock, no lock tells a live run from a dead one: stale scratch
// directories are left alone.
func lockFile(*os.File) error { return errors.New("no file locks on this system") }

func ownedByMe(*os.File) bool { return false }

func mineDir(string) bool { return false }
