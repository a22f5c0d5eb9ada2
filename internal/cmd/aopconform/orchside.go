package aopconformcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/fault"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/conform/protocols"
	"github.com/aopkit/aopkit/conform/runner"
	"github.com/aopkit/aopkit/internal/clikit"
)

// Flags of the orchestrator side.
const (
	flagSide      = "side"
	flagMockagent = "mockagent"
)

// sideFlags are the flags `aopconform run` gets for the orchestrator side.
func sideFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagSide, Value: orchside.SideAgent, Usage: "the side under test, `SIDE`: agent, or orchestrator (the command after -- is an orchestrator that launches $AOPKIT_AGENT; docs/orchestrator-side.md)"},
		&cli.StringFlag{Name: flagMockagent, Usage: "with --side orchestrator: the mockagent `PROGRAM` the orchestrator launches", DefaultText: "the mockagent next to aopconform, else mockagent on PATH"},
	}
}

// orchestratorSide reports whether the run certifies an orchestrator.
func (cfg runConfig) orchestratorSide() bool { return cfg.Side == orchside.SideOrchestrator }

// validateSide checks --side and --mockagent.
func (cfg runConfig) validateSide() error {
	switch cfg.Side {
	case "", orchside.SideAgent:
		if cfg.Mockagent != "" {
			return usageError{"--mockagent applies to --side orchestrator only"}
		}
		return nil
	case orchside.SideOrchestrator:
	default:
		return usageError{fmt.Sprintf("--side %q: want agent or orchestrator", cfg.Side)}
	}
	for _, p := range orchside.Protocols() {
		if p == cfg.Protocol {
			return nil
		}
	}
	msg := fmt.Sprintf("--side orchestrator: protocol %s has no orchestrator-side scenarios yet (%s have)", cfg.Protocol, strings.Join(orchside.Protocols(), ", "))
	return usageError{msg}
}

// sideScenarios loads the scenarios of the side under test.
func (cfg runConfig) sideScenarios() ([]*conform.Scenario, error) {
	if !cfg.orchestratorSide() {
		return loadScenarios(cfg.Scenarios, cfg.Builtin)
	}
	var all []*conform.Scenario
	if cfg.Builtin {
		ss, err := orchside.Builtin()
		if err != nil {
			return nil, fmt.Errorf("built-in orchestrator-side scenarios: %w", err)
		}
		all = append(all, ss...)
	}
	seen := map[string]string{}
	for _, s := range all {
		seen[s.ID] = s.Source
	}
	for _, d := range cfg.Scenarios {
		ss, err := conform.LoadScenarioDir(d)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		for _, s := range ss {
			if prev, dup := seen[s.ID]; dup {
				return nil, usageError{fmt.Sprintf("scenario id %q is defined twice (%s and %s)", s.ID, prev, s.Source)}
			}
			seen[s.ID] = s.Source
		}
		all = append(all, ss...)
	}
	return all, nil
}

// sideOptions sets the runner options of the orchestrator side.
func (cfg runConfig) sideOptions(opts *runner.Options) error {
	if !cfg.orchestratorSide() {
		return nil
	}
	mock := ""
	if orchside.NeedsMockagent(cfg.Protocol) || cfg.Mockagent != "" {
		m, err := findMockagent(cfg.Mockagent)
		if err != nil {
			return err
		}
		mock = m
	}
	opts.Driver = orchside.Driver(mock)
	opts.Judged = orchside.Judged
	opts.RerunArgs = append([]string{"--" + flagSide, orchside.SideOrchestrator}, opts.RerunArgs...)
	if cfg.Mockagent != "" {
		opts.RerunArgs = append(opts.RerunArgs, "--"+flagMockagent, cfg.Mockagent)
	}
	return nil
}

// findMockagent resolves the mockagent program to an absolute path: the flag,
// else the mockagent next to this executable, else mockagent on PATH.
func findMockagent(flag string) (string, error) {
	exeDir := ""
	if exe, err := os.Executable(); err == nil {
		exeDir = filepath.Dir(exe)
	}
	return findMockagentFrom(flag, exeDir)
}

