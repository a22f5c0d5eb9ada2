package mockagentcmd

import (
	"context"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/aopkit/aopkit/mockagent"
)

// host is what the command sees of its process: the operating system's
// (osHost), or, in-process (RunInProcess), what agentio.Func gives a program.
type host struct {
	getenv  func(string) string
	environ []string
	args    []string // the command line, recorded in the observation's start
	dir     string
	// pid is 0 for a process of its own; in-process, the Program's PID.
	pid int
	// signals delivers the names of the signals the agent gets; stop ends it.
	signals func() (<-chan string, func())
	// watch records the end of the orchestrator under test (watch.go).
	watch func(obs *mockagent.Observer, pidFile string, done <-chan struct{})
	// killed, in-process, is closed when the agent is killed (SIGKILL).
	killed <-chan struct{}
}

func (h host) wasKilled() bool {
	if h.killed == nil {
		return false
	}
	select {
	case <-h.killed:
		return true
	default:
		return false
	}
}

func osHost() host {
	dir, _ := os.Getwd()
	return host{getenv: os.Getenv, environ: os.Environ(), args: os.Args, dir: dir,
		signals: func() (<-chan string, func()) {
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
			names := make(chan string, 1)
			stop := make(chan struct{})
			go func() {
				for {
					select {
					case s := <-sigs:
						select {
						case names <- signalName(s):
						case <-stop:
							return
						}
					case <-stop:
						return
					}
				}
			}()
			return names, func() { signal.Stop(sigs); close(stop) }
		},
		watch: watchOrchestrator,
	}
}

// Proc is what an agent run by RunInProcess sees of its process: the fields of
// conform/agentio's Program (this package does not import agentio, which
// builds on Unix only, as mockagent builds everywhere).
type Proc struct {
	Dir    string
	PID    int
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Term   <-chan struct{}
}

// RunInProcess runs the mockagent command line args (args[0] the program, as
// os.Args) as the program p of agentio.Func, and returns its exit code: the
// agent command an orchestrator under test launches, played in a goroutine
// (cmd/aopconform's tests, on virtual time). env is its environment (KEY=VALUE: the orchestrator's and
// the launch's). SIGTERM is p.Term, SIGKILL the cancelled ctx (the
// observation then ends without an exit record, as a killed process's does).
// --watch-orchestrator is not read: orchestratorPID and orchestratorDone (closed
// when the orchestrator under test has ended) stand for it.
func RunInProcess(ctx context.Context, p Proc, args, env []string, orchestratorPID int, orchestratorDone <-chan struct{}) int {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	h := host{
		getenv:  func(k string) string { return vars[k] },
		environ: slices.Clone(env),
		args:    slices.Clone(args),
		dir:     p.Dir,
		pid:     p.PID,
		signals: func() (<-chan string, func()) {
			names := make(chan string, 1)
			go func() {
				select {
				case <-p.Term:
					names <- signalName(syscall.SIGTERM)
				case <-ctx.Done():
				}
			}()
			return names, func() {}
		},
		watch: func(obs *mockagent.Observer, _ string, done <-chan struct{}) {
			if obs == nil || orchestratorDone == nil {
				return
			}
			obs.Orchestrator(orchestratorPID, false)
			go func() {
				select {
				case <-orchestratorDone:
					obs.Orchestrator(orchestratorPID, true)
				case <-done:
				}
			}()
		},
		killed: ctx.Done(),
	}
	return exitFor(newApp(p.Stdin, p.Stdout, p.Stderr, h).RunContext(ctx, args), p.Stderr)
}
