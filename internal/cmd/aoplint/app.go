package aoplintcmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/internal/clikit"
	"github.com/aopkit/aopkit/internal/safetext"
	"github.com/aopkit/aopkit/internal/softlimit"
	"github.com/aopkit/aopkit/internal/version"
	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	lintconfig "github.com/aopkit/aopkit/lint/config"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/output"
	"github.com/aopkit/aopkit/lint/project"
	"github.com/aopkit/aopkit/lint/revdiff"
	aopoutputspec "github.com/aopkit/aopkit/lint/spec/aopoutput"
	"github.com/aopkit/aopkit/schemas"
)

// Exit codes.
const (
	exitClean    = 0
	exitFindings = 1
	exitUsage    = 2
)

// Flag names.
const (
	flagFormat   = "format"
	flagProtocol = "protocol"
	flagFailOn   = "fail-on"
	flagTaskType = "task-type"
	flagDetails  = "details-root"
	flagJobs     = "jobs"
	flagCPUProf  = "cpuprofile"
	flagVerbose  = "verbose"
	flagOutput   = "output"
	flagEnable   = "enable"
	flagDisable  = "disable"
	flagOnly     = "enable-only"
	flagNewFrom  = "new-from-rev"
)

// config is what the lint action needs, decoded from the flags.
type config struct {
	Format   string
	Protocol string
	FailOn   lint.Severity
	TaskType string
	// DetailsRoot is the directory the agent ran in (--details-root): an
	// aop-output DETAILS_FILE is resolved there, and missing there is an error.
	DetailsRoot string
	Jobs        int
	Verbose     bool
	Args        []string
	// Outputs are where the report goes, each in its format: --output, else
	// --format to standard output.
	Outputs []outputSpec
	// NewFrom keeps the findings on lines changed since a revision (--new-from-rev).
	NewFrom *revdiff.Changes
	// Project is the .aoplint.yaml and baseline in effect (projectFrom).
	Project *project.Project
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if plainLint(args) {
		// `aoplint FILE...`, the pre-commit and CI case: every flag at its default,
		// so the lint runs as the cli.App would run it, without building the App.
		cfg, err := configFrom(plainDefaults{}, args[1:])
		if err != nil {
			return exitCode(err, stderr)
		}
		return lintCmd(cfg, stdin, stdout, stderr)
	}
	code := exitClean
	app := newApp(stdin, stdout, stderr, &code)
	completeValues(app, args)
	args = commandOrPath(app, args, stderr)
	if err := app.Run(flagsFirst(app, args)); err != nil {
		return exitCode(err, stderr)
	}
	return code
}

// completeValues makes shell completion offer formats, protocols, severities,
// task types and rule IDs, from the lists the command checks them against.
func completeValues(app *cli.App, args []string) {
	ruleIDs := func() []string {
		var ids []string
		for _, r := range lint.Rules() {
			ids = append(ids, r.ID)
		}
		return ids
	}
	formats := func() []string { return output.Formats }
	clikit.CompleteValues(app, args, map[string]clikit.Values{
		flagFormat:                formats,
		"rules " + flagFormat:     func() []string { return []string{"text", "json", "markdown"} },
		"protocols " + flagFormat: func() []string { return []string{"text", "json"} },
		flagOutput:                formats,
		flagProtocol:              lint.ProtocolIDs,
		flagFailOn:                func() []string { return []string{"error", "warning"} },
		flagTaskType:              aopoutputspec.TaskTypeNames,
		flagEnable:                ruleIDs,
		flagDisable:               ruleIDs,
		flagOnly:                  ruleIDs,
		flagUnrecognised: func() []string {
			return []string{lintconfig.UnrecognisedAuto, lintconfig.UnrecognisedSkip, lintconfig.UnrecognisedError}
		},
	}, map[string]clikit.Values{
		"explain": ruleIDs,
		"schema":  lint.ProtocolIDs,
	})
}

// exitCode reports err on stderr and returns its exit code.
func exitCode(err error, stderr io.Writer) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, "aoplint:", safetext.Block(msg))
		}
		return ec.ExitCode()
	}
	fmt.Fprintln(stderr, "aoplint:", safetext.Block(err.Error()))
	return exitUsage
}

// commandNames are the names and aliases of aoplint's commands (a test holds it to
// the App's).
var commandNames = []string{"lint", "rules", "explain", "config", "protocols", "schema", "completion", "help", "h"}