// findMockagentFrom is findMockagent with the executable's directory given.
func findMockagentFrom(flag, exeDir string) (string, error) {
	if flag != "" {
		p, err := exec.LookPath(flag)
		if err != nil {
			return "", usageError{fmt.Sprintf("--mockagent %s: %v", flag, err)}
		}
		return filepath.Abs(p)
	}
	// The mockagent built or installed with this aopconform (make build and go
	// install put them side by side) comes first: an older one earlier on PATH
	// lacks the cues and observations this aopconform's scenarios need.
	if exeDir != "" {
		p := filepath.Join(exeDir, "mockagent")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath("mockagent"); err == nil {
		return filepath.Abs(p)
	}
	return "", usageError{"--side orchestrator needs mockagent (the agent the orchestrator launches): put it on PATH or give --mockagent PATH"}
}

// lookupEngineFault reports whether protocol's engine has the fault
// (protocols.Protocol.EngineFaults).
func lookupEngineFault(protocol, name string) bool {
	if p := protocols.Lookup(protocol); p != nil && p.EngineFaults != nil {
		return fault.Lookup(p.EngineFaults(), name) != nil
	}
	return false
}

// maxTaskFile bounds the task file the engine reads.
const maxTaskFile = 16 << 20

// engineCommand is `aopconform engine`: the reference engine as a standalone
// orchestrator, so that the orchestrator side can certify it (and show its
// faults).
func engineCommand(stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) *cli.Command {
	return &cli.Command{
		Name:      "engine",
		Usage:     "run the reference orchestrator on one task: it launches the agent, enforces the task's policy and exits (certified by run --side orchestrator)",
		UsageText: "aopconform engine --protocol ID [--task FILE] [--fault NAME] [--transcript FILE] [--deadline D] [-- AGENT-CMD [ARGS...]]\n   (the task defaults to $AOPKIT_TASK, the agent command to $AOPKIT_AGENT)\n   aopconform engine --protocol aos [--listen HOST:PORT] [--policy FILE] [--fault NAME] [--deadline D]\n   (the reference guardian, served at http://$AOPKIT_LISTEN/)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagProtocol, Usage: "protocol: " + strings.Join(orchside.Protocols(), ", ")},
			&cli.StringFlag{Name: "task", Usage: "the task to orchestrate (aop2: a TASK envelope; aop-output: {\"input\": TASK-LINE, \"workspace\": DIR}) from `FILE`", DefaultText: "$" + orchside.EnvTask},
			&cli.StringFlag{Name: "fault", Usage: "play one fault of the engine on purpose (aopconform engine-faults lists them)"},
			&cli.StringFlag{Name: "transcript", Usage: "write the engine's transcript (transcript/1) to `FILE`"},
			&cli.DurationFlag{Name: "deadline", Value: 5 * time.Minute, Usage: "stop the agent and give up after `D`"},
			&cli.StringFlag{Name: "listen", Usage: "aos: serve the guardian at `HOST:PORT`", DefaultText: "$" + orchside.EnvListen},
			&cli.StringFlag{Name: "policy", Usage: "aos: the guardian's tool-call policy `FILE` (docs/engine-aos.md)", DefaultText: "allow everything"},
		},
		OnUsageError: usage,
		Action: func(c *cli.Context) error {
			return engineCmd(c.Context, engineConfig{
				Protocol: c.String(flagProtocol), Task: c.String("task"), Fault: c.String("fault"),
				Transcript: c.String("transcript"), Deadline: c.Duration("deadline"), Command: c.Args().Slice(),
				Listen: c.String("listen"), Policy: c.String("policy"),
			}, stdout, stderr)
		},
	}
}

