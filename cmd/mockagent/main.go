// Command mockagent is the reference agent of aopkit: correct by default for each
// protocol, and able to break one rule at a time with --fault NAME.
package main

import (
	"io"
	"os"

	mockagentcmd "github.com/aopkit/aopkit/internal/cmd/mockagent"
)

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mockagentcmd.Run(args, stdin, stdout, stderr)
}
