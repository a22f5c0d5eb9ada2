// Command mockagent is the reference agent of aopkit: correct by default for each
// protocol, and able to break one rule at a time with --fault NAME.
package main

import (
	"os"

	mockagentcmd "github.com/aopkit/aopkit/internal/cmd/mockagent"
)

// run is the command, as main and the tests call it.
var run = mockagentcmd.Run

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