// engineFaultsCommand is `aopconform engine-faults`: the faults of the reference
// engines, one a line: protocol, fault, what it does, the checks its
// orchestrator-side run fails (comma-separated) and whether that is exactly
// those ("exact") or at least those ("at-least"); tab-separated fields.
func engineFaultsCommand(stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) *cli.Command {
	return &cli.Command{
		Name:      "engine-faults",
		Usage:     "list the faults the reference engine plays on purpose (aopconform engine --fault NAME)",
		UsageText: "aopconform engine-faults [--protocol ID] [--format text|json]",
		Flags: []cli.Flag{
			protocolFilterFlag(),
			formatFlag("text or json"),
		},
		OnUsageError: usage,
		Action: func(c *cli.Context) error {
			protocol, format := c.String(flagProtocol), c.String(flagFormat)
			if err := textOrJSON(format, "engine-faults", stderr); err != nil {
				return err
			}
			if err := anyProtocol(protocol, stderr); err != nil {
				return err
			}
			list := []engineFaultJSON{}
			for _, p := range protocols.List {
				if (protocol != "" && p.ID != protocol) || p.EngineFaults == nil {
					continue
				}
				for _, ef := range p.EngineFaults() {
					list = append(list, engineFaultJSON{Protocol: p.ID, Fault: ef.Name, Doc: ef.Doc, Fails: append([]string{}, ef.Fails...), Exact: ef.Exact})
				}
			}
			sort.Slice(list, func(i, j int) bool {
				a, b := list[i], list[j]
				return a.Protocol+"\t"+a.Fault+"\t"+a.Doc < b.Protocol+"\t"+b.Fault+"\t"+b.Doc
			})
			if format == "json" {
				return clikit.WriteJSON(stdout, list)
			}
			for _, l := range list {
				bound := "at-least"
				if l.Exact {
					bound = "exact"
				}
				fmt.Fprintln(stdout, l.Protocol+"\t"+l.Fault+"\t"+l.Doc+"\t"+strings.Join(l.Fails, ",")+"\t"+bound)
			}
			if len(list) == 0 {
				fmt.Fprintln(stderr, "aopconform: no engine faults (yet)")
			}
			return nil
		},
	}
}

// engineFaultJSON is one fault of `aopconform engine-faults --format json`.
type engineFaultJSON struct {
	Protocol string `json:"protocol"`
	Fault    string `json:"fault"`
	Doc      string `json:"doc"`
	// Fails are the orchestrator-side checks the fault's run fails, exactly
	// (Exact) or at least (fault.Fault.Fails, fault.Fault.Exact).
	Fails []string `json:"fails"`
	Exact bool     `json:"exact"`
}

type engineConfig struct {
	Protocol, Task, Fault, Transcript string
	Deadline                          time.Duration
	Command                           []string
	// Listen and Policy are the aos guardian's (engine_aos.go).
	Listen, Policy string
	// In-process (EngineProgram): the engine's environment, working directory
	// and the launcher of its agents; unset, the process's own and
	// agentio.Process.
	Getenv   func(string) string
	Dir      string
	Launcher agentio.Launcher
}

// engineEvents are the harness events an engine run by hand reports on stderr.
var engineEvents = map[conform.Event]bool{
	conform.EventSignal: true, conform.EventKill: true, conform.EventTimeout: true, conform.EventHeartbeatFailure: true,
	conform.EventAgentExit: true, conform.EventStaleHeartbeat: true, conform.EventDispatchChild: true, conform.EventDelegationRejected: true,
}