// plainLint reports whether args lint the paths they name with every flag at
// its default: at least one argument, none a flag ("-", standard input, is not
// one), the first not a command.
func plainLint(args []string) bool {
	if len(args) < 2 {
		return false
	}
	for _, c := range commandNames {
		if args[1] == c {
			return false
		}
	}
	for _, a := range args[1:] {
		if len(a) > 1 && a[0] == '-' {
			return false
		}
	}
	return true
}

// flagValues are the flags the lint action reads: a *cli.Context, or
// plainDefaults.
type flagValues interface {
	String(name string) string
	Bool(name string) bool
	Int(name string) int
	StringSlice(name string) []string
	IsSet(name string) bool
}

// plainDefaults are the lint flags' default values, what a *cli.Context gives
// for flags not given (a test holds them to lintFlags()): plain `aoplint FILE...`
// runs with them without building the flags.
type plainDefaults struct{}

func (plainDefaults) String(name string) string {
	switch name {
	case flagFormat, "f":
		return "text"
	case flagFailOn:
		return "error"
	}
	return ""
}

func (plainDefaults) Bool(string) bool            { return false }
func (plainDefaults) Int(string) int              { return 0 }
func (plainDefaults) StringSlice(string) []string { return nil }
func (plainDefaults) IsSet(string) bool           { return false }

// flagsFirst moves the flags of a lint invocation before its arguments, so that
// "aoplint file.json --format json" works as users expect (urfave/cli stops parsing
// flags at the first argument). "--" ends the flags.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	start := 1
	if c := app.Command(args[1]); c != nil {
		if c.Name != "lint" {
			return args
		}
		start = 2
	}
	takesValue := map[string]bool{}
	for _, f := range app.Flags {
		if _, isBool := f.(*cli.BoolFlag); isBool {
			continue
		}
		for _, n := range f.Names() {
			takesValue[n] = true
		}
	}
	var flags, rest []string
	for i := start; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			rest = append(rest, a)
		}
	}
	out := append(append([]string{}, args[:start]...), flags...)
	if len(rest) > 0 {
		out = append(out, "--")
		out = append(out, rest...)
	}
	return out
}

func usageErr(format string, args ...any) error {
	return cli.Exit(fmt.Sprintf(format, args...), exitUsage)
}

