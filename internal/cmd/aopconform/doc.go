// Package aopconformcmd is the aopconform command line: cmd/aopconform's main calls
// Run, and the testscript kit (package pkg/testkit) registers it as a testscript command.
package aopconformcmd

import "io"

// Run runs aopconform with args (args[0] is the program name) and returns the exit
// code: 0 every MUST passed, 1 a MUST failed, 2 usage or harness error.
func Run(args []string, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }
