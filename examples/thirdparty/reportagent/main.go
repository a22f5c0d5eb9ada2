package reportagent

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Main runs the agent as a process: the task on stdin, the report on stdout, the
// details under the working directory; three seconds of work, cut short by SIGTERM
// (then it exits 0 at once). It returns the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := Run(ctx, os.Stdin, os.Stdout, ".", time.Now, 3*time.Second); err != nil {
		if ctx.Err() != nil {
			return 0
		}
		fmt.Fprintln(os.Stderr, "reportagent:", err)
		return 1
	}
	return 0
}
