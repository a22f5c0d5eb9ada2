// Package mockagentcmd is the mockagent command line: cmd/mockagent's main calls Run,
// and the testscript kit (package pkg/testkit) registers it as a testscript command.
package mockagentcmd

import "io"

// Run runs mockagent with args (args[0] is the program name) on the given streams and
// returns the exit code: 0 done, 1 the agent failed, 2 usage error.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr)
}