// lintFlags are the flags of the lint command (and of aoplint without a command).
func lintFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: flagFormat, Aliases: []string{"f"}, Value: "text", Usage: "output format: " + strings.Join(output.Formats, ", ")},
		&cli.StringFlag{Name: flagProtocol, Aliases: []string{"p"}, Usage: "force a protocol (" + strings.Join(lint.ListedProtocolIDs(), ", ") + ") instead of detecting it"},
		&cli.StringFlag{Name: flagFailOn, Value: "error", Usage: "exit 1 on findings of this severity or worse: error or warning"},
		&cli.StringFlag{Name: flagTaskType, Usage: "aop-output task type selecting the summary limits (search, analysis, test, ...)"},
		&cli.StringFlag{Name: flagDetails, Usage: "the directory the agent ran in: an aop-output report's DETAILS_FILE is resolved there, and a details file missing there is an error (else a warning)"},
		&cli.IntFlag{Name: flagJobs, Aliases: []string{"j"}, Usage: "files, and lines of a stream, linted at once", DefaultText: "number of CPUs"},
		&cli.StringSliceFlag{Name: flagOutput, Aliases: []string{"o"}, Usage: "write the report in FORMAT to PATH (FORMAT alone, or PATH -: standard output, instead of --format); repeat it to write several formats in one run", DefaultText: "--format to standard output"},
		&cli.StringSliceFlag{Name: flagEnable, Aliases: []string{"E"}, Usage: "turn on rules the configuration turned off: rule IDs or globs (AOP2-*), repeated or comma-separated"},
		&cli.StringSliceFlag{Name: flagDisable, Aliases: []string{"D"}, Usage: "turn rules off: rule IDs or globs, repeated or comma-separated"},
		&cli.StringSliceFlag{Name: flagOnly, Usage: "run only these rules: rule IDs or globs (excludes --enable and --disable)"},
		&cli.StringFlag{Name: flagNewFrom, Usage: "report only findings on lines changed since this git revision (git diff REV, untracked files whole)"},
		clikit.VerboseFlag("on stderr: one line per linted file (protocol, messages, counts) and the files skipped (no protocol marker) or excluded"),
		&cli.StringFlag{Name: flagCPUProf, Usage: "write a CPU profile (pprof) of the run to this file (a build with -tags aoplint_pprof)", Hidden: true},
	}, projectFlags()...)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, code *int) *cli.App {
	lintFlags := lintFlags()
	lintAction := func(c *cli.Context) error {
		cfg, err := configFrom(c, c.Args().Slice())
		if err != nil {
			return err
		}
		if p := c.String(flagCPUProf); p != "" {
			stop, err := startCPUProfile(p)
			if err != nil {
				return usageErr("--cpuprofile: %v", err)
			}
			defer stop()
		}
		*code = lintCmd(cfg, stdin, stdout, stderr)
		return nil
	}
	app := &cli.App{
		Name:      "aoplint",
		Usage:     "lint messages, transcripts and data directories of agent-orchestration protocols",
		UsageText: "aoplint [flags] FILE|DIR|GLOB|- ...\n   aoplint rules | explain RULE | protocols | schema PROTOCOL KIND | help [COMMAND]",
		Writer:    stdout,
		ErrWriter: stderr,
		// Never os.Exit from inside the app: run returns the code.
		ExitErrHandler: func(*cli.Context, error) {},
		Flags:          lintFlags,
		Action:         lintAction,
		Commands: []*cli.Command{
			{Name: "lint", Usage: "lint files, directories, globs or - (standard input); the default command", ArgsUsage: "FILE|DIR|GLOB|- ...", Flags: lintFlags, Action: lintAction},
			{Name: "rules", Usage: "list every rule", Flags: []cli.Flag{
				&cli.StringFlag{Name: flagProtocol, Aliases: []string{"p"}, Usage: "only this protocol's rules"},
				&cli.StringFlag{Name: flagFormat, Aliases: []string{"f"}, Value: "text", Usage: "text, json or markdown"},
			}, Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usageErr("rules takes no arguments (to lint a file named rules, write ./rules)")
				}
				return rulesCmd(stdout, c.String(flagProtocol), c.String(flagFormat))
			}},
			{Name: "explain", Usage: "print a rule's documentation with a bad and a good example", ArgsUsage: "RULE", Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usageErr("explain takes one rule ID, such as: aoplint explain GEN-JSON-002")
				}
				return explainCmd(stdout, c.Args().First())
			}},
			configCommand(stdout),
			{Name: "protocols", Usage: "list the protocols and their message kinds", Flags: []cli.Flag{
				&cli.StringFlag{Name: flagFormat, Aliases: []string{"f"}, Value: "text", Usage: "text or json"},
			}, Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usageErr("protocols takes no arguments (to lint a file named protocols, write ./protocols)")
				}
				return protocolsCmd(stdout, c.String(flagFormat))
			}},
			{Name: "schema", Usage: "print the JSON Schema of a message kind", ArgsUsage: "PROTOCOL KIND", Action: func(c *cli.Context) error {
				if c.NArg() != 2 {
					return usageErr("schema takes a protocol and a kind, such as: aoplint schema aop2 RESPONSE (see aoplint protocols)")
				}
				return schemaCmd(stdout, c.Args().Get(0), c.Args().Get(1))
			}},
		},
	}
	clikit.Setup(app)
	// A bad flag: one line and a hint on stderr, exit 2, nothing on stdout.
	clikit.OnUsageErrors(app, func(c *cli.Context, err error, _ bool) error {
		return usageErr("%v %s", err, clikit.UsageHint(c))
	})
	return app
}

// maxArgs is how many arguments each command takes; past that, a first argument
// that names an existing path is a file to lint (see commandOrPath).
var maxArgs = map[string]int{"rules": 0, "protocols": 0, "explain": 1, "schema": 2, "config": 2, "help": 1, "h": 1, "completion": 1}