func engineCmd(ctx context.Context, cfg engineConfig, stdout, stderr io.Writer) error {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	fail := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "aopconform engine: "+format+"\n", a...)
		return exitCode(exitHarness)
	}
	drive, ok := runner.Driver(cfg.Protocol)
	if cfg.Protocol == "" || !ok {
		return fail("--protocol is required (one of %s)", strings.Join(conform.Protocols, ", "))
	}
	if cfg.Fault != "" {
		if !lookupEngineFault(cfg.Protocol, cfg.Fault) {
			return fail("the %s engine has no fault %q (aopconform engine-faults lists them)", cfg.Protocol, cfg.Fault)
		}
	}
	if cfg.Deadline <= 0 {
		return fail("--deadline must be positive")
	}
	if o := protocols.Lookup(cfg.Protocol).Orchestrate; o != nil {
		drive = o // rejecting a TASK is an orchestrator's decision
	}
	if protocols.Lookup(cfg.Protocol).Served {
		return engineAOS(ctx, cfg, stderr)
	}
	if cfg.Listen != "" || cfg.Policy != "" {
		return fail("--listen and --policy apply to --protocol aos only")
	}
	if cfg.Task == "" {
		cfg.Task = cfg.Getenv(orchside.EnvTask)
	}
	if cfg.Task == "" {
		return fail("no task: give --task FILE or set %s", orchside.EnvTask)
	}
	if len(cfg.Command) == 0 {
		if a := cfg.Getenv(orchside.EnvAgent); a != "" {
			cfg.Command = []string{a}
		}
	}
	if len(cfg.Command) == 0 {
		return fail("no agent command: give it after -- or set %s", orchside.EnvAgent)
	}
	if cfg.Dir != "" && !filepath.IsAbs(cfg.Task) {
		cfg.Task = filepath.Join(cfg.Dir, cfg.Task)
	}
	task, err := orchside.ReadBounded(cfg.Task, maxTaskFile)
	if err != nil {
		return fail("--task: %v", err)
	}
	cwd := cfg.Dir
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return fail("working directory: %v", err)
		}
	}
	scratch, task, err := engineTask(cfg.Protocol, task, cwd)
	if err != nil {
		return fail("--task: %v", err)
	}
	var tw io.Writer
	if cfg.Transcript != "" {
		f, err := runner.CreateNew(cfg.Transcript)
		if err != nil {
			return fail("--transcript: %v", err)
		}
		defer f.Close()
		tw = f
	}
	sc := &conform.Scenario{ID: "engine", Title: "the reference engine on " + filepath.Base(cfg.Task), Protocol: cfg.Protocol,
		Family: "engine", Deadline: conform.Duration(cfg.Deadline), Task: task}
	// An agent run in a workspace below the working directory (aop-output) may
	// write next to it too (the engine's own directory, where an orchestrator
	// side run keeps the agent's observations): not confined to the workspace.
	var launcher agentio.Launcher = agentio.Process{BaseEnv: os.Environ(), NoConfine: scratch != cwd}
	if cfg.Launcher != nil {
		launcher = cfg.Launcher
	}
	h := harness.New(ctx, harness.Config{Scenario: sc, Transcript: tw, Command: cfg.Command, Scale: 1, Scratch: scratch,
		EngineFault: cfg.Fault, Launcher: launcher, Emit: stdout, SpecTimers: true})
	if err := h.End(drive(h)); err != nil {
		return fail("%v", err)
	}
	if err := engineOutput(cfg.Protocol, h, stdout); err != nil {
		return fail("stdout: %v", err)
	}
	// What the engine decided, for whoever runs it by hand (stdout carries only
	// the protocol messages the engine emits: aop2 EVENTs; aop-output: the report
	// taken, one line).
	for _, r := range h.Session().Records {
		if r.From == conform.ActorHarness && engineEvents[r.Event] {
			d, _ := json.Marshal(r.Detail)
			fmt.Fprintf(stderr, "aopconform engine: attempt %d: %s %s\n", r.Attempt, r.Event, d)
		}
	}
	return nil
}

// orchScenarioJSON is one scenario of `aopconform list --side orchestrator`.
type orchScenarioJSON struct {
	ID       string `json:"id"`
	Protocol string `json:"protocol"`
	Family   string `json:"family"`
	Deadline string `json:"deadline"`
	Title    string `json:"title"`
	orchside.Info
	Checks []string `json:"checks"`
}

