// Command aoplint lints messages, transcripts and data directories of the five
// agent-orchestration protocols: aop2, aos, aop-output, aof and orchmsg.
package main

import (
	"io"
	"os"

	aoplintcmd "github.com/aopkit/aopkit/internal/cmd/aoplint"
)

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return aoplintcmd.Run(args, stdin, stdout, stderr)
}
