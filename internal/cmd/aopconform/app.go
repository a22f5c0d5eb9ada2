package aopconformcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/knownfail"
	"github.com/aopkit/aopkit/conform/lintstep"
	"github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/conform/report"
	"github.com/aopkit/aopkit/conform/runner"
	"github.com/aopkit/aopkit/fixtures/scenarios"
	"github.com/aopkit/aopkit/internal/clikit"
	"github.com/aopkit/aopkit/internal/safefile"
)

// Flag names.
const (
	flagProtocol     = "protocol"
	flagScenarios    = "scenarios"
	flagBuiltin      = "builtin"
	flagRun          = "run"
	flagSkip         = "skip"
	flagParallel     = "parallel"
	flagTimeoutScale = "timeout-scale"
	flagOut          = "out"
	flagReport       = "report"
	flagForce        = "force"
	flagNoLint       = "no-lint"
	flagVerbose      = "verbose"
	flagStrict       = "strict"
	flagRepeat       = "repeat"
	flagFormat       = "format"
	flagPassEnv      = "pass-env"
)

// Exit codes.
const (
	exitOK      = 0
	exitMustBad = 1
	exitHarness = 2
)

// usageError is a command-line mistake (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitCode carries a decided exit code out of an action.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func run(args []string, stdout, stderr io.Writer) int {
	setMemoryLimit()
	app := newApp(stdout, stderr)
	// Completion offers the protocols and, after explain, the check IDs.
	clikit.CompleteValues(app, args, map[string]clikit.Values{
		flagProtocol: func() []string { return conform.Protocols },
		flagFormat:   func() []string { return []string{"text", "json"} },
	}, map[string]clikit.Values{
		"explain": func() []string {
			var ids []string
			for _, c := range conform.Checks("") {
				ids = append(ids, c.ID)
			}
			return ids
		},
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := app.RunContext(ctx, args)
	var code exitCode
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	default:
		fmt.Fprintln(stderr, "aopconform:", err)
		return exitHarness
	}
}

// runConfig is what `aopconform run` needs, decoded from the flags.
type runConfig struct {
	Protocol     string
	Scenarios    []string
	Builtin      bool
	Run, Skip    string
	Parallel     int
	TimeoutScale float64
	Out          string
	Reports      []string
	Force        bool // --force: --report and --certificate replace an existing regular file
	NoLint       bool
	Verbose      bool
	Strict       bool
	Repeat       int
	PassEnv      []string
	Command      []string
	Cert         certConfig // --known-failing, --certify, --certificate (certify.go)
	// Side and Mockagent are --side and --mockagent (orchside.go).
	Side, Mockagent string
	// Policy is what the implementation may read, write and use (contain.go).
	Policy agentio.Policy
	// launcher, when set, starts the agents (tests: an in-process agent).
	launcher agentio.Launcher
}

