package mockagentcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/internal/clikit"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/all"
)

// Flag names.
const (
	flagProtocol = "protocol"
	flagFault    = "fault"
	flagObserve  = "observe"
	flagWatch    = "watch-orchestrator"
)

// faultIgnoreShutdown is the fault under which the process ignores SIGTERM.
const faultIgnoreShutdown = "ignore-shutdown"

// config is what the root action needs, decoded from the flags.
type config struct {
	Protocol string
	Fault    string
	Verbose  bool
	Args     []string
	// Observe is --observe DIR: record what the agent saw in DIR (observe.go).
	Observe string
	// Watch is --watch-orchestrator FILE: the file that holds the PID of the
	// orchestrator under test, whose end the observation records (watch.go).
	Watch string
}

// usageError is a command-line mistake: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitCode carries the agent's own exit code out of the cli action.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr, osHost())
	// Completion offers the protocols and the faults.
	clikit.CompleteValues(app, args, map[string]clikit.Values{
		flagProtocol: mockagent.Protocols,
		flagFault: func() []string {
			set := map[string]bool{}
			for _, p := range mockagent.Protocols() {
				a, _ := mockagent.Lookup(p)
				for _, f := range a.Faults.List() {
					set[f.Name] = true
				}
			}
			return slices.Sorted(maps.Keys(set))
		},
		"faults format": func() []string { return []string{"text", "json"} },
	}, nil)
	return exitFor(app.Run(args), stderr)
}

// exitFor is the exit code of the app's run that ended with err.
func exitFor(err error, stderr io.Writer) int {
	var code exitCode
	var uerr usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &uerr):
		fmt.Fprintln(stderr, "mockagent:", uerr.msg)
		return 2
	default:
		fmt.Fprintln(stderr, "mockagent:", err)
		return 2
	}
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, h host) *cli.App {
	app := &cli.App{
		Name:           "mockagent",
		Usage:          "the reference agent of aopkit: correct by default, one fault at a time",
		UsageText:      "mockagent --protocol ID [--fault NAME] [ARGS...]\n   mockagent faults [--protocol ID] [--format json]",
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagProtocol, Usage: "protocol to play: " + strings.Join(mockagent.Protocols(), ", ")},
			&cli.StringFlag{Name: flagFault, Usage: "break one rule (see mockagent faults)"},
			clikit.VerboseFlag("say on stderr what is played and how it ended"),
			&cli.StringFlag{Name: flagObserve, Usage: "write what the agent receives, sends, the signals it gets and its exit to a new file in `DIR` (orchestrator-side certification)"},
			&cli.StringFlag{Name: flagWatch, Usage: "with --observe: record when the process whose PID `FILE` holds (the orchestrator under test) ends"},
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageError{err.Error() + " " + clikit.UsageHint(c)}
		},
		Action: func(c *cli.Context) error {
			cfg := config{Protocol: c.String(flagProtocol), Fault: c.String(flagFault), Verbose: c.Bool("verbose"), Args: c.Args().Slice(), Observe: c.String(flagObserve), Watch: c.String(flagWatch)}
			return runAgent(c.Context, cfg, h, stdin, stdout, stderr)
		},
		Commands: []*cli.Command{{
			Name:  "faults",
			Usage: "list the faults: <protocol> <fault>  <rule it breaks>",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: flagProtocol, Usage: "only this protocol"},
				&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"},
			},
			OnUsageError: func(c *cli.Context, err error, _ bool) error {
				return usageError{err.Error() + " " + clikit.UsageHint(c)}
			},
			Action: func(c *cli.Context) error {
				return listFaults(stdout, c.String(flagProtocol), c.String("format"))
			},
		}},
	}
	clikit.Setup(app)
	clikit.OnUsageErrors(app, app.OnUsageError) // completion and help too
	return app
}

// agentFor checks cfg against the registry.
func agentFor(cfg config) (*mockagent.Agent, error) {
	if cfg.Protocol == "" {
		return nil, usageError{fmt.Sprintf("--protocol is required (one of %v)", mockagent.Protocols())}
	}
	a, err := mockagent.Lookup(cfg.Protocol)
	if err != nil {
		return nil, usageError{fmt.Sprintf("unknown protocol %q (known: %v)", cfg.Protocol, mockagent.Protocols())}
	}
	if cfg.Fault != "" && !a.HasFault(cfg.Fault) {
		return nil, usageError{fmt.Sprintf("protocol %s has no fault %q (see `mockagent faults --protocol %s`)", cfg.Protocol, cfg.Fault, cfg.Protocol)}
	}
	return a, nil
}

func runAgent(parent context.Context, cfg config, h host, stdin io.Reader, stdout, stderr io.Writer) error {
	a, err := agentFor(cfg)
	if err != nil {
		return err
	}
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	obs, err := observe(cfg, h, &stdin, &stdout)
	if err != nil {
		return err
	}
	h.watch(obs, cfg.Watch, ctx.Done())
	sigs, stopSignals := h.signals()
	defer stopSignals()
	go func() {
		for {
			select {
			case sig := <-sigs:
				if obs != nil {
					obs.Signal(sig)
				}
				if cfg.Fault != faultIgnoreShutdown {
					cancel()
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	dir := h.dir
	if cfg.Verbose {
		fault := cfg.Fault
		if fault == "" {
			fault = "none (correct agent)"
		}
		fmt.Fprintf(stderr, "mockagent: playing %s, fault %s\n", cfg.Protocol, fault)
	}
	code := a.Run(ctx, mockagent.Env{
		Stdin: stdin, Stdout: stdout, Stderr: stderr,
		Getenv: h.getenv, Dir: dir, Args: cfg.Args, Clock: clock.Real{},
	}, cfg.Fault)
	if cfg.Verbose {
		fmt.Fprintf(stderr, "mockagent: %s done, exit %d\n", cfg.Protocol, code)
	}
	if obs != nil {
		if h.wasKilled() {
			obs.Killed()
		} else {
			obs.Exit(code)
		}
	}
	if code != 0 {
		return exitCode(code)
	}
	return nil
}

// faultJSON is one fault of `mockagent faults --format json`.
type faultJSON struct {
	Protocol string `json:"protocol"`
	Fault    string `json:"fault"`
	Rule     string `json:"rule"`
	Doc      string `json:"doc"`
}

// listFaults prints the faults sorted by protocol and name: a table (protocol, fault,
// the rule or check it breaks) or a JSON array.
func listFaults(w io.Writer, protocol, format string) error {
	if format != "text" && format != "json" {
		return usageError{fmt.Sprintf("unknown --format %q for faults: want text or json", format)}
	}
	protocols := mockagent.Protocols()
	if protocol != "" {
		if _, err := mockagent.Lookup(protocol); err != nil {
			return usageError{fmt.Sprintf("unknown protocol %q (known: %v)", protocol, protocols)}
		}
		protocols = []string{protocol}
	}
	list := []faultJSON{}
	for _, p := range protocols {
		a, _ := mockagent.Lookup(p)
		for _, f := range a.Faults.List() {
			list = append(list, faultJSON{Protocol: p, Fault: f.Name, Rule: f.Rule, Doc: f.Doc})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Protocol != list[j].Protocol {
			return list[i].Protocol < list[j].Protocol
		}
		return list[i].Fault < list[j].Fault
	})
	if format == "json" {
		return clikit.WriteJSON(w, list)
	}
	t := clikit.Table{Header: []string{"PROTOCOL", "FAULT", "BREAKS"}}
	for _, f := range list {
		t.Rows = append(t.Rows, []string{f.Protocol, f.Fault, f.Rule})
	}
	return t.Render(w)
}
