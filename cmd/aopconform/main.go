// Command aopconform certifies an agent binary: it spawns the agent, plays the
// orchestrator side of a protocol through scripted scenarios, lints every message
// the agent sends and scores the result.
package main

import (
	"io"
	"os"

	"github.com/aopkit/aopkit/conform/agentio"
	aopconformcmd "github.com/aopkit/aopkit/internal/cmd/aopconform"
)

func main() {
	// First: aopconform is also the agents' supervisor (agentio.Main).
	agentio.Main()
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int { return aopconformcmd.Run(args, stdout, stderr) }
