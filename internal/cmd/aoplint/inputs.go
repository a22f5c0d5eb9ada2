package aoplintcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/internal/safefile"
	lintconfig "github.com/aopkit/aopkit/lint/config"
	"github.com/aopkit/aopkit/lint/inputs"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/output"
	"github.com/aopkit/aopkit/lint/project"
)

// lintInputs lints every input (package inputs): results in report order.
func lintInputs(args []string, sel inputs.Selector, optsFor func(string) linter.Options, jobsN int, stdin io.Reader, emit func(linter.FileResult)) []error {
	return inputs.Lint(context.Background(), args, sel, optsFor, jobsN, stdin, emit)
}

// Flags of the project: configuration, unrecognised files, baseline.
const (
	flagConfig        = "config"
	flagNoConfig      = "no-config"
	flagUnrecognised  = "unrecognised"
	flagBaseline      = "baseline"
	flagBaselineWrite = "baseline-write"
)

func projectFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagConfig, Usage: "configuration file (default: .aoplint.yaml in this directory or the nearest parent)"},
		&cli.BoolFlag{Name: flagNoConfig, Usage: "ignore any .aoplint.yaml"},
		&cli.StringFlag{Name: flagUnrecognised, Usage: "files without a protocol marker: auto (skip in directory walks, report when named), skip or error (default: the configuration's, else auto)"},
		&cli.StringFlag{Name: flagBaseline, Usage: "report only the findings this baseline file does not list; report its stale entries"},
		&cli.StringFlag{Name: flagBaselineWrite, Usage: "write today's findings to this baseline file (and exit 0)"},
	}
}

// projectFrom opens the configuration and baseline the flags name, fills the
// format from the configuration when --format is not given, and returns the
// --fail-on in effect.
func projectFrom(c flagValues, cfg *config) (string, error) {
	if c.IsSet(flagBaseline) && c.IsSet(flagBaselineWrite) {
		return "", usageErr("--baseline and --baseline-write exclude each other")
	}
	p, err := project.Open(project.Options{
		Config: c.String(flagConfig), NoConfig: c.Bool(flagNoConfig), Unrecognised: c.String(flagUnrecognised),
		Baseline: c.String(flagBaseline), BaselineWrite: c.String(flagBaselineWrite),
	})
	if err != nil {
		return "", cli.Exit(err.Error(), exitUsage)
	}
	cfg.Project = p
	if !c.IsSet(flagFormat) && p.Config.Format != "" {
		cfg.Format = p.Config.Format
	}
	failOn := c.String(flagFailOn)
	if !c.IsSet(flagFailOn) && p.Config.FailOn != "" {
		failOn = p.Config.FailOn
	}
	return failOn, nil
}

// reportProject prints on stderr how many files were skipped, and with --verbose
// which ones, and which the configuration excluded.
func reportProject(w io.Writer, p *project.Project, verbose bool) {
	if verbose {
		// The names a walk found are the input's: escaped (output.SafePath).
		if p.Config.Path != "" {
			fmt.Fprintf(w, "aoplint: configuration %s\n", output.SafePath(p.Config.Path))
		}
		for _, f := range p.Skipped {
			fmt.Fprintf(w, "aoplint: skipped %s: no protocol detected\n", output.SafePath(f))
		}
		for _, d := range p.Pruned {
			fmt.Fprintf(w, "aoplint: not walked %s: %s\n", output.SafePath(d), output.SafeText(p.PruneReason(d)))
		}
		for _, f := range p.Special {
			fmt.Fprintf(w, "aoplint: not read %s\n", f)
		}
		for _, f := range p.Excluded {
			fmt.Fprintf(w, "aoplint: excluded %s: files.include/files.exclude of %s\n", output.SafePath(f), output.SafePath(p.Config.Path))
		}
	}
	if line := p.SkippedLine(); line != "" {
		fmt.Fprintln(w, "aoplint:", line)
	}
	if p.WriteTo != "" && p.Written >= 0 {
		fmt.Fprintf(w, "aoplint: baseline written to %s (%d %s)\n", p.WriteTo, p.Written, plural(p.Written, "finding", "findings"))
	}
}

// configCommand is `aoplint config init|check|schema`.
func configCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "write (init), validate (check) or print the JSON Schema of (schema) .aoplint.yaml",
		Subcommands: []*cli.Command{
			{Name: "init", Usage: "write a commented .aoplint.yaml in the current directory", Flags: []cli.Flag{
				&cli.BoolFlag{Name: "force", Usage: "overwrite an existing file"},
			}, Action: func(c *cli.Context) error {
				const name = ".aoplint.yaml"
				if _, err := os.Lstat(name); err == nil && !c.Bool("force") {
					return usageErr("%s exists; use --force to overwrite it", name)
				}
				// Never through a symbolic link, dangling or not (safefile.WriteFile).
				if err := safefile.WriteFile(name, []byte(lintconfig.Template), 0o644, !c.Bool("force")); err != nil {
					return cli.Exit(err.Error(), exitUsage)
				}
				fmt.Fprintf(stdout, "wrote %s\n", name)
				return nil
			}},
			{Name: "check", Usage: "validate a configuration file (default: the one aoplint would use); exit 1 if it has errors", ArgsUsage: "[FILE]", Action: func(c *cli.Context) error {
				path := c.Args().First()
				if path == "" {
					found, err := lintconfig.Find(".")
					if err != nil {
						return cli.Exit(err.Error(), exitUsage)
					}
					if found == "" {
						return usageErr("no .aoplint.yaml in this directory or any parent (aoplint config init writes one)")
					}
					path = found
					if wd, err := os.Getwd(); err == nil {
						if rel, err := filepath.Rel(wd, found); err == nil {
							path = rel
						}
					}
				}
				if _, err := lintconfig.Load(path); err != nil {
					var es lintconfig.Errors
					if errors.As(err, &es) {
						return cli.Exit(err.Error(), exitFindings)
					}
					return cli.Exit(err.Error(), exitUsage)
				}
				fmt.Fprintf(stdout, "%s: ok\n", path)
				return nil
			}},
			{Name: "schema", Usage: "print the JSON Schema of .aoplint.yaml", Action: func(c *cli.Context) error {
				data, err := lintconfig.Schema()
				if err != nil {
					return cli.Exit(err.Error(), exitUsage)
				}
				_, err = stdout.Write(data)
				return err
			}},
		},
	}
}