// listOrchestratorCmd lists the orchestrator-side scenarios: what each gives the
// orchestrator ($AOPKIT_TASK), how its agent behaves, its deadline and checks,
// so that an orchestrator can be written from the list alone.
func listOrchestratorCmd(protocol, format string, stdout, stderr io.Writer) error {
	if err := textOrJSON(format, "list", stderr); err != nil {
		return err
	}
	if protocol != "" && !slices.Contains(orchside.Protocols(), protocol) {
		fmt.Fprintf(stderr, "aopconform: protocol %q has no orchestrator side (one of %s)\n", protocol, strings.Join(orchside.Protocols(), ", "))
		return exitCode(exitHarness)
	}
	ss, err := orchside.Builtin()
	if err != nil {
		fmt.Fprintln(stderr, "aopconform:", err)
		return exitCode(exitHarness)
	}
	out := []orchScenarioJSON{}
	for _, s := range ss {
		if protocol != "" && s.Protocol != protocol {
			continue
		}
		out = append(out, orchScenarioJSON{ID: s.ID, Protocol: s.Protocol, Family: s.Family, Deadline: fmt.Sprint(s.Deadline.D(1)),
			Title: s.Title, Info: orchside.Describe(s), Checks: s.Checks})
	}
	if format == "json" {
		return clikit.WriteJSON(stdout, out)
	}
	var b strings.Builder
	for i, s := range out {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s  (%s, %s, deadline %s × --timeout-scale, from the orchestrator's first sign of life)\n", s.ID, s.Protocol, s.Family, s.Deadline)
		fmt.Fprintf(&b, "  %s\n", s.Title)
		fmt.Fprintf(&b, "  task ($AOPKIT_TASK): %s\n", s.Task)
		fmt.Fprintf(&b, "  agent cue: %s\n", s.Cue)
		if len(s.Setup) > 0 {
			fmt.Fprintf(&b, "  seeded files: %s\n", strings.Join(s.Setup, ", "))
		}
		fmt.Fprintf(&b, "  checks: %s\n", strings.Join(s.Checks, ", "))
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// EngineProgram is `aopconform engine --protocol P [--fault F]` (the command
// line in p.Spec.Args: the program, "engine" and those flags) as a program of
// agentio.Func: the reference engine as the orchestrator under test, run in a
// goroutine with p's environment and working directory. agents launches the
// agent command it is given ($AOPKIT_AGENT); it is called once per run with
// p (whose environment its agents inherit). SIGTERM (p.Term) cancels the
// engine's context, as signal.NotifyContext does for the process; its exit
// code is the process's. The aos guardian, served over the network, is not
// played so.
func EngineProgram(agents func(p agentio.Program) agentio.Launcher) func(ctx context.Context, p agentio.Program) agentio.Exit {
	return func(ctx context.Context, p agentio.Program) agentio.Exit {
		cfg := engineConfig{Deadline: 5 * time.Minute, Dir: p.Spec.Dir}
		args := p.Spec.Args
		if len(args) < 2 || args[1] != "engine" {
			fmt.Fprintf(p.Stderr, "aopconform engine (in-process): not an engine command line: %q\n", args)
			return agentio.Exit{Code: exitHarness}
		}
		for i := 2; i < len(args); i++ {
			switch {
			case args[i] == "--"+flagProtocol && i+1 < len(args):
				i++
				cfg.Protocol = args[i]
			case args[i] == "--fault" && i+1 < len(args):
				i++
				cfg.Fault = args[i]
			default:
				fmt.Fprintf(p.Stderr, "aopconform engine (in-process): unsupported argument %q\n", args[i])
				return agentio.Exit{Code: exitHarness}
			}
		}
		if protocols.Lookup(cfg.Protocol) != nil && protocols.Lookup(cfg.Protocol).Served {
			fmt.Fprintf(p.Stderr, "aopconform engine (in-process): the %s engine is served over the network: run it as a process\n", cfg.Protocol)
			return agentio.Exit{Code: exitHarness}
		}
		vars := map[string]string{}
		for _, kv := range p.Spec.Env {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		cfg.Getenv = func(k string) string { return vars[k] }
		cfg.Launcher = agents(p)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-p.Term:
				cancel()
			case <-ctx.Done():
			}
		}()
		if err := engineCmd(ctx, cfg, p.Stdout, p.Stderr); err != nil {
			var code exitCode
			if errors.As(err, &code) {
				return agentio.Exit{Code: int(code)}
			}
			fmt.Fprintf(p.Stderr, "aopconform engine: %v\n", err)
			return agentio.Exit{Code: exitHarness}
		}
		return agentio.Exit{}
	}
}
