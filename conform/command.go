package conform

import (
	"path/filepath"
	"strings"
)

// FileArg reports whether argument i of an implementation's command line is
// read as a path from aopconform's working directory when something exists
// there: the runner makes such an argument absolute before the implementation
// starts in its scratch directory, and provenance records the regular files
// among them (a certificate binds the script of `python3 agent.py`). Not an
// empty argument, a flag ("-" first), or the program of argument 0 when it has
// no slash (looked up in $PATH).
func FileArg(i int, a string) bool {
	switch {
	case a == "" || strings.HasPrefix(a, "-"):
		return false
	case i == 0:
		return strings.ContainsRune(a, filepath.Separator)
	}
	return true
}
