//go:build !unix

package mockagentcmd

import "os"

// signalName is a signal's name as --observe records it (x/sys/unix's names are
// for unix only: Windows, where mockagent is built for the release too, has the
// signal's own text).
func signalName(s os.Signal) string { return s.String() }
