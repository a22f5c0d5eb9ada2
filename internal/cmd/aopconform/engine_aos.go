package aopconformcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	engaos "github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/conform/orchside"
)

// engineAOS is `aopconform engine --protocol aos`: the reference guardian
// (conform/engine/aos Guardian, the one the agent side is measured with) served
// standalone where the binding says, $AOPKIT_LISTEN (or --listen), answering
// POSTs to http://ADDR/ until it is sent SIGTERM or SIGINT, or --deadline
// passes; then it exits 0. --policy FILE decides the tool calls (default: allow
// everything); --fault plays one of the guardian's faults.
func engineAOS(ctx context.Context, cfg engineConfig, stderr io.Writer) error {
	fail := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "aopconform engine: "+format+"\n", a...)
		return exitCode(exitHarness)
	}
	switch {
	case cfg.Transcript != "":
		return fail("--transcript: the aos engine keeps no transcript of its own (aopconform run --side orchestrator --protocol aos records every exchange)")
	case cfg.Task != "":
		return fail("--task: the aos engine takes no task (its tool-call decisions come from --policy)")
	case len(cfg.Command) > 0:
		return fail("the aos engine launches no agent: the agent calls it (got %q after --)", cfg.Command)
	}
	addr := cfg.Listen
	if addr == "" {
		addr = os.Getenv(orchside.EnvListen)
	}
	if addr == "" {
		return fail("no address: give --listen HOST:PORT or set %s", orchside.EnvListen)
	}
	policy := engaos.DefaultPolicy()
	if cfg.Policy != "" {
		p, err := engaos.LoadPolicy(cfg.Policy)
		if err != nil {
			return fail("--policy: %v", err)
		}
		policy = p
	}
	g := engaos.NewGuardian(policy)
	g.Fault = cfg.Fault
	ctx, cancel := context.WithTimeout(ctx, cfg.Deadline)
	defer cancel()
	if cfg.Fault == engaos.FaultNoListen {
		// The fault: the guardian ends without ever listening where the binding says.
		fmt.Fprintf(stderr, "aopconform engine: fault %s: not listening at %s\n", cfg.Fault, addr)
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fail("listen: %v", err)
	}
	srv := g.ServeOn(ln, "/")
	fmt.Fprintf(stderr, "aopconform engine: aos guardian listening at %s\n", srv.URL)
	select {
	case <-ctx.Done():
	case err := <-srv.Stopped():
		if !errors.Is(err, http.ErrServerClosed) {
			return fail("serve: %v", err)
		}
	}
	srv.Shutdown(time.Second)
	return nil
}