// commandOrPath decides what a first argument that names a command means when a
// file or directory of that name exists too. The command runs when the arguments
// that follow fit it ("aoplint rules", "aoplint explain GEN-JSON-002"), with a note
// on stderr that the path was not linted; when they don't ("aoplint rules x.json"),
// every argument is linted. "./rules" or "aoplint lint rules" always lints.
func commandOrPath(app *cli.App, args []string, stderr io.Writer) []string {
	if len(args) < 2 {
		return args
	}
	name := args[1]
	c := app.Command(name)
	limit, ok := maxArgs[name]
	if c == nil || !ok {
		return args
	}
	if _, err := os.Stat(name); err != nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range c.Flags {
		if _, isBool := f.(*cli.BoolFlag); !isBool {
			for _, n := range f.Names() {
				takesValue[n] = true
			}
		}
	}
	positional := 0
	for i := 2; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && a[0] == '-' {
			n := strings.TrimLeft(a, "-")
			if !strings.Contains(n, "=") && takesValue[n] {
				i++
			}
			continue
		}
		positional++
	}
	if positional > limit {
		return append([]string{args[0], "lint"}, args[1:]...)
	}
	fmt.Fprintf(stderr, "aoplint: note: %q ran the %s command, not a lint of the path %q (write ./%s to lint it)\n", name, c.Name, name, name)
	return args
}

func configFrom(c flagValues, args []string) (config, error) {
	cfg := config{Format: c.String(flagFormat), Protocol: c.String(flagProtocol), TaskType: c.String(flagTaskType), DetailsRoot: c.String(flagDetails), Jobs: c.Int(flagJobs), Verbose: c.Bool(flagVerbose), Args: args}
	if cfg.DetailsRoot != "" {
		if fi, err := os.Stat(cfg.DetailsRoot); err != nil || !fi.IsDir() {
			return cfg, usageErr("--details-root %q is not a directory", cfg.DetailsRoot)
		}
	}
	failOn, err := projectFrom(c, &cfg)
	if err != nil {
		return cfg, err
	}
	if !knownFormat(cfg.Format) {
		return cfg, usageErr("unknown --format %q: want one of %s", cfg.Format, strings.Join(output.Formats, ", "))
	}
	if cfg.Outputs, err = outputsFrom(c.StringSlice(flagOutput), cfg.Format, c.IsSet(flagFormat)); err != nil {
		return cfg, err
	}
	cfg.Format = ""
	for _, o := range cfg.Outputs {
		if o.Path == "" {
			cfg.Format = o.Format
		}
	}
	rc := lintconfig.RuleControl{Enable: c.StringSlice(flagEnable), Disable: c.StringSlice(flagDisable), EnableOnly: c.StringSlice(flagOnly)}
	if err := cfg.Project.Config.Control(rc); err != nil {
		return cfg, usageErr("%v", err)
	}
	if rev := c.String(flagNewFrom); rev != "" {
		if cfg.NewFrom, err = revdiff.Changed(".", rev); err != nil {
			return cfg, usageErr("%v", err)
		}
	}
	switch failOn {
	case "error":
		cfg.FailOn = lint.Error
	case "warning":
		cfg.FailOn = lint.Warning
	default:
		return cfg, usageErr("unknown --fail-on %q: want error or warning", failOn)
	}
	if cfg.Protocol != "" && lint.LookupProtocol(cfg.Protocol) == nil {
		return cfg, usageErr("unknown --protocol %q: want one of %s", cfg.Protocol, strings.Join(lint.ProtocolIDs(), ", "))
	}
	if len(cfg.Args) == 0 {
		return cfg, usageErr("nothing to lint: name files, directories, globs or - for standard input (aoplint --help)")
	}
	return cfg, nil
}

func rulesCmd(w io.Writer, protocol, format string) error {
	var rs []*lint.Rule
	for _, r := range lint.Rules() {
		if protocol == "" || r.Protocol == protocol {
			rs = append(rs, r)
		}
	}
	switch format {
	case "json":
		return writeRulesJSON(w, rs)
	case "markdown", "md":
		return writeRulesMarkdown(w, rs)
	case "text", "":
	default:
		return usageErr("unknown --format %q for rules: want text, json or markdown", format)
	}
	t := clikit.Table{Header: []string{"RULE", "SEVERITY", "PROTOCOL", "TITLE", "SPEC"}, Wrap: []int{3, 4}}
	for _, r := range rs {
		proto := r.Protocol
		if proto == "" {
			proto = "all"
		}
		t.Rows = append(t.Rows, []string{r.ID, r.Severity.String(), proto, r.Title, r.Spec})
	}
	return t.Render(w)
}

func explainCmd(w io.Writer, id string) error {
	r := lint.LookupRule(id)
	if r == nil {
		return usageErr("no rule %q (aoplint rules lists them)", id)
	}
	fmt.Fprint(w, ExplainText(r))
	return nil
}

