// Package clikit holds what the three commands (aoplint, aopconform, mockagent) share
// on the command line, so they behave alike: --version from internal/version, -v
// meaning --verbose everywhere, `help`, shell completion, colour only on a terminal,
// and tables that fit in 100 columns.
package clikit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/internal/version"
)

// Width is the widest line a table may print.
const Width = 100

func init() {
	// -v is --verbose in every command; --version has no short form.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version and exit", DisableDefaultText: true}
}

// VerboseFlag is the one --verbose/-v of every command.
func VerboseFlag(usage string) *cli.BoolFlag {
	return &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: usage}
}

// Setup gives app what every aopkit command has: the version, the help command,
// shell completion (hidden --generate-bash-completion and a `completion` command).
func Setup(app *cli.App) {
	app.Version = version.String()
	app.HideVersion = false
	app.HideHelpCommand = false
	app.EnableBashCompletion = true
	app.Commands = append(app.Commands, completionCommand(app))
}

func completionCommand(app *cli.App) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "Load it in the current shell, for example:\n\n" +
			"   source <(" + app.Name + " completion bash)\n" +
			"   " + app.Name + " completion fish > ~/.config/fish/completions/" + app.Name + ".fish",
		Action: func(c *cli.Context) error {
			script, err := CompletionScript(app, c.Args().First())
			if err != nil {
				return cli.Exit(app.Name+": "+err.Error(), 2)
			}
			_, err = io.WriteString(c.App.Writer, script)
			return err
		},
	}
}

// CompletionScript is the completion script of app for shell.
func CompletionScript(app *cli.App, shell string) (string, error) {
	switch shell {
	case "bash":
		return strings.ReplaceAll(bashScript, "PROG", app.Name), nil
	case "zsh":
		return strings.ReplaceAll(zshScript, "PROG", app.Name), nil
	case "fish":
		return app.ToFishCompletion()
	}
	return "", fmt.Errorf("completion takes a shell: bash, zsh or fish (got %q)", shell)
}

const bashScript = `# bash completion for PROG: source <(PROG completion bash)
_PROG_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" req
  if [[ "$cur" == -* ]]; then
    req=("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion)
  else
    req=("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion)
  fi
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "$("${req[@]}" 2>/dev/null)" -- "$cur"))
}
complete -o bashdefault -o default -F _PROG_complete PROG
`

const zshScript = `#compdef PROG
# zsh completion for PROG: source <(PROG completion zsh)
_PROG_complete() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _PROG_complete PROG
`

// Color says whether w gets ANSI colour: only a terminal, never with NO_COLOR set
// (any value, https://no-color.org) or TERM=dumb.
func Color(w io.Writer) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// Terminal says whether w is a terminal (colour or not): reports fit its width
// there, and keep long lines whole in a file or a pipe.
func Terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// WriteJSON prints v as every listing's --format json does: indented, HTML not
// escaped, one document ending in a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// UsageHint is what a usage error ends with: where the help of the command that
// failed is, such as "(aoplint config check --help)".
func UsageHint(c *cli.Context) string {
	name := ""
	if c != nil && c.Command != nil {
		name = c.Command.HelpName
	}
	if name == "" && c != nil && c.App != nil {
		name = c.App.Name
	}
	return "(" + name + " --help)"
}

// OnUsageErrors makes every command of app (subcommands too) that has no
// OnUsageError of its own report a usage error (a bad flag, a missing value) with
// fn, as the app does: never urfave/cli's "Incorrect Usage" and the whole help on
// standard output.
func OnUsageErrors(app *cli.App, fn cli.OnUsageErrorFunc) {
	if app.OnUsageError == nil {
		app.OnUsageError = fn
	}
	var walk func(cs []*cli.Command)
	walk = func(cs []*cli.Command) {
		for _, c := range cs {
			if c.OnUsageError == nil {
				c.OnUsageError = fn
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// Values completes a flag's value or a command's arguments: the words a shell
// completion offers.
type Values func() []string

// CompleteValues makes shell completion (--generate-bash-completion, which the
// scripts of CompletionScript call) offer values: after a flag named in flags
// (by its first name, or "COMMAND NAME" for one command's flag), that flag's
// values; as the argument of a command named in
// args, its values; else the default (flags after "-", commands). args is the
// command line as the program got it (os.Args): urfave/cli's completion reads
// the word before the cursor from there.
func CompleteValues(app *cli.App, argv []string, flags map[string]Values, args map[string]Values) {
	prev := ""
	if len(argv) > 2 {
		prev = argv[len(argv)-2]
	}
	wrap := func(cmd *cli.Command, own []cli.Flag) cli.BashCompleteFunc {
		return func(c *cli.Context) {
			if strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") {
				name := strings.TrimLeft(prev, "-")
				for _, f := range own {
					for _, n := range f.Names() {
						if n != name {
							continue
						}
						values := flags[f.Names()[0]]
						if cmd != nil && flags[cmd.Name+" "+f.Names()[0]] != nil {
							values = flags[cmd.Name+" "+f.Names()[0]]
						}
						if values != nil {
							for _, v := range values() {
								fmt.Fprintln(c.App.Writer, v)
							}
							return
						}
					}
				}
			} else if cmd != nil && args[cmd.Name] != nil {
				for _, v := range args[cmd.Name]() {
					fmt.Fprintln(c.App.Writer, v)
				}
				return
			}
			cli.DefaultCompleteWithFlags(cmd)(c)
		}
	}
	app.BashComplete = wrap(nil, app.Flags)
	var walk func(cs []*cli.Command)
	walk = func(cs []*cli.Command) {
		for _, c := range cs {
			c.BashComplete = wrap(c, c.Flags)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}