func newApp(stdout, stderr io.Writer) *cli.App {
	usage := func(c *cli.Context, err error, _ bool) error {
		return usageError{err.Error() + " " + clikit.UsageHint(c)}
	}
	app := &cli.App{
		Name:           "aopconform",
		Usage:          "certify an agent: play the orchestrator through scripted scenarios, lint and score",
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   usage,
		Commands: []*cli.Command{
			{
				Name:      "run",
				Usage:     "run the scenarios of a protocol against an agent",
				UsageText: "aopconform run --protocol ID [--scenarios DIR] [--run PATTERN] [--skip PATTERN] [--parallel N] [--timeout-scale X] [--out DIR] [--report FILE]... [--force] [--known-failing FILE] [--certify KEY [--certificate FILE]] [--side orchestrator] -- CMD [ARGS...]",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: flagProtocol, Usage: "protocol: " + strings.Join(conform.Protocols, ", ")},
					&cli.StringSliceFlag{Name: flagScenarios, Usage: "also load scenario files (*.json) from `DIR` (repeatable)"},
					&cli.BoolFlag{Name: flagBuiltin, Value: true, Usage: "include the scenarios shipped with aopconform"},
					&cli.StringFlag{Name: flagRun, Usage: "only checks whose ID matches `PATTERN` (substring or glob, comma-separated)"},
					&cli.StringFlag{Name: flagSkip, Usage: "skip checks whose ID matches `PATTERN`"},
					&cli.IntFlag{Name: flagParallel, Usage: "scenarios at once", DefaultText: "2 × CPUs"},
					&cli.Float64Flag{Name: flagTimeoutScale, Value: 1, Usage: "stretch every deadline, interval and grace period by `X`"},
					&cli.StringFlag{Name: flagOut, Value: "aopconform-out", Usage: "write the transcripts (transcript/1 JSONL) to `DIR`"},
					&cli.StringSliceFlag{Name: flagReport, Usage: "write a report to `FILE`: .json, .xml (JUnit), .md, .html (repeatable)"},
					&cli.BoolFlag{Name: flagForce, Usage: "replace an existing --report or --certificate file (a regular file; a symbolic link is never written through)"},
					&cli.BoolFlag{Name: flagNoLint, Usage: "do not lint the agent's messages with aoplint"},
					clikit.VerboseFlag("print one line per finished scenario on stderr"),
					&cli.BoolFlag{Name: flagStrict, Usage: "a MUST the agent never reached (NOT-APPLICABLE) fails the run"},
					&cli.IntFlag{Name: flagRepeat, Value: 1, Usage: "run every scenario `N` times and report per-check pass rates (a timing check that fails only sometimes is FLAKY)"},
					&cli.StringSliceFlag{Name: flagPassEnv, Usage: "pass the harness's variable `NAME` to the agent (repeatable; by default it gets only PATH, locale and TZ)"},
				}, append(sideFlags(), containFlags()...)...),
				OnUsageError: usage,
				Action: func(c *cli.Context) error {
					cfg := runConfig{
						Protocol: c.String(flagProtocol), Scenarios: c.StringSlice(flagScenarios), Builtin: c.Bool(flagBuiltin),
						Run: c.String(flagRun), Skip: c.String(flagSkip), Parallel: c.Int(flagParallel),
						TimeoutScale: c.Float64(flagTimeoutScale), Out: c.String(flagOut), Reports: c.StringSlice(flagReport), Force: c.Bool(flagForce),
						NoLint: c.Bool(flagNoLint), Verbose: c.Bool(flagVerbose), Strict: c.Bool(flagStrict), Repeat: c.Int(flagRepeat),
						PassEnv: c.StringSlice(flagPassEnv), Command: c.Args().Slice(),
					}
					cfg.Cert = certConfigOf(c)
					cfg.Side, cfg.Mockagent = c.String(flagSide), c.String(flagMockagent)
					pol, err := policyOf(c, cfg.Cert.Certify)
					if err != nil {
						fmt.Fprintln(stderr, "aopconform:", err)
						return exitCode(exitHarness)
					}
					cfg.Policy = pol
					return runCmd(c.Context, cfg, stdout, stderr)
				},
			},
			{
				Name:      "guardian",
				Usage:     "test an AOS guardian at a URL: send it requests and check its answers (the second aos mode)",
				UsageText: "aopconform guardian [--timeout D] [--out DIR] URL",
				Flags: []cli.Flag{
					&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up on the guardian after `D`"},
					&cli.StringFlag{Name: flagOut, Usage: "write the transcript of the probes (transcript/1 JSONL) to `DIR`"},
				},
				OnUsageError: usage,
				Action: func(c *cli.Context) error {
					return guardianCmd(c.Context, c.Args().First(), c.Duration("timeout"), c.String(flagOut), stdout)
				},
			},
			{
				Name:         "explain",
				Usage:        "print a check: requirement, spec section, level, tier, a bad and a good example",
				UsageText:    "aopconform explain CHECK-ID",
				OnUsageError: usage,
				Action: func(c *cli.Context) error {
					return explainCmd(c.Args().First(), stdout, stderr)
				},
			},
			{
				Name:      "list",
				Usage:     "list the scenarios and checks with their levels and spec sections",
				UsageText: "aopconform list [--side orchestrator] [--protocol ID] [--scenarios DIR]",
				Flags: []cli.Flag{
					protocolFilterFlag(),
					&cli.StringFlag{Name: flagSide, Value: orchside.SideAgent, Usage: "`SIDE`: agent, or orchestrator (each scenario's task, agent cue, deadline and checks; docs/orchestrator-side.md)"},
					&cli.StringSliceFlag{Name: flagScenarios, Usage: "also load scenario files from `DIR`"},
					&cli.BoolFlag{Name: flagBuiltin, Value: true, Usage: "include the shipped scenarios"},
					formatFlag("text or json"),
				},
				OnUsageError: usage,
				Action: func(c *cli.Context) error {
					switch c.String(flagSide) {
					case orchside.SideOrchestrator:
						return listOrchestratorCmd(c.String(flagProtocol), c.String(flagFormat), stdout, stderr)
					case orchside.SideAgent:
					default:
						fmt.Fprintf(stderr, "aopconform: --side %q: want agent or orchestrator\n", c.String(flagSide))
						return exitCode(exitHarness)
					}
					return listCmd(c.String(flagProtocol), c.StringSlice(flagScenarios), c.Bool(flagBuiltin), c.String(flagFormat), stdout, stderr)
				},
			},
		},
	}
	app.Commands = append(app.Commands, engineCommand(stdout, stderr, usage), engineFaultsCommand(stdout, stderr, usage))
	addCertCommands(app, stdout, stderr, usage)
	app.Commands = append(app.Commands, coverageCommand(stdout, stderr, usage))
	clikit.Setup(app)
	clikit.OnUsageErrors(app, usage) // completion and help too
	return app
}