// ExplainText is a rule's documentation as aoplint explain prints it.
func ExplainText(r *lint.Rule) string {
	var b strings.Builder
	proto := r.Protocol
	if proto == "" {
		proto = "all protocols"
	}
	fmt.Fprintf(&b, "%s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(&b, "Severity: %s\nProtocol: %s\nSpec:     %s\n", r.Severity, proto, r.Spec)
	if len(r.Kinds) > 0 {
		fmt.Fprintf(&b, "Kinds:    %s\n", strings.Join(r.Kinds, ", "))
	}
	if r.NewChecker != nil {
		fmt.Fprintf(&b, "Scope:    sequence (looks across the messages of a transcript)\n")
	}
	if r.Retired {
		fmt.Fprintf(&b, "Retired:  replaced by %s\n", r.Replacement)
	}
	fmt.Fprintf(&b, "\n%s\n\nBad:\n%s\n\nGood:\n%s\n", r.Doc, indent(r.Bad), indent(r.Good))
	return b.String()
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

// protocolJSON is one protocol of `aoplint protocols --format json`.
type protocolJSON struct {
	ID    string     `json:"id"`
	Spec  string     `json:"spec"`
	Kinds []kindJSON `json:"kinds"`
}

type kindJSON struct {
	Kind   string `json:"kind"`
	Schema string `json:"schema,omitempty"`
}

func protocolsCmd(w io.Writer, format string) error {
	var list []protocolJSON
	for _, p := range lint.Protocols() {
		pj := protocolJSON{ID: p.ID, Spec: p.Spec, Kinds: []kindJSON{}}
		for _, k := range p.Kinds {
			kj := kindJSON{Kind: k}
			if p.Schema != nil && p.Schema(k) != "" {
				kj.Schema = "schemas/" + p.Schema(k)
			}
			pj.Kinds = append(pj.Kinds, kj)
		}
		list = append(list, pj)
	}
	switch format {
	case "json":
		return clikit.WriteJSON(w, list)
	case "text", "":
	default:
		return usageErr("unknown --format %q for protocols: want text or json", format)
	}
	t := clikit.Table{Header: []string{"PROTOCOL", "KIND", "SCHEMA", "SPEC"}, Wrap: []int{3}}
	for _, p := range list {
		for i, k := range p.Kinds {
			id, spec := p.ID, p.Spec
			if i > 0 {
				id, spec = "", ""
			}
			file := k.Schema
			if file == "" {
				file = "-"
			}
			t.Rows = append(t.Rows, []string{id, k.Kind, file, spec})
		}
	}
	return t.Render(w)
}

func schemaCmd(w io.Writer, protocol, kind string) error {
	p := lint.LookupProtocol(protocol)
	if p == nil {
		return usageErr("unknown protocol %q: want one of %s", protocol, strings.Join(lint.ProtocolIDs(), ", "))
	}
	file := ""
	if p.Schema != nil {
		file = p.Schema(kind)
	}
	if file == "" {
		return usageErr("protocol %s has no schema for kind %q; kinds: %s", protocol, kind, strings.Join(p.Kinds, ", "))
	}
	data, err := fs.ReadFile(schemas.FS, file)
	if err != nil {
		return cli.Exit(fmt.Sprintf("schema %s: %v", file, err), exitUsage)
	}
	_, err = w.Write(data)
	return err
}

// softMemoryLimit is aoplint's default GOMEMLIMIT, and with it the GC runs only
// when the heap nears it (GOGC off, unless GOGC is set; the limit rises with a
// live heap past two thirds of it: package softlimit): a stream's live heap is
// small (about 11 MiB on a 100k-message transcript), so with GOGC=100 the GC ran
// every 11 MiB allocated and marked the same live heap each time. Measured on the
// generated 100k transcript, one worker (GODEBUG=gctrace=1): 27 cycles and 500 ms
// of GC CPU with GOGC=100 and 64 MiB, 8 cycles and 129 ms with this; peak RSS on
// 1M messages 53 MiB with one worker and 54 MiB with two (GOMEMLIMIT=off, which
// leaves GOGC at 100: 40 and 45 MiB).
const softMemoryLimit = softlimit.DefaultBase

// lintCmd lints every input and prints the report; it returns the exit code.
func lintCmd(cfg config, stdin io.Reader, stdout, stderr io.Writer) int {
	// A soft memory limit keeps a long stream's heap near a fixed size: the GC works
	// harder instead of letting the heap grow with garbage (flat RSS whatever the
	// transcript's length). GOMEMLIMIT overrides it.
	if os.Getenv("GOMEMLIMIT") == "" {
		if os.Getenv("GOGC") == "" {
			softlimit.Set(softMemoryLimit)
		} else {
			debug.SetMemoryLimit(softMemoryLimit)
		}
	}
	opts := linter.Options{Protocol: cfg.Protocol, Workers: cfg.Jobs}
	opts.TaskType = cfg.TaskType
	opts.DetailsRoot = cfg.DetailsRoot
	proj := cfg.Project
	if proj == nil {
		proj = &project.Project{Config: lintconfig.Default(), Unrecognised: lintconfig.UnrecognisedAuto}
	}
	optsFor := func(path string) linter.Options { return proj.Options(path, opts) }
	in := proj.CaptureStdin(stdin)
	var sum output.Summary
	var ioErrs []error
	var err error
	verbose := func(r linter.FileResult) {
		if cfg.Verbose {
			e, w, n := r.Counts()
			fmt.Fprintf(stderr, "aoplint: %s: %s, %d %s, %d errors, %d warnings, %d info\n", output.SafePath(r.Path), orUnknown(r.Protocol), r.Messages, plural(r.Messages, "message", "messages"), e, w, n)
		}
	}
	// Streamable outputs (text, jsonl, github) print each file's results as they
	// come (in report order): a run that has only those never holds all its
	// findings. json, sarif, junit and markdown are one document over every file.
	sinks := openSinks(cfg.Outputs, stdout, clikit.Color(stdout))
	var rep *output.Report
	for _, s := range sinks {
		if s.st == nil {
			rep = &output.Report{Version: version.String()}
		}
	}
	file := func(r linter.FileResult) {
		if cfg.NewFrom != nil {
			r = cfg.NewFrom.Filter(r, "<stdin>")
		}
		for _, s := range sinks {
			if s.st != nil {
				if e := s.st.File(r); e != nil && err == nil {
					err = e
				}
			}
		}
		if rep != nil {
			rep.Files = append(rep.Files, r)
		}
		verbose(r)
	}
	ioErrs = lintInputs(cfg.Args, proj, optsFor, cfg.Jobs, in, func(r linter.FileResult) { file(proj.File(r, "<stdin>")) })
	// The configuration's unused ignore entries and the baseline's stale ones.
	extra, e := proj.Close()
	if e != nil && err == nil {
		err = e
	}
	for _, r := range extra {
		file(r)
	}
	summed := false
	if rep != nil {
		rep.Sort()
		sum, summed = rep.Summarize(), true
	}
	for _, s := range sinks {
		if s.st != nil {
			got, e := s.st.Close()
			if e != nil && err == nil {
				err = e
			}
			if !summed {
				sum, summed = got, true
			}
			continue
		}
		if err != nil {
			continue
		}
		if s.Format == "junit" {
			err = output.JUnitFailOn(s.w, rep, cfg.FailOn)
		} else {
			err = output.Write(s.w, s.Format, rep)
		}
	}
	for _, s := range sinks {
		if e := s.flush(); e != nil && err == nil {
			err = e
		}
	}
	for _, e := range ioErrs { // an error names a path: escaped (safetext)
		fmt.Fprintln(stderr, "aoplint:", safetext.Block(e.Error()))
	}
	reportProject(stderr, proj, cfg.Verbose)
	if err != nil {
		fmt.Fprintln(stderr, "aoplint:", safetext.Block(err.Error()))
		return exitUsage
	}
	// The summary always ends a text run: a clean run, an empty directory and a run
	// whose diagnostics were not all printed say so.
	if cfg.Format == "text" {
		fmt.Fprintln(stderr, output.SummaryLine(sum))
	}
	if len(ioErrs) > 0 {
		return exitUsage
	}
	if proj.WriteTo != "" {
		return exitClean
	}
	if sum.Errors > 0 || (cfg.FailOn == lint.Warning && sum.Warnings > 0) {
		return exitFindings
	}
	return exitClean
}

func orUnknown(p string) string {
	if p == "" {
		return "no protocol"
	}
	return p
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
