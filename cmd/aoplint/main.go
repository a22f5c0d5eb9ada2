// Command aoplint lints messages, transcripts and data directories of the five
// agent-orchestration protocols: aop2, aos, aop-output, aof and orchmsg.
package main

import (
	"os"

	aoplintcmd "github.com/aopkit/aopkit/internal/cmd/aoplint"
)

// run is the command, as main and the tests call it.
var run = aoplintcmd.Run

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
