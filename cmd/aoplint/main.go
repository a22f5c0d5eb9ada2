// Command aoplint lints messages, transcripts and data directories of the five
// agent-orchestration protocols: aop2, aos, aop-output, aof and orchmsg.
package main

import "os"

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