// loadScenarios reads the shipped scenarios and the user's directories.
func loadScenarios(dirs []string, builtin bool) ([]*conform.Scenario, error) {
	var all []*conform.Scenario
	if builtin {
		ss, err := scenarios.Builtin()
		if err != nil {
			return nil, fmt.Errorf("built-in scenarios: %w", err)
		}
		all = append(all, ss...)
	}
	for _, d := range dirs {
		ss, err := conform.LoadScenarioDir(d)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		all = append(all, ss...)
	}
	seen := map[string]string{}
	for _, s := range all {
		if prev, dup := seen[s.ID]; dup {
			return nil, usageError{fmt.Sprintf("scenario id %q is defined twice (%s and %s)", s.ID, prev, s.Source)}
		}
		seen[s.ID] = s.Source
	}
	return all, nil
}

func (cfg runConfig) validate() error {
	switch {
	case cfg.Protocol == "":
		return usageError{"--protocol is required (one of " + strings.Join(conform.Protocols, ", ") + ")"}
	case !conform.KnownProtocol(cfg.Protocol):
		return usageError{fmt.Sprintf("unknown protocol %q (one of %s)", cfg.Protocol, strings.Join(conform.Protocols, ", "))}
	case len(cfg.Command) == 0:
		return usageError{"no agent command: give it after --, as in: aopconform run --protocol " + cfg.Protocol + " -- ./agent"}
	case cfg.TimeoutScale <= 0:
		return usageError{"--timeout-scale must be positive"}
	case cfg.Parallel < 0:
		return usageError{"--parallel must not be negative"}
	case cfg.Repeat < 1:
		return usageError{"--repeat must be at least 1"}
	}
	for _, r := range cfg.Reports {
		if _, err := report.ByExtension(r); err != nil {
			return usageError{err.Error()}
		}
		// Checked again when it is written; saying so now saves a run.
		if err := overwritable("--report", r, cfg.Force); err != nil {
			return err
		}
	}
	for _, n := range cfg.PassEnv {
		if n == "" || strings.ContainsAny(n, "= \t") {
			return usageError{fmt.Sprintf("--pass-env takes a variable name, not %q", n)}
		}
	}
	return cfg.validateSide()
}

func runCmd(ctx context.Context, cfg runConfig, stdout, stderr io.Writer) error {
	if err := cfg.validate(); err != nil {
		fmt.Fprintln(stderr, "aopconform:", err)
		return exitCode(exitHarness)
	}
	all, err := cfg.sideScenarios()
	if err != nil {
		fmt.Fprintln(stderr, "aopconform:", err)
		return exitCode(exitHarness)
	}
	pre, err := prepareRun(cfg, all)
	if err != nil {
		fmt.Fprintln(stderr, "aopconform:", err)
		return exitCode(exitHarness)
	}
	opts := runner.Options{
		Protocol: cfg.Protocol, Command: cfg.Command, Scenarios: all,
		Run: cfg.Run, Skip: cfg.Skip, Parallel: cfg.Parallel, Scale: cfg.TimeoutScale, OutDir: cfg.Out,
		Strict: cfg.Strict, Repeat: cfg.Repeat,
		PassEnv: cfg.PassEnv, Policy: cfg.Policy, Launcher: cfg.launcher,
	}
	for _, n := range cfg.PassEnv {
		opts.RerunArgs = append(opts.RerunArgs, "--pass-env", n)
	}
	for _, d := range cfg.Scenarios {
		opts.RerunArgs = append(opts.RerunArgs, "--scenarios", d)
	}
	if !cfg.Builtin {
		opts.RerunArgs = append(opts.RerunArgs, "--builtin=false")
	}
	if !cfg.NoLint {
		opts.Linter = lintstep.AOPLint{}
	}
	if err := cfg.sideOptions(&opts); err != nil {
		fmt.Fprintln(stderr, "aopconform:", err)
		return exitCode(exitHarness)
	}
	if cfg.Verbose {
		opts.Progress = stderr
	}
	rep, err := pre.run(ctx, opts)
	if err != nil {
		fmt.Fprintln(stderr, "aopconform:", err)
		return exitCode(exitHarness)
	}
	if rep.OutDir != opts.OutDir {
		fmt.Fprintf(stderr, "aopconform: --out %s already exists: this run writes its transcripts to %s\n", opts.OutDir, rep.OutDir)
	}
	// A terminal gets rows that fit its width, and coloured verdicts unless
	// NO_COLOR or TERM=dumb is set (as aoplint); a file or a pipe (a CI log)
	// gets the rows whole and no colour.
	if err := report.WriteText(stdout, rep, report.TextOptions{Uncut: !clikit.Terminal(stdout), Color: clikit.Color(stdout)}); err != nil {
		return err
	}
	for _, name := range cfg.Reports {
		if err := writeReport(name, rep, cfg.Force); err != nil {
			fmt.Fprintln(stderr, "aopconform:", err)
			return exitCode(exitHarness)
		}
	}
	if rep.HarnessErrors == 0 {
		if err := pre.certifyRun(rep, cfg, stderr); err != nil {
			fmt.Fprintln(stderr, "aopconform:", err)
			return exitCode(exitHarness)
		}
	}
	if rep.HarnessErrors > 0 {
		fmt.Fprintf(stderr, "aopconform: %d scenario(s) could not be run (harness error, not the agent's fault)\n", rep.HarnessErrors)
	}
	if code := exitFor(rep); code != 0 {
		return exitCode(code)
	}
	return nil
}

// ExitFor is exitFor, for tests that play runs in-process (cmd/aopconform's
// fault matrix on virtual time).
func ExitFor(rep *conform.Report) int { return exitFor(rep) }

// exitFor is the exit code of a finished run: 1 when a MUST the agent definitely
// failed (or a stale known-failing entry) decides it, whatever the harness could
// not judge elsewhere; 2 when only the harness failed; 1 for the other failures.
func exitFor(rep *conform.Report) int {
	switch {
	case knownfail.MustFailed(rep) || len(report.StaleEntries(rep)) > 0:
		return exitMustBad
	case rep.HarnessErrors > 0:
		return exitHarness
	case runFailed(rep):
		return exitMustBad
	}
	return 0
}

// overwritable says (a usage error) why the run must not write path, a file
// named by flag: it exists and force is off, or it is not a regular file (a
// symbolic link, a directory), which even --force never replaces.
func overwritable(flag, path string, force bool) error {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil
	case !force:
		return usageError{fmt.Sprintf("%s %s: the file already exists and this run did not create it: refusing to overwrite it (--force replaces it)", flag, path)}
	case !fi.Mode().IsRegular():
		return usageError{fmt.Sprintf("%s %s is not a regular file (%s): refusing to replace it, even with --force", flag, path, fileKind(fi.Mode()))}
	}
	return nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// writeReport writes the report name; with force an existing regular file is
// replaced (through a new file and a rename, never through a symbolic link).
func writeReport(name string, rep *conform.Report, force bool) error {
	w, err := report.ByExtension(name)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(name); dir != "" {
		os.MkdirAll(dir, 0o755)
	}
	if force {
		var b bytes.Buffer
		if err := w(&b, rep); err != nil {
			return fmt.Errorf("--report %s: %w", name, err)
		}
		if err := safefile.WriteFile(name, b.Bytes(), 0o644, false); err != nil {
			return fmt.Errorf("--report: %w", err)
		}
		return nil
	}
	f, err := runner.CreateNew(name)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	if err := w(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("--report %s: %w", name, err)
	}
	return f.Close()
}

// listJSON is `aopconform list --format json`.
type listJSON struct {
	Scenarios []scenarioJSON `json:"scenarios"`
	Checks    []checkJSON    `json:"checks"`
}

type scenarioJSON struct {
	ID       string `json:"id"`
	Protocol string `json:"protocol"`
	Family   string `json:"family"`
	Deadline string `json:"deadline"`
	Checks   int    `json:"checks"`
	Title    string `json:"title"`
}

type checkJSON struct {
	ID          string   `json:"id"`
	Protocol    string   `json:"protocol"`
	Family      string   `json:"family"`
	Level       string   `json:"level"`
	Tier        string   `json:"tier"`
	Spec        string   `json:"spec"`
	Requirement string   `json:"requirement"`
	Lint        []string `json:"lint,omitempty"`
}

func listCmd(protocol string, dirs []string, builtin bool, format string, stdout, stderr io.Writer) error {
	if err := textOrJSON(format, "list", stderr); err != nil {
		return err
	}
	if err := anyProtocol(protocol, stderr); err != nil {
		return err
	}
	all, err := loadScenarios(dirs, builtin)
	if err != nil {
		fmt.Fprintln(stderr, "aopconform:", err)
		return exitCode(exitHarness)
	}
	list := listJSON{Scenarios: []scenarioJSON{}, Checks: []checkJSON{}}
	for _, s := range all {
		if protocol != "" && s.Protocol != protocol {
			continue
		}
		list.Scenarios = append(list.Scenarios, scenarioJSON{ID: s.ID, Protocol: s.Protocol, Family: s.Family,
			Deadline: fmt.Sprint(s.Deadline.D(1)), Checks: len(s.Checks), Title: s.Title})
	}
	for _, c := range conform.Checks(protocol) {
		list.Checks = append(list.Checks, checkJSON{ID: c.ID, Protocol: c.Protocol, Family: c.Family, Level: string(c.Level),
			Tier: string(c.Tier), Spec: c.Spec, Requirement: c.Requirement, Lint: c.Lint})
	}
	if format == "json" {
		return clikit.WriteJSON(stdout, list)
	}
	fmt.Fprintln(stdout, "SCENARIOS")
	st := clikit.Table{Header: []string{"SCENARIO", "PROTOCOL", "FAMILY", "DEADLINE", "CHECKS", "TITLE"}, Wrap: []int{0, 5}}
	for _, s := range list.Scenarios {
		st.Rows = append(st.Rows, []string{s.ID, s.Protocol, s.Family, s.Deadline, fmt.Sprint(s.Checks), s.Title})
	}
	if err := st.Render(stdout); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nCHECKS")
	ct := clikit.Table{Header: []string{"CHECK", "LEVEL", "TIER", "SPEC", "REQUIREMENT"}, Wrap: []int{3, 4}}
	for _, c := range list.Checks {
		ct.Rows = append(ct.Rows, []string{c.ID, c.Level, c.Tier, c.Spec, c.Requirement})
	}
	return ct.Render(stdout)
}

func explainCmd(id string, stdout, stderr io.Writer) error {
	c := conform.LookupCheck(id)
	if c == nil {
		fmt.Fprintf(stderr, "aopconform: unknown check %q (see aopconform list)\n", id)
		return exitCode(exitHarness)
	}
	fmt.Fprintf(stdout, "%s (%s, %s, %s)\n\n%s\n\nspec: %s\nfamily: %s\n", c.ID, c.Level, c.Tier, c.Protocol, c.Requirement, c.Spec, c.Family)
	if len(c.Lint) > 0 {
		fmt.Fprintf(stdout, "lint rules that fail it: %s\n", strings.Join(c.Lint, ", "))
	}
	fmt.Fprintf(stdout, "\nbad:  %s\ngood: %s\n", c.Bad, c.Good)
	return nil
}
